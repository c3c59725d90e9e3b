import { type Expression, type SqlBool, sql } from 'kysely';
import type { Executor, NewRow, Row, Transaction } from '../database.ts';
import type { Dialect } from '../dialect.ts';
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
  return reachSql(reach, alias, {
    among: (column, ids) => sql<SqlBool>`${sql.ref(column)} in (${sql.join(ids.map((id) => sql.val(id)))})`,
    one: (value) => value,
  });
}

/**
 * How `reach` is written, once for both forms: the parts it has (admin companies, or teams within
 * companies; then the request's company and team), its ids written by `among` (a list) and `one`.
 */
function reachSql(
  reach: Reach,
  alias: string,
  write: { among(column: string, ids: readonly string[], sentinel: string): Expression<SqlBool>; one(value: string, sentinel: string): unknown },
): Expression<SqlBool> | null {
  const anyOf: Expression<SqlBool>[] = [];
  if (reach.adminCompanyIds.length > 0) anyOf.push(write.among(`${alias}.company_id`, reach.adminCompanyIds, REACH_ADMIN_COMPANIES));
  if (reach.teamIds.length > 0 && reach.companyIds.length > 0) {
    anyOf.push(
      sql<SqlBool>`(${write.among(`${alias}.team_id`, reach.teamIds, REACH_TEAMS)} and ${write.among(`${alias}.company_id`, reach.companyIds, REACH_COMPANIES)})`,
    );
  }
  if (anyOf.length === 0) return null;
  const parts = [sql<SqlBool>`(${sql.join(anyOf, sql` or `)})`];
  if (reach.companyId !== undefined) parts.push(sql<SqlBool>`${sql.ref(`${alias}.company_id`)} = ${write.one(reach.companyId, REACH_COMPANY)}`);
  if (reach.teamId !== undefined) parts.push(sql<SqlBool>`${sql.ref(`${alias}.team_id`)} = ${write.one(reach.teamId, REACH_TEAM)}`);
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

const REACH_ADMIN_COMPANIES = '\u0000reach-admin-companies';
const REACH_COMPANIES = '\u0000reach-companies';
const REACH_TEAMS = '\u0000reach-teams';
const REACH_COMPANY = '\u0000reach-company';
const REACH_TEAM = '\u0000reach-team';

/** `reachCondition` for a statement compiled once (`executeCompiledOnce`). */
export interface CompiledReach {
  /** Tells apart the forms the condition takes (which parts `reach` has): one compiled statement each. */
  shape: string;
  /** The condition, its ids written as sentinels (lists through `Dialect.inIdList`). */
  condition(): Expression<SqlBool>;
  /** The sentinels' values. */
  values: Record<string, unknown>;
}

/** `reachCondition` with the ids as parameters, for a statement compiled once; null when `reach` covers nothing. */
export function compiledReach(dialect: Dialect, reach: Reach, alias: string): CompiledReach | null {
  const admin = reach.adminCompanyIds.length > 0;
  const teams = reach.teamIds.length > 0 && reach.companyIds.length > 0;
  // what reachSql answers null for: no statement to compile
  if (!admin && !teams) return null;
  return {
    shape: `${admin ? 'a' : '-'}${teams ? 't' : '-'}${reach.companyId !== undefined ? 'c' : '-'}${reach.teamId !== undefined ? 'T' : '-'}`,
    // only when the statement is compiled (once per shape)
    condition: () =>
      reachSql(reach, alias, {
        among: (column, _ids, sentinel) => dialect.inIdList(column, sentinel),
        one: (_value, sentinel) => sentinel,
      }) as Expression<SqlBool>,
    values: {
      [REACH_ADMIN_COMPANIES]: dialect.idList(reach.adminCompanyIds),
      [REACH_COMPANIES]: dialect.idList(reach.companyIds),
      [REACH_TEAMS]: dialect.idList(reach.teamIds),
      [REACH_COMPANY]: reach.companyId,
      [REACH_TEAM]: reach.teamId,
    },
  };
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
