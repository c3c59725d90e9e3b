/**
 * Everything that differs between SQLite and PostgreSQL lives here, so services and repositories
 * write one query code for both.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import pg from 'pg';
import type { Database } from './database.ts';
import { createPostgresPool, DEFAULT_DATABASE_TIMEOUTS, DEFAULT_POOL_SIZE, type DatabaseTimeouts } from './postgres-pool.ts';

export type Engine = 'sqlite' | 'postgres';

export interface StorageConnection {
  db: Kysely<Database>;
  engine: Engine;
  /** The URL with any password masked, for logs. */
  description: string;
  /** SQLite only: see `exclusiveRunner`. */
  runExclusive?: ExclusiveRunner;
  close(): Promise<void>;
}

/** Runs SQL synchronously, with statements prepared once per text. */
export interface SyncQueries {
  all<R>(source: string, parameters: readonly unknown[]): R[];
  run(source: string, parameters: readonly unknown[]): void;
}

export type ExclusiveRunner = <T>(work: (queries: SyncQueries) => T) => Promise<T>;

export interface ParsedDatabaseUrl {
  engine: Engine;
  /** SQLite: the file path (or `:memory:`). PostgreSQL: the connection string without `schema`. */
  location: string;
  /** PostgreSQL only: the schema to use (search_path), from `?schema=`. */
  schema?: string;
}

export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  if (url.startsWith('sqlite:')) {
    const location = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!location) throw new Error('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/taskboard.db');
    return { engine: 'sqlite', location };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema') ?? undefined;
    parsed.searchParams.delete('schema');
    if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
      throw new Error(`DATABASE_URL schema "${schema}" must be a lowercase SQL identifier`);
    }
    return { engine: 'postgres', location: parsed.toString(), ...(schema ? { schema } : {}) };
  }
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got "${maskUrl(url)}")`);
}

export function maskUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}

/**
 * Kysely prepares every query anew, and preparing is most of what a small SQLite query costs
 * (a third of a card read, measured with --cpu-prof). Queries repeat by SQL text, so prepared
 * statements are kept by text. Safe because Kysely runs one query at a time on this connection and
 * we never stream results (a streamed statement would be busy while reused).
 */
function withStatementCache(sqlite: SqliteDatabase.Database, size = 1000): SqliteDatabase.Database {
  const statements = new Map<string, SqliteDatabase.Statement>();
  const prepare = (source: string) => {
    let statement = statements.get(source);
    if (!statement) {
      statement = sqlite.prepare(source);
      if (statements.size >= size) statements.delete(statements.keys().next().value as string);
      statements.set(source, statement);
    }
    return statement;
  };
  return new Proxy(sqlite, {
    get(target, property) {
      if (property === 'prepare') return prepare;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * SQLite: runs `work` as one transaction of its own, synchronously, so no other query can come
 * between its statements and it needs no round of the event loop per statement. A transaction
 * that Kysely holds open across awaits would swallow these statements, so then `work` waits for
 * the connection through Kysely's own connection lock, as any query would.
 * For small hot writes (rate-limit decisions): one async hop instead of one per statement.
 */
function exclusiveRunner(sqlite: SqliteDatabase.Database, db: Kysely<Database>): ExclusiveRunner {
  const queries: SyncQueries = {
    all: <R>(source: string, parameters: readonly unknown[]) => sqlite.prepare(source).all(...parameters) as R[],
    run: (source, parameters) => {
      sqlite.prepare(source).run(...parameters);
    },
  };
  // IMMEDIATE: take the write lock at the start, so another process on the file makes it wait
  // (busy_timeout) instead of failing when the read turns into a write.
  const inTransaction = <T>(work: (queries: SyncQueries) => T): T => sqlite.transaction(() => work(queries)).immediate();
  return async (work) => {
    if (!sqlite.inTransaction) return inTransaction(work);
    return db.connection().execute(async () => inTransaction(work));
  };
}

// PostgreSQL returns int8 (bigint, count(*)) as strings; every such value here fits in a double.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export interface OpenOptions extends Partial<DatabaseTimeouts> {
  poolSize?: number;
  /** PostgreSQL: told about a connection that died while idle (the pool drops it and goes on). */
  onIdleError?: (error: Error) => void;
}

export function openStorage(url: string, options: OpenOptions = {}): StorageConnection {
  const parsed = parseDatabaseUrl(url);
  if (parsed.engine === 'sqlite') {
    if (parsed.location !== ':memory:') mkdirSync(dirname(resolve(parsed.location)), { recursive: true });
    const sqlite = new SqliteDatabase(parsed.location);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const cached = withStatementCache(sqlite);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
    return {
      db,
      engine: 'sqlite',
      description: `sqlite:${parsed.location}`,
      runExclusive: exclusiveRunner(cached, db),
      close: () => db.destroy(),
    };
  }
  const pool = createPostgresPool({
    ...DEFAULT_DATABASE_TIMEOUTS,
    ...options,
    connectionString: parsed.location,
    schema: parsed.schema,
    poolSize: options.poolSize ?? DEFAULT_POOL_SIZE,
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, engine: 'postgres', description: maskUrl(url), close: () => db.destroy() };
}

/**
 * Engine-specific JSON aggregation, so a card and its parts load in one query on both engines.
 * Use one level of nesting only: SQLite loses the JSON subtype through a subquery.
 */
export function jsonArrayFrom<O>(
  engine: Engine,
  expr: Parameters<typeof sqliteJsonArrayFrom<O>>[0],
): ReturnType<typeof sqliteJsonArrayFrom<O>> {
  return engine === 'sqlite' ? sqliteJsonArrayFrom(expr) : pgJsonArrayFrom(expr);
}

/**
 * SQLite hands JSON aggregates back as text, PostgreSQL as parsed values. We parse only the columns
 * we built as JSON: a blanket parser would turn a card named "[1]" into an array.
 */
export function fromJson<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

/**
 * Makes a unique-violation recognisable on both engines, so services can answer 409 instead of 500.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === '23503' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * PostgreSQL aborted the transaction to break a deadlock (SQLSTATE 40P01): it waited, in a circle,
 * for locks another transaction held. SQLite runs one write transaction at a time and never does.
 */
export function isDeadlock(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '40P01';
}

/** Our class of PostgreSQL advisory locks (the two-key form), apart from anyone else's. */
const ADVISORY_LOCK_CLASS = 0x7462; // "tb"

/**
 * Serializes the transactions that lock the same `key`, until each one ends, and answers the time
 * (epoch ms) by the clock every server instance shares, read once the lock is held.
 * PostgreSQL: a transaction-scoped advisory lock, so instances sharing the database queue per key
 * (keys whose hashes collide merely queue together), and the database server's clock, so instances
 * with skewed clocks still agree. SQLite: the one connection already runs one transaction at a
 * time; the host's clock is the shared one.
 */
export async function lockInTransaction(trx: Kysely<Database>, engine: Engine, key: string): Promise<{ lockedAt: number }> {
  if (engine === 'sqlite') return { lockedAt: Date.now() };
  // The clock is read in the outer query, so only after the inner one got the lock.
  const { rows } = await sql<{ locked_at: number }>`
    select (extract(epoch from clock_timestamp()) * 1000)::bigint as locked_at
    from (select pg_advisory_xact_lock(${sql.lit(ADVISORY_LOCK_CLASS)}, hashtext(${key}))) as held`.execute(trx);
  return { lockedAt: Number(rows[0]?.locked_at) };
}

export { sql };
