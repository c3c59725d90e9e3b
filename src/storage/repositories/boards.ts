import { type Expression, type SqlBool, sql } from 'kysely';
import type { Executor, NewRow, Row, Transaction } from '../database.ts';
import type { Dialect, Param } from '../dialect.ts';
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
  write: { among(column: string, ids: readonly string[], name: ReachParameter): Expression<SqlBool>; one(value: string, name: ReachParameter): unknown },
): Expression<SqlBool> | null {
  const anyOf: Expression<SqlBool>[] = [];
  if (reach.adminCompanyIds.length > 0) anyOf.push(write.among(`${alias}.company_id`, reach.adminCompanyIds, 'reachAdminCompanies'));
  if (reach.teamIds.length > 0 && reach.companyIds.length > 0) {
    anyOf.push(
      sql<SqlBool>`(${write.among(`${alias}.team_id`, reach.teamIds, 'reachTeams')} and ${write.among(`${alias}.company_id`, reach.companyIds, 'reachCompanies')})`,
    );
  }
  if (anyOf.length === 0) return null;
  const parts = [sql<SqlBool>`(${sql.join(anyOf, sql` or `)})`];
  if (reach.companyId !== undefined) parts.push(sql<SqlBool>`${sql.ref(`${alias}.company_id`)} = ${write.one(reach.companyId, 'reachCompany')}`);
  if (reach.teamId !== undefined) parts.push(sql<SqlBool>`${sql.ref(`${alias}.team_id`)} = ${write.one(reach.teamId, 'reachTeam')}`);
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

/** The parameters of `CompiledReach`'s condition, by name: its lists (`Dialect.idList`), then the request's company and team. */
export interface ReachValues {
  reachAdminCompanies: unknown;
  reachCompanies: unknown;
  reachTeams: unknown;
  reachCompany: string | undefined;
  reachTeam: string | undefined;
}

type ReachParameter = keyof ReachValues;

/** `reachCondition` for a statement compiled once (`executeCompiledOnce`). */
export interface CompiledReach {
  /** Tells apart the forms the condition takes (which parts `reach` has): one compiled statement each. */
  shape: string;
  /** The condition, its ids written as the statement's parameters (lists through `Dialect.inIdList`). */
  condition(param: Param<ReachValues>): Expression<SqlBool>;
  /** The parameters' values, among the statement's. */
  values: ReachValues;
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
    condition: (param) =>
      reachSql(reach, alias, {
        among: (column, _ids, name) => dialect.inIdList(column, param(name)),
        one: (_value, name) => param(name),
      }) as Expression<SqlBool>,
    values: {
      reachAdminCompanies: dialect.idList(reach.adminCompanyIds),
      reachCompanies: dialect.idList(reach.companyIds),
      reachTeams: dialect.idList(reach.teamIds),
      reachCompany: reach.companyId,
      reachTeam: reach.teamId,
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
