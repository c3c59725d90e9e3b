import type { Notification } from '../../schemas/notifications.ts';
import * as notifications from '../../storage/repositories/notifications.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { nowIso } from '../shared/ids.ts';
import { creationKey, DEFAULT_PAGE_SIZE, decodeCursor, isCreationKey, type Page, toPage } from '../shared/pagination.ts';
import { toNotification } from './records.ts';

export interface NotificationsOptions {
  unread?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * List Notifications: the caller's own, newest first (`unread`: only those not read). Pages go back
 * in time from the cursor, so notifications created meanwhile never shift a page being read.
 */
export async function listNotifications(ctx: ServiceContext, caller: Caller, options: NotificationsOptions): Promise<Page<Notification>> {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  const key = options.cursor === undefined ? undefined : decodeCursor(options.cursor, isCreationKey);
  const rows = await notifications.notificationPage(ctx.db, {
    userId: caller.userId,
    unread: options.unread === true,
    after: key && { createdAt: key[0], id: key[1] },
    take: limit + 1,
  });
  const page = toPage(rows, limit, creationKey);
  return { items: page.items.map(toNotification), nextCursor: page.nextCursor };
}

/** Mark Notification Read: the owner only (404 for anyone else); reading it again keeps the first `readAt`. */
export async function markNotificationRead(ctx: ServiceContext, caller: Caller, notificationId: string): Promise<Notification> {
  const own = await requireAccess(ctx.db, caller, { kind: 'notification', id: notificationId });
  await notifications.markRead(ctx.db, own.id, nowIso());
  return toNotification((await notifications.findNotification(ctx.db, own.id)) ?? own);
}

/** Mark All Notifications Read: every unread notification of the caller; answers how many. */
export function markAllNotificationsRead(ctx: ServiceContext, caller: Caller): Promise<number> {
  return notifications.markAllRead(ctx.db, caller.userId, nowIso());
}
