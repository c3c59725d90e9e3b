/**
 * Board imports (src/domain/imports): the import's row, and the bulk writes of the board it brings.
 * Everything an import writes is marked deleted (`deleted_at` = the import's mark) until it publishes
 * the board in one short transaction.
 */
import type { Insertable } from 'kysely';
import type { Database, Executor, NewRow, Row, Transaction } from '../database.ts';

export type ImportRow = Row<'imports'>;

export async function insertImport(db: Executor, row: NewRow<'imports'>): Promise<void> {
  await db.insertInto('imports').values(row).execute();
}

export async function findImport(db: Executor, id: string): Promise<ImportRow | undefined> {
  return db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Renews a running import's lease (and its progress) while it still holds it at `at`: false when it
 * lost it (the lease ran out, so the sweeper may already be removing its board).
 */
export async function renewImport(trx: Transaction, id: string, at: string, leaseUntil: string, cardsDone: number): Promise<boolean> {
  const result = await trx
    .updateTable('imports')
    .set({ lease_until: leaseUntil, cards_done: cardsDone, updated_at: at })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('lease_until', '>', at)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends a running import as done or failed; false when it was not running. */
export async function finishImport(
  db: Executor,
  id: string,
  at: string,
  end: { status: 'done' | 'failed'; report?: string; error?: string | null; cardsDone?: number },
): Promise<boolean> {
  const result = await db
    .updateTable('imports')
    .set({
      status: end.status,
      ...(end.report === undefined ? {} : { report: end.report }),
      ...(end.error === undefined ? {} : { error: end.error }),
      ...(end.cardsDone === undefined ? {} : { cards_done: end.cardsDone }),
      // a lease that ends now hands what the import wrote to the sweeper at once
      lease_until: at,
      updated_at: at,
      finished_at: at,
    })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Rows per insert statement: well within both engines' parameter limits for the widest table (cards). */
const ROWS_PER_STATEMENT = 200;

/** Inserts rows of one table, a statement per `ROWS_PER_STATEMENT`. */
export async function insertMany<T extends keyof Database>(trx: Transaction, table: T, rows: readonly Insertable<Database[T]>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    // the table is generic here; each caller's rows are typed by it
    await trx
      .insertInto(table)
      .values(rows.slice(start, start + ROWS_PER_STATEMENT) as never)
      .execute();
  }
}

/** Makes the imported board, its lists and its cards visible: they were marked with `mark`. */
export async function publishBoard(trx: Transaction, boardId: string, mark: string): Promise<boolean> {
  const board = await trx.updateTable('boards').set({ deleted_at: null }).where('id', '=', boardId).where('deleted_at', '=', mark).executeTakeFirst();
  if (board.numUpdatedRows === 0n) return false;
  await trx.updateTable('lists').set({ deleted_at: null }).where('board_id', '=', boardId).where('deleted_at', '=', mark).execute();
  await trx.updateTable('cards').set({ deleted_at: null }).where('board_id', '=', boardId).where('deleted_at', '=', mark).execute();
  return true;
}

/** Up to `limit` cards of a marked board, for removing a failed import's board batch by batch. */
export async function markedCardsOfBoard(db: Executor, boardId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('cards').select('id').where('board_id', '=', boardId).where('deleted_at', 'is not', null).limit(limit).execute();
  return rows.map((row) => row.id);
}

/** Removes a marked board's lists and the board (its labels by the cascade), once its cards are gone. */
export async function removeMarkedBoardShell(trx: Transaction, boardId: string): Promise<void> {
  await trx.deleteFrom('lists').where('board_id', '=', boardId).where('deleted_at', 'is not', null).execute();
  await trx.deleteFrom('boards').where('id', '=', boardId).where('deleted_at', 'is not', null).execute();
}

/** The team's members with what an import matches people by: full name and the email's local part. */
export async function teamPeople(db: Executor, teamId: string) {
  return db
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select(['users.id', 'users.full_name', 'users.email'])
    .where('team_members.team_id', '=', teamId)
    .orderBy('team_members.created_at')
    .orderBy('users.id')
    .execute();
}

/** The first owner of the company (an import the command line starts is theirs unless it names a user). */
export async function firstOwnerOf(db: Executor, companyId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('company_members')
    .select('user_id')
    .where('company_id', '=', companyId)
    .where('role', '=', 'owner')
    .orderBy('created_at')
    .orderBy('user_id')
    .executeTakeFirst();
  return row?.user_id;
}
