/** Recurring cards and the occurrences they made (migration 0066; src/domain/recurrences). */
import type { Executor, NewRow, Row, RowUpdate, Transaction } from '../database.ts';
import { dialectOf } from '../dialect.ts';

export type RecurrenceRow = Row<'recurrences'>;

export async function insertRecurrence(db: Executor, row: NewRow<'recurrences'>): Promise<void> {
  await db.insertInto('recurrences').values(row).execute();
}

export async function findRecurrence(db: Executor, id: string): Promise<RecurrenceRow | undefined> {
  return db.selectFrom('recurrences').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function recurrencesOfBoard(db: Executor, boardId: string): Promise<RecurrenceRow[]> {
  return db.selectFrom('recurrences').selectAll().where('board_id', '=', boardId).orderBy('created_at').orderBy('id').execute();
}

export async function updateRecurrence(db: Executor, id: string, change: RowUpdate<'recurrences'>): Promise<void> {
  await db.updateTable('recurrences').set(change).where('id', '=', id).execute();
}

export async function deleteRecurrence(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('recurrences').where('id', '=', id).execute();
}

/** The enabled recurrences owing an occurrence at `now` (ISO), soonest first. */
export async function dueRecurrenceIds(db: Executor, now: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('recurrences').select('id').where('enabled', '=', 1).where('next_at', '<=', now).orderBy('next_at').limit(limit).execute();
  return rows.map((row) => row.id);
}

/** The recurrence, locked for this transaction, when it still owes an occurrence at `now`; one another instance holds is skipped. */
export async function lockDueRecurrence(trx: Transaction, id: string, now: string): Promise<RecurrenceRow | undefined> {
  const query = trx.selectFrom('recurrences').selectAll().where('id', '=', id).where('enabled', '=', 1).where('next_at', '<=', now);
  return dialectOf(trx).fragments.skipLocked(query).executeTakeFirst();
}

export async function insertOccurrence(trx: Transaction, row: NewRow<'recurrence_occurrences'>): Promise<void> {
  await trx.insertInto('recurrence_occurrences').values(row).execute();
}

/** The instant of the last occurrence made, if any. */
export async function lastOccurrence(db: Executor, recurrenceId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('recurrence_occurrences')
    .select((eb) => eb.fn.max('occurs_at').as('last'))
    .where('recurrence_id', '=', recurrenceId)
    .executeTakeFirst();
  return (row?.last as string | null | undefined) ?? undefined;
}
