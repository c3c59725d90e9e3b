import type { Notification } from '../../schemas/notifications.ts';

/**
 * Where a channel outside the API (email, push) plugs in: told of each notification once it has
 * committed (src/domain/notifications/delivery.ts reads them from the event record's `notification.created`
 * events, so a sender never sees one that rolled back). None is configured by default.
 *
 * A send is bounded (NOTIFICATION_SEND_TIMEOUT_MS): past it, or when the server closes, `signal` is
 * aborted and delivery goes on with the next notification without waiting for this one; the
 * notification counts as failed (logged, `taskboard_notification_send_failures_total`). A sender
 * should pass `signal` on to what it waits for (fetch, an SMTP client) so the abandoned work ends too.
 */
export interface NotificationSender {
  send(notification: Notification, options: { signal: AbortSignal }): Promise<void>;
}
