import { type Expression, type SqlBool, sql } from 'kysely';
import type { Executor, Transaction, NewRow, Row } from '../database.ts';
import { inCreationOrder } from './order.ts';

export type BoardRow = Row<'boards'>;

/**
 * What a caller reaches, in the terms a query filters on: the companies it belongs to, those it
 * administers (whole company), and its teams; plus the optional `companyId`/`teamId` of the request.
 */
export interface Reach {
  companyIds: readonly string[];
  adminCompanyIds: readonly string[];
  teamIds: readonly string[];
  companyId?: string | undefined;
  teamId?: string | undefined;
}

/**
 * The rows of `alias` (a table with company_id and team_id) that `reach` covers, or null when it
 * covers nothing (an empty `in ()` is not valid SQL, so callers answer an empty collection instead).
 */
export function reachCondition(reach: Reach, alias: string): Expression<SqlBool> | null {
  const company = sql.ref(`${alias}.company_id`);
  const team = sql.ref(`${alias}.team_id`);
  const inList = (values: readonly string[]) => sql.join(values.map((v) => sql.val(v)));
  const anyOf: Expression<SqlBool>[] = [];
  if (reach.adminCompanyIds.length > 0) anyOf.push(sql<SqlBool>`${company} in (${inList(reach.adminCompanyIds)})`);
  if (reach.teamIds.length > 0 && reach.companyIds.length > 0) {
    anyOf.push(sql<SqlBool>`(${team} in (${inList(reach.teamIds)}) and ${company} in (${inList(reach.companyIds)}))`);
  }
  if (anyOf.length === 0) return null;
  const parts = [sql<SqlBool>`(${sql.join(anyOf, sql` or `)})`];
  if (reach.companyId !== undefined) parts.push(sql<SqlBool>`${company} = ${reach.companyId}`);
  if (reach.teamId !== undefined) parts.push(sql<SqlBool>`${team} = ${reach.teamId}`);
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

export async function insertBoard(db: Executor, row: NewRow<'boards'>): Promise<void> {
  await db.insertInto('boards').values(row).execute();
}

export async function findBoardById(db: Executor, id: string): Promise<BoardRow | undefined> {
  return db.selectFrom('boards').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Boards `reach` covers, oldest first. */
export async function listReachableBoards(db: Executor, reach: Reach, archived = false): Promise<BoardRow[]> {
  const condition = reachCondition(reach, 'boards');
  if (!condition) return [];
  let query = db.selectFrom('boards').selectAll().where(condition).where('deleted_at', 'is', null);
  if (!archived) query = query.where('archived', '=', 0);
  return query.$call(inCreationOrder).execute();
}

/**
 * Serializes position changes among a board's lists: a no-op update takes the board's row lock on
 * PostgreSQL until the transaction ends; SQLite already runs one write transaction at a time.
 */
export async function lockBoard(db: Transaction, boardId: string): Promise<boolean> {
  const result = await db
    .updateTable('boards')
    .set((eb) => ({ version: eb.ref('version') }))
    .where('id', '=', boardId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  // false: the board was deleted after it was read
  return result.numUpdatedRows > 0n;
}

/** Changes a live board's own fields (one change: `__v` + 1); its row as it now is, undefined when there is none. */
export async function changeBoard(
  db: Transaction,
  id: string,
  change: { name?: string; description?: string; archived?: 0 | 1; archived_at?: string | null },
  at: string,
): Promise<BoardRow | undefined> {
  return db
    .updateTable('boards')
    .set((eb) => ({ ...change, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
