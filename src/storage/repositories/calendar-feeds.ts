import type { Executor, NewRow, Row } from '../database.ts';
import { type Reach, reachCondition } from './boards.ts';

export type CalendarFeedRow = Row<'calendar_feeds'>;

/** A feed with the name of its board (null for My Tasks, or a board gone from the listing's reach). */
export type ListedCalendarFeed = CalendarFeedRow & { board_name: string | null };

export async function insertCalendarFeed(db: Executor, row: NewRow<'calendar_feeds'>): Promise<void> {
  await db.insertInto('calendar_feeds').values(row).execute();
}

/** A person's feeds, oldest first. */
export function listCalendarFeeds(db: Executor, userId: string): Promise<ListedCalendarFeed[]> {
  return db
    .selectFrom('calendar_feeds as f')
    .leftJoin('boards as b', 'b.id', 'f.board_id')
    .selectAll('f')
    .select('b.name as board_name')
    .where('f.user_id', '=', userId)
    .orderBy('f.created_at')
    .orderBy('f.id')
    .execute();
}

/** Deletes the person's feed; answers it, if there was one. */
export function deleteCalendarFeed(db: Executor, userId: string, feedId: string): Promise<CalendarFeedRow | undefined> {
  return db.deleteFrom('calendar_feeds').where('id', '=', feedId).where('user_id', '=', userId).returningAll().executeTakeFirst();
}

export function findCalendarFeedByTokenHash(db: Executor, tokenHash: string): Promise<CalendarFeedRow | undefined> {
  return db.selectFrom('calendar_feeds').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function markCalendarFeedUsed(db: Executor, feedId: string, at: string): Promise<void> {
  await db.updateTable('calendar_feeds').set({ last_used_at: at }).where('id', '=', feedId).execute();
}

/** A dated card as a calendar shows it. */
export interface DatedCard {
  id: string;
  name: string;
  description: string;
  board_id: string;
  board_name: string;
  list_name: string;
  start_date: string | null;
  due_date: string;
  complete_status: number;
  updated_at: string;
}

/**
 * The unarchived cards with a due date that `reach` covers, on unarchived lists and boards, of one
 * board or (no board) those `memberId` is a member of; the soonest first, at most `limit`.
 */
export async function findDatedCards(db: Executor, of: { reach: Reach; boardId?: string; memberId?: string; limit: number }): Promise<DatedCard[]> {
  const reach = reachCondition(of.reach, 'c');
  if (!reach) return [];
  let query = db
    .selectFrom('cards as c')
    .innerJoin('lists as l', 'l.id', 'c.list_id')
    .innerJoin('boards as b', 'b.id', 'c.board_id')
    .select([
      'c.id',
      'c.name',
      'c.description',
      'c.board_id',
      'b.name as board_name',
      'l.name as list_name',
      'c.start_date',
      'c.due_date',
      'c.complete_status',
      'c.updated_at',
    ])
    .where(reach)
    .where('c.due_date', 'is not', null)
    .where('c.archived', '=', 0)
    .where('c.deleted_at', 'is', null)
    .where('l.archived', '=', 0)
    .where('b.archived', '=', 0);
  if (of.boardId !== undefined) query = query.where('c.board_id', '=', of.boardId);
  if (of.memberId !== undefined) {
    const memberId = of.memberId;
    query = query.where(({ exists, selectFrom }) =>
      exists(selectFrom('card_members as m').select('m.card_id').whereRef('m.card_id', '=', 'c.id').where('m.user_id', '=', memberId)),
    );
  }
  return (await query.orderBy('c.due_date').orderBy('c.id').limit(of.limit).execute()) as DatedCard[];
}
