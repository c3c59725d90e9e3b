/**
 * Tests that a change moves a row's updatedAt: backdate the row first, then the change must leave
 * it later than LONG_AGO, which holds whatever the clock did and needs no waiting for it to tick.
 */
import assert from 'node:assert/strict';
import type { Database, Executor } from '../../src/storage/database.ts';

/** A moment before any test ran. */
export const LONG_AGO = '2020-01-01T00:00:00.000Z';

/** The tables whose rows have an id and an `updated_at`. */
type Dated = { [T in keyof Database]: Database[T] extends { id: string; updated_at: string } ? T : never }[keyof Database];

/** Sets the row's updatedAt to LONG_AGO. */
export async function backdate(db: Executor, table: Dated, id: string): Promise<void> {
  const result = await db
    .updateTable(table as 'cards')
    .set({ updated_at: LONG_AGO })
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new Error(`backdate: no ${table} row ${id}`);
}

/** The row's stored updatedAt. */
export async function storedUpdatedAt(db: Executor, table: Dated, id: string): Promise<string> {
  const row = await db
    .selectFrom(table as 'cards')
    .select('updated_at')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.updated_at;
}

/**
 * Asserts that a change to a row backdated before it moved its updatedAt, and that `answered` (the
 * updatedAt of the answer) is the stored one.
 */
export async function assertUpdatedAtMoved(db: Executor, table: Dated, id: string, answered: string, what = 'the change'): Promise<void> {
  assert.ok(answered > LONG_AGO, `${what} moves ${table} ${id}'s updatedAt, answered ${answered}`);
  assert.equal(await storedUpdatedAt(db, table, id), answered, `${what}: the answer shows the stored updatedAt`);
}
