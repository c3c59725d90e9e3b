import type { ListedNotification, Notification } from '../../schemas/notifications.ts';
import * as notifications from '../../storage/repositories/notifications.ts';
import { reachesTeamOf, requireAccess } from '../access/access.ts';
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

/** How long a snippet is at the most: about a line. */
const SNIPPET_CHARS = 140;

/** The start of a text, its whitespace folded, cut at a word near SNIPPET_CHARS with an ellipsis. */
export function snippetOf(text: string | undefined): string | null {
  const folded = (text ?? '').replace(/\s+/g, ' ').trim();
  if (!folded) return null;
  if (folded.length <= SNIPPET_CHARS) return folded;
  const cut = folded.slice(0, SNIPPET_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > SNIPPET_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The notifications in words: who did it, on which card of which board, and what was written. A
 * card the caller no longer reaches (moved to another team, or they left its team) is told by its
 * notification alone: its names and text stay behind the reach rule.
 */
async function inWords(ctx: ServiceContext, caller: Caller, rows: readonly notifications.NotificationRow[]): Promise<ListedNotification[]> {
  const words = await notifications.notificationWords(ctx.db, rows);
  return rows.map((row) => {
    const found = row.card_id ? words.cards.get(row.card_id) : undefined;
    const card = found && reachesTeamOf(caller, found) ? found : undefined;
    const written = row.discussion_id ? words.discussions.get(row.discussion_id) : row.comment_id ? words.comments.get(row.comment_id) : undefined;
    const snippet = !card ? null : written !== undefined ? snippetOf(written) : row.type === 'card.mentioned' ? snippetOf(card.description) : null;
    return {
      ...toNotification(row),
      actorName: row.actor_user_id ? (words.actors.get(row.actor_user_id) ?? null) : null,
      board: card?.board_id ?? null,
      boardName: card?.board_name ?? null,
      cardName: card?.name ?? null,
      snippet,
    };
  });
}

/**
 * List Notifications: the caller's own, newest first (`unread`: only those not read), in words.
 * Pages go back in time from the cursor, so notifications created meanwhile never shift a page being read.
 */
export async function listNotifications(ctx: ServiceContext, caller: Caller, options: NotificationsOptions): Promise<Page<ListedNotification>> {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  const key = options.cursor === undefined ? undefined : decodeCursor(options.cursor, isCreationKey);
  const rows = await notifications.notificationPage(ctx.db, {
    userId: caller.userId,
    unread: options.unread === true,
    after: key && { createdAt: key[0], id: key[1] },
    take: limit + 1,
  });
  const page = toPage(rows, limit, creationKey);
  return { items: await inWords(ctx, caller, page.items), nextCursor: page.nextCursor };
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
