/**
 * SQL that differs between the engines, for the queries repositories build: JSON aggregation, a
 * list of ids as one parameter, row locks (and those that pass over rows others hold), lateral joins. The
 * SQLite side is the base; PostgreSQL overrides only what differs.
 */
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';

export type JsonArrayFrom<O> = typeof sqliteJsonArrayFrom<O>;

/** A select that can take row locks. */
export interface LockableQuery {
  forUpdate(of?: never): LockableQuery;
  forNoKeyUpdate(): LockableQuery;
  forShare(): LockableQuery;
  skipLocked(): LockableQuery;
}

export class SqlFragments {
  /**
   * Whether a subquery may read the columns of the rows before it in FROM (LATERAL): a join the
   * planner must run per row of an ordered walk, in its order. Not in SQLite.
   */
  readonly joinsLaterally: boolean = false;

  /** Whether WITH may hold writes (INSERT, DELETE ... RETURNING): several writes in one statement. Not in SQLite. */
  readonly writesInWith: boolean = false;

  /**
   * JSON aggregation, so a card and its parts load in one query. Use one level of nesting only:
   * SQLite loses the JSON subtype through a subquery.
   */
  jsonArrayFrom<O>(expr: Parameters<JsonArrayFrom<O>>[0]): ReturnType<JsonArrayFrom<O>> {
    return sqliteJsonArrayFrom(expr);
  }

  /**
   * Reads a column `jsonArrayFrom` built. Only those columns: a blanket parser would turn a card
   * named "[1]" into an array. SQLite hands JSON aggregates back as text.
   */
  fromJson<T>(value: T | string): T {
    return typeof value === 'string' ? (JSON.parse(value) as T) : value;
  }

  /**
   * Many small rows of `alias`, `columns` of each, as the engine's driver hands them over fastest.
   * Here undefined: read the rows themselves. PostgreSQL: one JSON array of arrays (a row's values in
   * `columns`' order), which its driver parses in one go where it would parse each column of each
   * row apart in JavaScript.
   */
  rowsAsJsonTuples(_alias: string, _columns: readonly string[]): RawBuilder<unknown[][]> | undefined {
    return undefined;
  }

  /**
   * `column` is one of a list of ids given as one parameter (`list`, a value `idList` made), so that
   * the statement's text is the same whatever the number of ids. Here: a JSON array.
   */
  inIdList(column: string, list: unknown): RawBuilder<SqlBool> {
    return sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${list}))`;
  }

  /** The parameter `inIdList` reads. */
  idList(ids: readonly string[]): unknown {
    return JSON.stringify(ids);
  }

  /**
   * `query` locking the rows it reads and passing over rows another transaction holds (so two
   * instances claiming work take different rows instead of queueing). Here: nothing to add, one
   * connection writes at a time; callers still claim with a conditional update. `of`: the alias of
   * the one table whose rows are locked, where the query joins others.
   */
  skipLocked<Q extends LockableQuery>(query: Q, _of?: string): Q {
    return query;
  }

  /**
   * `query` locking the rows it reads until the transaction ends, as an update of them would, so
   * that another transaction changing them waits. Here: nothing to add, one connection writes at a
   * time.
   */
  lockForChange<Q extends LockableQuery>(query: Q): Q {
    return query;
  }

  /**
   * `query` holding the rows it reads unchanged until the transaction ends: others may read and
   * share them, a change of them waits. Here: nothing to add, one connection writes at a time.
   */
  lockForShare<Q extends LockableQuery>(query: Q): Q {
    return query;
  }
}

export class PostgresFragments extends SqlFragments {
  override readonly joinsLaterally = true;
  override readonly writesInWith = true;

  override jsonArrayFrom<O>(expr: Parameters<JsonArrayFrom<O>>[0]): ReturnType<JsonArrayFrom<O>> {
    return pgJsonArrayFrom(expr) as ReturnType<JsonArrayFrom<O>>;
  }

  override rowsAsJsonTuples(alias: string, columns: readonly string[]): RawBuilder<unknown[][]> {
    return sql<unknown[][]>`coalesce(json_agg(json_build_array(${sql.join(columns.map((column) => sql.ref(`${alias}.${column}`)))})), '[]')`;
  }

  /** PostgreSQL hands JSON aggregates back parsed. */
  override fromJson<T>(value: T | string): T {
    return value as T;
  }

  /** An array parameter; `bpchar[]` (ids are char(24)) so that the primary key's index serves it. */
  override inIdList(column: string, list: unknown): RawBuilder<SqlBool> {
    return sql<SqlBool>`${sql.ref(column)} = any(${list}::bpchar[])`;
  }

  override idList(ids: readonly string[]): unknown {
    return ids;
  }

  override skipLocked<Q extends LockableQuery>(query: Q, of?: string): Q {
    return query.forUpdate(of as never).skipLocked() as Q;
  }

  /** The lock an UPDATE that changes no key takes: rows that reference these (a card's labels, its view) can still be written meanwhile. */
  override lockForChange<Q extends LockableQuery>(query: Q): Q {
    return query.forNoKeyUpdate() as Q;
  }

  override lockForShare<Q extends LockableQuery>(query: Q): Q {
    return query.forShare() as Q;
  }
}
