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

/** Where the unmapped people `keys` of the import were, on cards not deleted since. */
export function unmappedPlaces(db: Executor, importId: string, keys: readonly string[]) {
  if (keys.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('import_unmapped_places as p')
    .innerJoin('cards as c', 'c.id', 'p.card_id')
    .select(['p.person_key', 'p.card_id', 'p.checklist_item_id'])
    .where('p.import_id', '=', importId)
    .where('p.person_key', 'in', keys)
    .where('c.deleted_at', 'is', null)
    .orderBy('p.card_id')
    .execute();
}

/** How many places each unmapped person of the import still has, cards and items apart. */
export async function unmappedPlaceCounts(db: Executor, importId: string) {
  const rows = await db
    .selectFrom('import_unmapped_places as p')
    .innerJoin('cards as c', 'c.id', 'p.card_id')
    .select(['p.person_key', 'p.checklist_item_id'])
    .where('p.import_id', '=', importId)
    .where('c.deleted_at', 'is', null)
    .execute();
  const counts = new Map<string, { cardMemberships: number; itemMemberships: number }>();
  for (const row of rows) {
    const entry = counts.get(row.person_key) ?? { cardMemberships: 0, itemMemberships: 0 };
    if (row.checklist_item_id) entry.itemMemberships++;
    else entry.cardMemberships++;
    counts.set(row.person_key, entry);
  }
  return counts;
}

export async function deleteUnmappedPlaces(trx: Transaction, importId: string, keys: readonly string[]): Promise<void> {
  if (keys.length) await trx.deleteFrom('import_unmapped_places').where('import_id', '=', importId).where('person_key', 'in', keys).execute();
}

export async function updateImportReport(trx: Transaction, id: string, report: string, at: string): Promise<void> {
  await trx.updateTable('imports').set({ report, updated_at: at }).where('id', '=', id).execute();
}

/** Of the items, which already have which of the users as members (as `item user` pairs). */
export async function itemMemberPairs(db: Executor, itemIds: readonly string[]): Promise<Set<string>> {
  if (itemIds.length === 0) return new Set();
  const rows = await db.selectFrom('checklist_item_members').select(['item_id', 'user_id']).where('item_id', 'in', itemIds).execute();
  return new Set(rows.map((row) => `${row.item_id} ${row.user_id}`));
}

export async function insertImportInvitation(trx: Transaction, row: { invitation_id: string; import_id: string; person_key: string }): Promise<void> {
  await trx.insertInto('import_invitations').values(row).execute();
}

/** The import and person an invitation stands for, if any. */
export function importInvitationOf(db: Executor, invitationId: string) {
  return db.selectFrom('import_invitations').select(['import_id', 'person_key']).where('invitation_id', '=', invitationId).executeTakeFirst();
}

/** The email each person of the import is invited by, while the invitation is open (not accepted, revoked or expired). */
export async function openImportInvitations(db: Executor, importId: string, now: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('import_invitations as ii')
    .innerJoin('invitations as i', 'i.id', 'ii.invitation_id')
    .select(['ii.person_key', 'i.email'])
    .where('ii.import_id', '=', importId)
    .where('i.accepted_at', 'is', null)
    .where('i.revoked_at', 'is', null)
    .where('i.expires_at', '>', now)
    .orderBy('i.created_at')
    .execute();
  return new Map(rows.map((row) => [row.person_key, row.email]));
}
