import type { Notification } from '../../schemas/notifications.ts';

/**
 * Where a channel outside the API (email, push) plugs in: told of each notification once it has
 * committed (src/plugins/notifications.ts reads them from the event record's `notification.created`
 * events, so a sender never sees one that rolled back). None is configured by default.
 */
export interface NotificationSender {
  send(notification: Notification): Promise<void>;
}
