/**
 * Deleting boards, lists and cards. A card goes at once (its rows and what it keeps, by the foreign
 * keys' cascades, in the caller's transaction). A list or a board is marked deleted, with its cards,
 * in one short transaction (every read leaves marked rows out), and the sweeper removes the marked
 * rows later in bounded batches, each its own transaction.
 */
import type { Executor, Transaction } from '../database.ts';

/**
 * Keeps the stored files of the cards' attachments for the purge: the records go with the cards, the
 * files must outlive any request that may still be serving them.
 */
async function releaseFilesOfCards(trx: Transaction, cardIds: readonly string[], at: string): Promise<void> {
  const rows = await trx
    .selectFrom('attachments')
    .select('storage_key')
    .distinct()
    .where('card_id', 'in', cardIds)
    .where('storage_key', 'is not', null)
    .execute();
  const keys = rows.map((row) => row.storage_key as string);
  for (let start = 0; start < keys.length; start += 500) {
    await trx
      .insertInto('released_files')
      .values(keys.slice(start, start + 500).map((storage_key) => ({ storage_key, released_at: at })))
      .onConflict((oc) => oc.column('storage_key').doUpdateSet({ released_at: at }))
      .execute();
  }
}

/**
 * Removes the cards and everything they keep (checklists, items, comments, discussions, cheers,
 * attachment records, members, labels, seen marks: the cascades of the foreign keys); their files
 * are released to the purge. Answers how many cards went.
 */
export async function removeCards(trx: Transaction, cardIds: readonly string[], at: string): Promise<number> {
  if (cardIds.length === 0) return 0;
  await releaseFilesOfCards(trx, cardIds, at);
  const result = await trx.deleteFrom('cards').where('id', 'in', cardIds).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Marks the list and its cards deleted; false when there is no live list. */
export async function markListDeleted(trx: Transaction, listId: string, at: string): Promise<boolean> {
  const list = await trx.updateTable('lists').set({ deleted_at: at }).where('id', '=', listId).where('deleted_at', 'is', null).executeTakeFirst();
  if (list.numUpdatedRows === 0n) return false;
  await trx.updateTable('cards').set({ deleted_at: at }).where('list_id', '=', listId).where('deleted_at', 'is', null).execute();
  return true;
}

/** Marks the board, its lists and its cards deleted; false when there is no live board. */
export async function markBoardDeleted(trx: Transaction, boardId: string, at: string): Promise<boolean> {
  const board = await trx.updateTable('boards').set({ deleted_at: at }).where('id', '=', boardId).where('deleted_at', 'is', null).executeTakeFirst();
  if (board.numUpdatedRows === 0n) return false;
  await trx.updateTable('lists').set({ deleted_at: at }).where('board_id', '=', boardId).where('deleted_at', 'is', null).execute();
  await trx.updateTable('cards').set({ deleted_at: at }).where('board_id', '=', boardId).where('deleted_at', 'is', null).execute();
  return true;
}

/**
 * The boards an import is still writing (src/domain/imports): marked deleted so that nothing reads
 * them, but not the sweeper's until the import fails or its lease runs out.
 */
function boardsHeldByImports(db: Executor, at: string) {
  return db.selectFrom('imports').select('board_id').where('status', '=', 'running').where('lease_until', '>', at);
}

/**
 * The ids of up to `limit` cards marked deleted, in id order (two sweepers at once remove each card
 * once: the second finds it gone), leaving out those of boards an import holds at `at`.
 */
export async function markedCards(trx: Transaction, limit: number, at: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('cards')
    .select('id')
    .where('deleted_at', 'is not', null)
    .where('board_id', 'not in', boardsHeldByImports(trx, at))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Removes marked lists and boards that nothing is left under (their labels go with a board by the
 * cascade), but not those of boards an import holds at `at`. Answers how many lists and boards went.
 */
export async function removeEmptiedMarks(trx: Transaction, limit: number, at: string): Promise<{ lists: number; boards: number }> {
  const lists = await trx
    .deleteFrom('lists')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('lists as l')
        .select('l.id')
        .where('l.deleted_at', 'is not', null)
        .where('l.board_id', 'not in', boardsHeldByImports(trx, at))
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('cards as c').select('c.id').whereRef('c.list_id', '=', 'l.id'))))
        .limit(limit),
    )
    .executeTakeFirst();
  const boards = await trx
    .deleteFrom('boards')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('boards as b')
        .select('b.id')
        .where('b.deleted_at', 'is not', null)
        .where('b.id', 'not in', boardsHeldByImports(trx, at))
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('lists as l').select('l.id').whereRef('l.board_id', '=', 'b.id'))))
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('cards as c').select('c.id').whereRef('c.board_id', '=', 'b.id'))))
        .limit(limit),
    )
    .executeTakeFirst();
  return { lists: Number(lists.numDeletedRows), boards: Number(boards.numDeletedRows) };
}

/**
 * Marks cards that reached a marked list after it was marked (a place taken before the mark, written
 * after it), so the sweep leaves nothing under a deleted list half visible.
 */
export async function markStragglers(trx: Transaction, at: string): Promise<void> {
  await trx
    .updateTable('cards')
    .set({ deleted_at: at })
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('list_id', 'in', eb.selectFrom('lists').select('id').where('deleted_at', 'is not', null)),
        eb('board_id', 'in', eb.selectFrom('boards').select('id').where('deleted_at', 'is not', null)),
      ]),
    )
    .execute();
}

/** Whether anything marked deleted is left to sweep. */
export async function anythingMarked(db: Executor): Promise<boolean> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .or([
          eb.exists(eb.selectFrom('cards').select('id').where('deleted_at', 'is not', null)),
          eb.exists(eb.selectFrom('lists').select('id').where('deleted_at', 'is not', null)),
          eb.exists(eb.selectFrom('boards').select('id').where('deleted_at', 'is not', null)),
        ])
        .as('marked'),
    ])
    .executeTakeFirstOrThrow();
  return Boolean(Number(row.marked));
}

/** Released files whose release is older than `before`, oldest first. */
export async function releasedBefore(db: Executor, before: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('released_files').select('storage_key').where('released_at', '<', before).orderBy('released_at').limit(limit).execute();
  return rows.map((row) => row.storage_key);
}

/** Which of `keys` are released files (not orphans: the purge removes them when their time comes). */
export async function releasedAmong(db: Executor, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom('released_files').select('storage_key').where('storage_key', 'in', keys).execute();
  return new Set(rows.map((row) => row.storage_key));
}

export async function forgetReleased(db: Executor, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.deleteFrom('released_files').where('storage_key', 'in', keys).execute();
}
