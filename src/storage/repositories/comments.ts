import type { Executor, NewRow, Row, Transaction } from '../database.ts';

export type CommentTableRow = Row<'comments'>;
export type DiscussionTableRow = Row<'discussions'>;

/** A comment or reply with its author's public profile: the shape `toComment` / `toDiscussion` map. */
export type CommentRow = CommentTableRow & { creator_full_name: string; creator_photo_url: string };
export type DiscussionRow = DiscussionTableRow & { creator_full_name: string; creator_photo_url: string };

/** Where a page of comments starts: after this comment, in (createdAt, id) order. */
export interface CommentKey {
  createdAt: string;
  id: string;
}

export async function findComment(db: Executor, id: string): Promise<CommentTableRow | undefined> {
  return db.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findDiscussion(db: Executor, id: string): Promise<DiscussionTableRow | undefined> {
  return db.selectFrom('discussions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertComment(db: Transaction, row: NewRow<'comments'>): Promise<void> {
  await db.insertInto('comments').values(row).execute();
}

export async function insertDiscussion(db: Transaction, row: NewRow<'discussions'>): Promise<void> {
  await db.insertInto('discussions').values(row).execute();
}

/**
 * The newest `createdAt` among the card's comments, replies or cheers, or undefined when there are
 * none. All three tables carry the card id, so one query shape serves them.
 */
export async function latestCreatedAt(db: Executor, table: 'comments' | 'discussions' | 'cheers', cardId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom(table as 'comments')
    .select('created_at')
    .where('card_id', '=', cardId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.created_at;
}

/**
 * One change to a comment's or a reply's record: `__v` + 1, `updatedAt`; with `content`, the new
 * text. False when it is gone.
 */
export async function recordPostChange(db: Transaction, table: 'comments' | 'discussions', id: string, at: string, content?: string): Promise<boolean> {
  const result = await db
    .updateTable(table as 'comments')
    .set((eb) => ({ version: eb('version', '+', 1), updated_at: at, ...(content !== undefined ? { content } : {}) }))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Deletes a comment with everything under it: its replies and every cheer on it or on its replies
 * (all of those carry the comment's id). Explicit rather than left to ON DELETE CASCADE, so the
 * outcome does not hang on an engine's foreign-key setting.
 */
export async function deleteComment(db: Transaction, id: string): Promise<boolean> {
  await db.deleteFrom('cheers').where('comment_id', '=', id).execute();
  await db.deleteFrom('discussions').where('comment_id', '=', id).execute();
  const result = await db.deleteFrom('comments').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Deletes a reply and the cheers on it. */
export async function deleteDiscussion(db: Transaction, id: string): Promise<boolean> {
  await db.deleteFrom('cheers').where('primary_type', '=', 'discussion').where('primary_id', '=', id).execute();
  const result = await db.deleteFrom('discussions').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

function selectComments(db: Executor) {
  return db
    .selectFrom('comments as m')
    .innerJoin('users as u', 'u.id', 'm.creator_id')
    .selectAll('m')
    .select(['u.full_name as creator_full_name', 'u.photo_url as creator_photo_url']);
}

export async function findCommentRows(db: Executor, ids: readonly string[]): Promise<CommentRow[]> {
  if (ids.length === 0) return [];
  return selectComments(db).where('m.id', 'in', ids).orderBy('m.created_at').orderBy('m.id').execute();
}

/**
 * Up to `limit` comments of the card, oldest (or newest) first, after `after` when given. Keyset
 * order on (createdAt, id): comments added meanwhile sort after every existing one, so paging
 * neither repeats nor skips (newest first, they are simply not in the pages still to come).
 */
export async function commentPage(
  db: Executor,
  cardId: string,
  after: CommentKey | undefined,
  limit: number,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<CommentRow[]> {
  const beyond = order === 'oldest' ? '>' : '<';
  const direction = order === 'oldest' ? 'asc' : 'desc';
  let query = selectComments(db).where('m.card_id', '=', cardId);
  if (after) {
    query = query.where((eb) =>
      eb.or([eb('m.created_at', beyond, after.createdAt), eb.and([eb('m.created_at', '=', after.createdAt), eb('m.id', beyond, after.id)])]),
    );
  }
  return query.orderBy('m.created_at', direction).orderBy('m.id', direction).limit(limit).execute();
}

/** The replies under the given comments, oldest first. */
export async function discussionsOf(db: Executor, commentIds: readonly string[]): Promise<DiscussionRow[]> {
  if (commentIds.length === 0) return [];
  return db
    .selectFrom('discussions as d')
    .innerJoin('users as u', 'u.id', 'd.creator_id')
    .selectAll('d')
    .select(['u.full_name as creator_full_name', 'u.photo_url as creator_photo_url'])
    .where('d.comment_id', 'in', commentIds)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}
