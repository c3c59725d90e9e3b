import type { Executor, NewRow, Row, Transaction } from '../database.ts';
import { pastKey } from './order.ts';

export type NotificationRow = Row<'notifications'>;

export async function insertNotifications(db: Transaction, rows: readonly NewRow<'notifications'>[]): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('notifications')
      .values([...rows])
      .execute();
}

export async function findNotification(db: Executor, id: string): Promise<NotificationRow | undefined> {
  return db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Where a page of a user's notifications starts: strictly after (older than) this one. */
export interface NotificationsAfter {
  createdAt: string;
  id: string;
}

/** The user's notifications, newest first (`unread`: only those not read), `take` rows. */
export async function notificationPage(
  db: Executor,
  query: { userId: string; unread: boolean; after?: NotificationsAfter | undefined; take: number },
): Promise<NotificationRow[]> {
  let select = db.selectFrom('notifications').selectAll().where('user_id', '=', query.userId);
  if (query.unread) select = select.where('read_at', 'is', null);
  const after = query.after;
  if (after) {
    select = select.where(pastKey(['created_at', 'id'], [after.createdAt, after.id], '<'));
  }
  return select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.take).execute();
}

/** Marks the notification read (once: a second time keeps the first `read_at`). */
export async function markRead(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('notifications').set({ read_at: at }).where('id', '=', id).where('read_at', 'is', null).execute();
}

/** Marks every unread notification of the user read; answers how many were. */
export async function markAllRead(db: Executor, userId: string, at: string): Promise<number> {
  const result = await db.updateTable('notifications').set({ read_at: at }).where('user_id', '=', userId).where('read_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * What tells a page of notifications in words, in four queries whatever its length: the cards with
 * their boards' names, the actors' names, and the comments and replies written.
 */
export async function notificationWords(db: Executor, rows: readonly NotificationRow[]) {
  const ids = (pick: (row: NotificationRow) => string | null) => [...new Set(rows.flatMap((row) => pick(row) ?? []))];
  const cardIds = ids((row) => row.card_id);
  const actorIds = ids((row) => row.actor_user_id);
  const commentIds = ids((row) => row.comment_id);
  const discussionIds = ids((row) => row.discussion_id);
  const [cards, actors, comments, discussions] = await Promise.all([
    cardIds.length === 0
      ? []
      : db
          .selectFrom('cards as c')
          .innerJoin('boards as b', 'b.id', 'c.board_id')
          .select(['c.id', 'c.name', 'c.description', 'c.company_id', 'c.team_id', 'c.board_id', 'b.name as board_name'])
          .where('c.id', 'in', cardIds)
          .where('c.deleted_at', 'is', null)
          .execute(),
    actorIds.length === 0 ? [] : db.selectFrom('users').select(['id', 'full_name']).where('id', 'in', actorIds).execute(),
    commentIds.length === 0 ? [] : db.selectFrom('comments').select(['id', 'content']).where('id', 'in', commentIds).execute(),
    discussionIds.length === 0 ? [] : db.selectFrom('discussions').select(['id', 'content']).where('id', 'in', discussionIds).execute(),
  ]);
  return {
    cards: new Map(cards.map((card) => [card.id, card])),
    actors: new Map(actors.map((actor) => [actor.id, actor.full_name])),
    comments: new Map(comments.map((comment) => [comment.id, comment.content])),
    discussions: new Map(discussions.map((discussion) => [discussion.id, discussion.content])),
  };
}
