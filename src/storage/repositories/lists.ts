import type { Executor, NewRow, Row } from '../database.ts';
import { type Reach, reachCondition } from './boards.ts';

export type ListRow = Row<'lists'>;

export async function insertList(db: Executor, row: NewRow<'lists'>): Promise<void> {
  await db.insertInto('lists').values(row).execute();
}

export async function findListById(db: Executor, id: string): Promise<ListRow | undefined> {
  return db.selectFrom('lists').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** A board's lists in display order (`archived` false: its unarchived lists only). */
export async function findListsOfBoard(db: Executor, boardId: string, archived = true): Promise<ListRow[]> {
  let query = db.selectFrom('lists').selectAll().where('board_id', '=', boardId).where('deleted_at', 'is', null);
  if (!archived) query = query.where('archived', '=', 0);
  return query.orderBy('position').orderBy('id').execute();
}

/** Lists of the boards `reach` covers: boards oldest first, each board's lists in display order. */
export async function listReachableLists(db: Executor, reach: Reach, archived = false): Promise<ListRow[]> {
  const condition = reachCondition(reach, 'l');
  if (!condition) return [];
  let query = db.selectFrom('lists as l').innerJoin('boards as b', 'b.id', 'l.board_id').selectAll('l').where(condition).where('l.deleted_at', 'is', null);
  // an archived board's lists go with it
  if (!archived) query = query.where('l.archived', '=', 0).where('b.archived', '=', 0);
  return query.orderBy('b.created_at').orderBy('b.id').orderBy('l.position').orderBy('l.id').execute();
}

/** Moves lists to new positions (a renumbering); each moved list is a change to that list. */
export async function setListPositions(db: Executor, moves: readonly { id: string; position: number }[], at: string): Promise<void> {
  for (const move of moves) {
    await db
      .updateTable('lists')
      .set((eb) => ({ position: move.position, updated_at: at, version: eb('version', '+', 1) }))
      .where('id', '=', move.id)
      .execute();
  }
}

/** Renames and/or moves a list (one change: `__v` + 1); answers its row as it now is, undefined when there is no list. */
export async function updateList(db: Executor, id: string, change: { name?: string; position?: number }, at: string): Promise<ListRow | undefined> {
  return db
    .updateTable('lists')
    .set((eb) => ({ ...change, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Archives or unarchives a live list (one change: `__v` + 1); its row as it now is. */
export async function setListArchived(db: Executor, id: string, archived: boolean, at: string): Promise<ListRow | undefined> {
  return db
    .updateTable('lists')
    .set((eb) => ({ archived: archived ? 1 : 0, archived_at: archived ? at : null, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** How many live, unarchived cards the list holds. */
export async function countUnarchivedCards(db: Executor, listId: string): Promise<number> {
  const row = await db
    .selectFrom('cards')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('list_id', '=', listId)
    .where('archived', '=', 0)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
