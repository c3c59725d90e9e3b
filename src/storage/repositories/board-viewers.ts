import type { Executor } from '../database.ts';

/** A person viewing a board now: one per person, however many of their streams are open. */
export interface ViewerRow {
  user_id: string;
  full_name: string;
  photo_url: string;
}

export async function insertViewer(db: Executor, row: { id: string; board_id: string; user_id: string; joined_at: string; seen_until: string }): Promise<void> {
  await db.insertInto('board_viewers').values(row).execute();
}

/** Keeps a viewer counted until `seenUntil`; false when its row is gone (deleted with its board or user). */
export async function refreshViewer(db: Executor, id: string, seenUntil: string): Promise<boolean> {
  const result = await db.updateTable('board_viewers').set({ seen_until: seenUntil }).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteViewer(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('board_viewers').where('id', '=', id).execute();
}

/** Rows no instance refreshed before `now` (their instance stopped): they count no more. */
export async function deleteExpiredViewers(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('board_viewers').where('seen_until', '<=', now).execute();
}

/** The people viewing the board at `now`, in the order they came. */
export async function listViewers(db: Executor, boardId: string, now: string): Promise<ViewerRow[]> {
  return db
    .selectFrom('board_viewers as v')
    .innerJoin('users as u', 'u.id', 'v.user_id')
    .select(['v.user_id', 'u.full_name', 'u.photo_url'])
    .select((eb) => eb.fn.min('v.joined_at').as('first_joined'))
    .where('v.board_id', '=', boardId)
    .where('v.seen_until', '>', now)
    .groupBy(['v.user_id', 'u.full_name', 'u.photo_url'])
    .orderBy('first_joined')
    .orderBy('v.user_id')
    .execute()
    .then((rows) => rows.map(({ user_id, full_name, photo_url }) => ({ user_id, full_name, photo_url })));
}
