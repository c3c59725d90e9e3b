/**
 * Everything that differs between SQLite and PostgreSQL lives here, in one dialect object per
 * database: a base class with what both share, and a subclass per engine overriding only what
 * differs. Services never see it; repositories reach it through their executor (`dialectOf`).
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type AbortableOperationOptions,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type DialectAdapter,
  type Driver,
  Kysely,
  type Dialect as KyselyDialect,
  PostgresDialect as KyselyPostgresDialect,
  type QueryCompiler,
  type QueryResult,
  type RawBuilder,
  type SqlBool,
  sql,
  type TransactionSettings,
} from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import pg from 'pg';
import { type CommitListener, type CommitListenerOptions, listenForCommits } from './commit-listener.ts';
import type { Database, Executor, GroupCommit, SyncTransaction, Transaction } from './database.ts';
import { Deadlock, ForeignKeyViolation, UniqueViolation } from './errors.ts';
import { type EventFeed, PostgresEventFeed, SqliteEventFeed } from './event-feed.ts';
import {
  type AheadAnswer,
  createPostgresPool,
  type DatabaseTimeouts,
  DEFAULT_DATABASE_TIMEOUTS,
  DEFAULT_POOL_SIZE,
  type Sending,
  sendingsOf,
  statementNamesOf,
} from './postgres-pool.ts';
import { groupCommitDecisions, type RateLimitDecisions, transactionPerDecision } from './repositories/rate-limit.ts';
import { type BackgroundCheckpointOptions, type BackgroundCheckpoints, backgroundCheckpoints } from './sqlite-checkpoints.ts';
import { PlanStableSqliteDialect } from './sqlite-parameters.ts';
import { type TableWrite, tableWrites } from './table-writes.ts';

export type Engine = 'sqlite' | 'postgres';

export interface StorageConnection {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The URL with any password masked, for logs. */
  description: string;
  /** SQLite in a file, opened with `backgroundCheckpoints`: its checkpoint thread. */
  checkpoints?: BackgroundCheckpoints;
  close(): Promise<void>;
}

/** Runs SQL synchronously, with statements prepared once per text. */
export interface SyncQueries {
  all<R>(source: string, parameters: readonly unknown[]): R[];
  run(source: string, parameters: readonly unknown[]): void;
}

export type ExclusiveRunner = <T>(work: (queries: SyncQueries) => T) => Promise<T>;

/** A select that can take row locks. */
export interface LockableQuery {
  forUpdate(of?: never): LockableQuery;
  skipLocked(): LockableQuery;
}

type JsonArrayFrom<O> = typeof sqliteJsonArrayFrom<O>;

/** Told of the tables written by statements that have committed (`Dialect.onCommittedWrites`). */
export type WriteListener = (writes: readonly TableWrite[]) => void;

const NO_WRITES: readonly TableWrite[] = [];

export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

/** The dialect of each Kysely instance, by the adapter its transactions share with it. */
const dialects = new WeakMap<DialectAdapter, Dialect>();

/**
 * The dialect of the database `db` (a Kysely instance or one of its transactions) runs on.
 * `getExecutor` is marked internal in Kysely; it is how its own helpers and Migrator reach the
 * adapter, and nothing public leads from a transaction back to its dialect.
 */
export function dialectOf(db: Executor): Dialect {
  const dialect = dialects.get(db.getExecutor().adapter);
  if (!dialect) throw new Error('this Kysely instance was not opened by openStorage');
  return dialect;
}

/**
 * What SQLite and PostgreSQL share, and the Kysely dialect of the database: the driver it makes
 * turns the engine's errors callers act on into typed storage errors (`classifyError`), for every
 * query, in this one place.
 */
export abstract class Dialect implements KyselyDialect {
  /** For logs only: callers never branch on it. */
  abstract readonly name: Engine;
  /** How the event record is read in a stable, gapless order (src/storage/event-feed.ts). */
  abstract readonly eventFeed: EventFeed;
  /**
   * Whether a subquery may read the columns of the rows before it in FROM (LATERAL): a join the
   * planner must run per row of an ordered walk, in its order. Not in SQLite.
   */
  readonly joinsLaterally: boolean = false;
  readonly #kysely: KyselyDialect;
  readonly #compiled = new Map<string, CompiledQuery>();
  readonly #writeListeners = new Set<WriteListener>();

  protected constructor(kysely: KyselyDialect) {
    this.#kysely = kysely;
  }

  createDriver(): Driver {
    return new ClassifyingDriver(this.#kysely.createDriver(), this);
  }

  /**
   * Calls `listener` with the tables each statement wrote (src/storage/table-writes.ts), once the
   * write has committed (or, where a commit's outcome is unknown, may have): whichever code made it,
   * through Kysely, a statement run directly or the group commit. Writes rolled back to a savepoint
   * are told too (the listener may do too much, never too little). Answers how to stop.
   */
  onCommittedWrites(listener: WriteListener): () => void {
    this.#writeListeners.add(listener);
    return () => this.#writeListeners.delete(listener);
  }

  /** What `query` writes, where anyone listens (else nothing is read). */
  writesOf(query: CompiledQuery): readonly TableWrite[] {
    return this.#writeListeners.size ? tableWrites(query.query) : NO_WRITES;
  }

  /** Tells the listeners of `onCommittedWrites` of writes that have committed. */
  committed(writes: readonly TableWrite[]): void {
    if (writes.length) for (const listener of this.#writeListeners) listener(writes);
  }

  createQueryCompiler(): QueryCompiler {
    return this.#kysely.createQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    const adapter = this.#kysely.createAdapter();
    dialects.set(adapter, this);
    return adapter;
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return this.#kysely.createIntrospector(db);
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

  /** `error` as a typed storage error (src/storage/errors.ts) when it is one, else as it is. */
  abstract classifyError(error: unknown): unknown;

  /**
   * JSON aggregation, so a card and its parts load in one query. Use one level of nesting only:
   * SQLite loses the JSON subtype through a subquery.
   */
  abstract jsonArrayFrom<O>(expr: Parameters<JsonArrayFrom<O>>[0]): ReturnType<JsonArrayFrom<O>>;

  /**
   * Reads a column `jsonArrayFrom` built. Only those columns: a blanket parser would turn a card
   * named "[1]" into an array. PostgreSQL hands them back parsed.
   */
  fromJson<T>(value: T | string): T {
    return value as T;
  }

  /**
   * Serializes the transactions that lock the same `key`, until each one ends, and answers the time
   * (epoch ms) by the clock every server instance shares, read once the lock is held. Here: one
   * connection runs one transaction at a time already, and the host's clock is the shared one.
   */
  async lockInTransaction(_trx: Executor, _key: string): Promise<{ lockedAt: number }> {
    return { lockedAt: Date.now() };
  }

  /** The schema Kysely keeps its migration bookkeeping in; undefined: the default. */
  async migrationSchema(_db: Executor): Promise<string | undefined> {
    return undefined;
  }

  /** The schema the database URL names (PostgreSQL's `?schema=`) when it does not exist; undefined otherwise. */
  async missingSchema(_db: Executor): Promise<string | undefined> {
    return undefined;
  }

  /** Creates the schema `missingSchema` named (what `taskboard migrate` does for a new deployment). */
  async createSchema(_db: Executor, _schema: string): Promise<void> {}

  /** Whether a failed migration run failed before migrating anything, on a race worth one more try. */
  isMigrationRace(_error: unknown): boolean {
    return false;
  }

  /** How the rate limiter's decisions run (src/ratelimit/sql.ts): one transaction each, locked per bucket. */
  rateLimitDecisions(db: Executor): RateLimitDecisions {
    return transactionPerDecision(db, this);
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
   * Hears the commits of events by every instance on this database, for the event bell
   * (src/events/bell.ts); undefined where the engine cannot tell (SQLite: the bell rings in process).
   */
  listenForCommits(_options: CommitListenerOptions): CommitListener | undefined {
    return undefined;
  }

  /** Connections of the pool, for the metrics; undefined where there is no pool (SQLite: one connection). */
  poolUse(): PoolUse | undefined {
    return undefined;
  }

  /**
   * A query built and compiled once per dialect under `name`, then reused with its values swapped
   * in: for hot queries whose building costs more than running them (measured with --cpu-prof).
   */
  compiledOnce<R>(name: string, compile: () => CompiledQuery<R>): CompiledQuery<R> {
    let compiled = this.#compiled.get(name) as CompiledQuery<R> | undefined;
    if (!compiled) {
      compiled = compile();
      this.prepareOnce(compiled.sql);
      this.#compiled.set(name, compiled);
    }
    return compiled;
  }

  /**
   * Runs a statement compiled once straight on the engine's driver, where `db` is outside any
   * transaction, without Kysely's connection machinery: the rows at once where the engine answers in
   * this process (SQLite), else their promise; undefined where it must go through Kysely's connection.
   */
  runDirectly<R>(_db: Executor, _query: CompiledQuery<R>, _parameters: readonly unknown[]): R[] | Promise<R[]> | undefined {
    return undefined;
  }

  /**
   * `query`, to run inside a transaction as a write whose answer nobody reads (the events' INSERT):
   * where statements are round trips (PostgreSQL), it is held until the transaction commits and
   * goes out with the COMMIT (src/storage/postgres-pool.ts), so its errors surface at the commit and
   * its result is empty. Here: it runs when executed.
   */
  sentWithCommit<R>(query: CompiledQuery<R>): CompiledQuery<R> {
    return query;
  }

  /**
   * Runs `query` in the transaction `trx` right behind the transaction's next statement, given
   * before that statement and without waiting for its answer: where statements are round trips
   * (PostgreSQL), both go out in one write (src/storage/postgres-pool.ts) and take one round trip.
   * Answers a function that answers its rows (its errors classified), to be asked once the
   * statement before it has answered. Here: it runs when its rows are asked for.
   */
  async afterNextStatement<R>(trx: Transaction, query: CompiledQuery<R>): Promise<() => Promise<R[]>> {
    return async () => (await trx.executeQuery(query)).rows;
  }

  /** Asks the engine to plan this SQL text once per connection. SQLite: done already (statements are cached by text). */
  protected prepareOnce(_sql: string): void {}

  /**
   * Where statements run synchronously in this process: runs `work` in a write transaction shared by
   * every work queued in the same turn of the event loop (a group commit: the commit is most of a
   * small write's cost), each work in a savepoint of its own, so one that throws undoes only its own
   * statements and rejects only its own promise. Undefined where every statement is a round trip
   * (then callers use Kysely transactions).
   */
  get groupCommit(): GroupCommit | undefined {
    return undefined;
  }
}

/**
 * Runs, inside a `SyncTransaction`, a statement compiled once under `name` (as `executeCompiledOnce`
 * does in a Kysely transaction): `build` writes each value as a sentinel string, a key of `values`.
 */
export function runCompiledNow<R>(
  trx: SyncTransaction,
  name: string,
  build: (db: Executor) => CompiledQuery<R>,
  values: Readonly<Record<string, unknown>>,
): R[] {
  const compiled = trx.dialect.compiledOnce(name, () => build(trx.builder));
  return trx.all(compiled, withValues(compiled, values));
}

/** The compiled query's parameters with each sentinel (a key of `values`) swapped for its value. */
function withValues(compiled: CompiledQuery, values: Readonly<Record<string, unknown>>): unknown[] {
  return compiled.parameters.map((p) => (typeof p === 'string' && Object.hasOwn(values, p) ? values[p] : p));
}

/**
 * Runs a query compiled once under `name` (`Dialect.compiledOnce`): `build` writes each value as a
 * sentinel string (a key of `values`), which is swapped for its value on every run.
 */
export async function executeCompiledOnce<R>(
  db: Executor,
  name: string,
  build: () => CompiledQuery<R>,
  values: Readonly<Record<string, unknown>>,
): Promise<R[]> {
  const dialect = dialectOf(db);
  const compiled = dialect.compiledOnce(name, build);
  const parameters = withValues(compiled, values);
  return (await dialect.runDirectly(db, compiled, parameters)) ?? (await db.executeQuery<R>({ ...compiled, parameters })).rows;
}

/** The query compiled once under `name` (`Dialect.compiledOnce`), with this run's values: for the dialect's ways of sending it. */
export function compiledOnceWith<R>(db: Executor, name: string, build: () => CompiledQuery<R>, values: Readonly<Record<string, unknown>>): CompiledQuery<R> {
  const compiled = dialectOf(db).compiledOnce(name, build);
  return { ...compiled, parameters: withValues(compiled, values) };
}

/** `executeCompiledOnce`, run behind the transaction's next statement (`Dialect.afterNextStatement`). */
export function compiledOnceAfterNextStatement<R>(
  trx: Transaction,
  name: string,
  build: () => CompiledQuery<R>,
  values: Readonly<Record<string, unknown>>,
): Promise<() => Promise<R[]>> {
  return dialectOf(trx).afterNextStatement(trx, compiledOnceWith(trx, name, build, values));
}

export class SqliteDialect extends Dialect {
  readonly name = 'sqlite';
  readonly eventFeed = new SqliteEventFeed();
  readonly #runExclusive: ExclusiveRunner;
  readonly #groupCommit: GroupCommit;
  readonly #sqlite: SqliteDatabase.Database;
  readonly #prepare: StatementCache['prepare'];

  /** `sqlite` itself is used only for its transactions: every statement comes from `statements`. */
  constructor(sqlite: SqliteDatabase.Database, statements: StatementCache, db: () => Kysely<Database>) {
    // Every parameter written `+?`: statements are prepared once (src/storage/sqlite-parameters.ts).
    super(new PlanStableSqliteDialect({ database: statements.database }));
    this.#sqlite = sqlite;
    this.#prepare = statements.prepare;
    const classify = (error: unknown) => this.classifyError(error);
    this.#runExclusive = exclusiveRunner(sqlite, statements.prepare, db, classify);
    this.#groupCommit = groupCommitter(sqlite, statements.prepare, this.#runExclusive, this, (all) => ({ dialect: this, builder: db(), all }));
  }

  /** better-sqlite3 runs a statement synchronously in this process: writes share commits (`groupCommitter`). */
  override get groupCommit(): GroupCommit {
    return this.#groupCommit;
  }

  /**
   * better-sqlite3 answers synchronously: a statement outside any transaction runs now, without
   * Kysely's connection lock and its chain of promises (most of a small read's cost under load,
   * measured). While a transaction holds the connection across awaits, a statement waits for it as
   * before: a read must not see that transaction's uncommitted rows, nor a write join it.
   */
  override runDirectly<R>(db: Executor, query: CompiledQuery<R>, parameters: readonly unknown[]): R[] | undefined {
    if (db.isTransaction || this.#sqlite.inTransaction) return undefined;
    let rows: R[];
    try {
      rows = runStatement(this.#prepare, query, parameters);
    } catch (error) {
      throw this.classifyError(error);
    }
    this.committed(this.writesOf(query));
    return rows;
  }

  override classifyError(error: unknown): unknown {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      return new UniqueViolation('unique key violated', { cause: error });
    }
    if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return new ForeignKeyViolation('foreign key violated', { cause: error });
    return error;
  }

  override jsonArrayFrom<O>(expr: Parameters<JsonArrayFrom<O>>[0]): ReturnType<JsonArrayFrom<O>> {
    return sqliteJsonArrayFrom(expr);
  }

  /** SQLite hands JSON aggregates back as text. */
  override fromJson<T>(value: T | string): T {
    return typeof value === 'string' ? (JSON.parse(value) as T) : value;
  }

  /**
   * The decisions of one turn of the event loop share one synchronous transaction (group commit):
   * the commit is most of a decision's cost, and nothing can come between their statements.
   */
  override rateLimitDecisions(db: Executor): RateLimitDecisions {
    return groupCommitDecisions(db, this, this.#runExclusive);
  }
}

/** Our class of PostgreSQL advisory locks (the two-key form), apart from anyone else's. */
const ADVISORY_LOCK_CLASS = 0x7462; // "tb"

export class PostgresDialect extends Dialect {
  readonly name = 'postgres';
  readonly eventFeed = new PostgresEventFeed();
  override readonly joinsLaterally = true;

  readonly #pool: pg.Pool;

  readonly #statementNames: Map<string, string>;

  readonly #sendings: WeakMap<readonly unknown[], Sending>;

  /** The schema the database URL names (`?schema=`, the connections' search_path), if it names one. */
  readonly #schema: string | undefined;

  constructor(pool: pg.Pool, schema?: string) {
    super(new KyselyPostgresDialect({ pool }));
    this.#pool = pool;
    this.#schema = schema;
    this.#statementNames = statementNamesOf(pool);
    this.#sendings = sendingsOf(pool);
  }

  /**
   * `query` marked for the pool's clients (src/storage/postgres-pool.ts) by a parameter array of its
   * own, which Kysely hands the client as it is: this run of it, no other.
   */
  #marked<R>(query: CompiledQuery<R>, sending: Sending): CompiledQuery<R> {
    const marked = { ...query, parameters: [...query.parameters] };
    this.#sendings.set(marked.parameters, sending);
    return marked;
  }

  override sentWithCommit<R>(query: CompiledQuery<R>): CompiledQuery<R> {
    return this.#marked(query, 'with commit');
  }

  /** The client answers Kysely at once, and the statement's own answer later, here. */
  override async afterNextStatement<R>(trx: Transaction, query: CompiledQuery<R>): Promise<() => Promise<R[]>> {
    let answerTo!: AheadAnswer;
    const answer = new Promise<pg.QueryResult>((resolve, reject) => (answerTo = { resolve, reject }));
    const ahead = this.#marked(query, answerTo);
    const rows = answer.then(
      (result) => result.rows as R[],
      (error: unknown) => {
        throw this.classifyError(error);
      },
    );
    // asked for only if the transaction goes on after the statement before it
    rows.catch(() => {});
    await trx.executeQuery(ahead);
    return () => rows;
  }

  /**
   * PostgreSQL plans an unnamed statement on every run (for the card query: 0.5 ms planning, 0.3 ms
   * executing). A named one is parsed and planned once per connection, then only bound and run: the
   * pool's clients send this text under its name (src/storage/postgres-pool.ts).
   */
  protected override prepareOnce(sql: string): void {
    if (!this.#statementNames.has(sql)) this.#statementNames.set(sql, `tb_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`);
  }

  override skipLocked<Q extends LockableQuery>(query: Q, of?: string): Q {
    return query.forUpdate(of as never).skipLocked() as Q;
  }

  /**
   * Outside a transaction a statement compiled once goes to the pool itself (a client taken, the
   * named statement sent, the client given back), without Kysely's connection provider, driver and
   * our classifying wrapper around them (their frames, about 4 % of a Get Label Colors profile, are
   * gone; most of a small read's cost here is the socket writes of its round trips).
   */
  override runDirectly<R>(db: Executor, query: CompiledQuery<R>, parameters: readonly unknown[]): Promise<R[]> | undefined {
    if (db.isTransaction) return undefined;
    return this.#pool.query(query.sql, parameters as unknown[]).then(
      (result) => {
        this.committed(this.writesOf(query));
        return (result.rows ?? []) as R[];
      },
      (error: unknown) => {
        throw this.classifyError(error);
      },
    );
  }

  /** A connection of its own, configured as the pool's are (src/storage/commit-listener.ts). */
  override listenForCommits(options: CommitListenerOptions): CommitListener {
    const { Client: _client, max: _max, ...config } = this.#pool.options as pg.PoolConfig;
    return listenForCommits(config, options);
  }

  override poolUse(): PoolUse {
    return { total: this.#pool.totalCount, idle: this.#pool.idleCount, waiting: this.#pool.waitingCount };
  }

  override classifyError(error: unknown): unknown {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === '23505') return new UniqueViolation('unique key violated', { cause: error });
    if (code === '23503') return new ForeignKeyViolation('foreign key violated', { cause: error });
    // 40P01: PostgreSQL aborted the transaction to break a deadlock.
    if (code === '40P01') return new Deadlock('deadlock detected', { cause: error });
    return error;
  }

  override jsonArrayFrom<O>(expr: Parameters<JsonArrayFrom<O>>[0]): ReturnType<JsonArrayFrom<O>> {
    return pgJsonArrayFrom(expr) as ReturnType<JsonArrayFrom<O>>;
  }

  /** An array parameter; `bpchar[]` (ids are char(24)) so that the primary key's index serves it. */
  override inIdList(column: string, list: unknown): RawBuilder<SqlBool> {
    return sql<SqlBool>`${sql.ref(column)} = any(${list}::bpchar[])`;
  }

  override idList(ids: readonly string[]): unknown {
    return ids;
  }

  /**
   * A transaction-scoped advisory lock, so instances sharing the database queue per key (keys whose
   * hashes collide merely queue together), and the database server's clock, so instances with
   * skewed clocks still agree.
   */
  override async lockInTransaction(trx: Executor, key: string): Promise<{ lockedAt: number }> {
    // The clock is read in the outer query, so only after the inner one got the lock.
    const { rows } = await sql<{ locked_at: number }>`
      select (extract(epoch from clock_timestamp()) * 1000)::bigint as locked_at
      from (select pg_advisory_xact_lock(${sql.lit(ADVISORY_LOCK_CLASS)}, hashtext(${key}))) as held`.execute(trx);
    return { lockedAt: Number(rows[0]?.locked_at) };
  }

  /**
   * Kysely looks for its bookkeeping tables in every schema unless told which one; with several
   * schemas in one database (tests, shared hosts) it would find another schema's tables.
   */
  override async migrationSchema(db: Executor): Promise<string | undefined> {
    return (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema;
  }

  /**
   * A search_path naming a schema that does not exist is no error to PostgreSQL until something is
   * created there ("no schema has been selected to create in"): looked up first, so it is named.
   */
  override async missingSchema(db: Executor): Promise<string | undefined> {
    if (this.#schema === undefined) return undefined;
    const { rows } = await sql`select 1 from pg_namespace where nspname = ${this.#schema}`.execute(db);
    return rows.length === 0 ? this.#schema : undefined;
  }

  override async createSchema(db: Executor, schema: string): Promise<void> {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  }

  /**
   * Kysely's table introspection reads the catalog of every schema and fails when another schema
   * (or a table of it) is dropped meanwhile: 3F000, 42P01, or 42703 when a dropped table's columns
   * vanish between the catalog reads (seen with several suites creating and dropping schemas at
   * once); it runs before any migration.
   */
  override isMigrationRace(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return code === '3F000' || code === '42P01' || code === '42703';
  }
}

/**
 * Kysely's driver, with every error of the database classified on its way out, and the writes of
 * each connection told to the dialect's write listeners once they commit (at once outside a
 * transaction).
 */
class ClassifyingDriver implements Driver {
  readonly #driver: Driver;
  readonly #dialect: Dialect;
  readonly #inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  /** The writes of each connection's open transaction, told when it commits. */
  readonly #uncommitted = new WeakMap<DatabaseConnection, TableWrite[]>();

  constructor(driver: Driver, dialect: Dialect) {
    this.#driver = driver;
    this.#dialect = dialect;
  }

  async #classified<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.#dialect.classifyError(error);
    }
  }

  /** The driver's own connection: its methods rely on what only that object holds. */
  #unwrap(connection: DatabaseConnection): DatabaseConnection {
    return this.#inner.get(connection) ?? connection;
  }

  init(options?: AbortableOperationOptions): Promise<void> {
    return this.#driver.init(options);
  }

  async acquireConnection(options?: AbortableOperationOptions): Promise<DatabaseConnection> {
    const connection = await this.#driver.acquireConnection(options);
    const dialect = this.#dialect;
    const wrapped: DatabaseConnection = {
      executeQuery: async <R>(query: CompiledQuery, options?: AbortableOperationOptions): Promise<QueryResult<R>> => {
        const result = await this.#classified(() => connection.executeQuery<R>(query, options));
        const writes = this.#dialect.writesOf(query);
        if (writes.length) {
          const uncommitted = this.#uncommitted.get(wrapped);
          if (uncommitted) uncommitted.push(...writes);
          else this.#dialect.committed(writes);
        }
        return result;
      },
      async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
        try {
          yield* connection.streamQuery<R>(query, chunkSize);
        } catch (error) {
          throw dialect.classifyError(error);
        }
      },
    };
    this.#inner.set(wrapped, connection);
    return wrapped;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.#classified(() => this.#driver.beginTransaction(this.#unwrap(connection), settings));
    this.#uncommitted.set(connection, []);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.#classified(() => this.#driver.commitTransaction(this.#unwrap(connection)));
    } finally {
      // told even when the commit failed: its outcome may be unknown (a connection lost meanwhile)
      const writes = this.#uncommitted.get(connection);
      this.#uncommitted.delete(connection);
      if (writes) this.#dialect.committed(writes);
    }
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.#uncommitted.delete(connection);
    return this.#driver.rollbackTransaction(this.#unwrap(connection));
  }

  releaseConnection(connection: DatabaseConnection, options?: AbortableOperationOptions): Promise<void> {
    return this.#driver.releaseConnection(this.#unwrap(connection), options);
  }

  destroy(options?: AbortableOperationOptions): Promise<void> {
    return this.#driver.destroy(options);
  }
}

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
interface StatementCache {
  /** The database as Kysely's driver sees it: its `prepare` answers the cached statement. */
  database: SqliteDatabase.Database;
  /** The statement of this SQL text, prepared on its first use. */
  prepare(source: string): SqliteDatabase.Statement;
}

function withStatementCache(sqlite: SqliteDatabase.Database, size = 1000): StatementCache {
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
  const database = new Proxy(sqlite, {
    get(target, property) {
      if (property === 'prepare') return prepare;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { database, prepare };
}

/**
 * SQLite: runs `work` as one transaction of its own, synchronously, so no other query can come
 * between its statements and it needs no round of the event loop per statement. A transaction
 * that Kysely holds open across awaits would swallow these statements, so then `work` waits for
 * the connection through Kysely's own connection lock, as any query would.
 * For small hot writes (rate-limit decisions): one async hop instead of one per statement.
 */
function exclusiveRunner(
  sqlite: SqliteDatabase.Database,
  prepare: StatementCache['prepare'],
  db: () => Kysely<Database>,
  classify: (error: unknown) => unknown,
): ExclusiveRunner {
  const queries: SyncQueries = {
    all: <R>(source: string, parameters: readonly unknown[]) => prepare(source).all(...parameters) as R[],
    run: (source, parameters) => {
      prepare(source).run(...parameters);
    },
  };
  // IMMEDIATE: take the write lock at the start, so another process on the file makes it wait
  // (busy_timeout) instead of failing when the read turns into a write.
  const transaction = sqlite.transaction((work: (queries: SyncQueries) => unknown) => work(queries));
  const inTransaction = <T>(work: (queries: SyncQueries) => T): T => {
    try {
      return transaction.immediate(work) as T;
    } catch (error) {
      throw classify(error);
    }
  };
  return async (work) => {
    if (!sqlite.inTransaction) return inTransaction(work);
    return db()
      .connection()
      .execute(async () => inTransaction(work));
  };
}

/** Runs a compiled statement on SQLite, synchronously: its rows (none for a write without RETURNING). */
function runStatement<R>(prepare: StatementCache['prepare'], query: CompiledQuery<R>, parameters: readonly unknown[]): R[] {
  const statement = prepare(query.sql);
  if (statement.reader) return statement.all(...parameters) as R[];
  statement.run(...parameters);
  return [];
}

/**
 * The group commit on SQLite: the works queued in one turn of the event loop run, in arrival order,
 * in ONE synchronous transaction (`runExclusive`), each in a savepoint (better-sqlite3 makes a nested
 * transaction function a savepoint), then commit once; each promise settles after the commit.
 */
function groupCommitter(
  sqlite: SqliteDatabase.Database,
  prepare: StatementCache['prepare'],
  runExclusive: ExclusiveRunner,
  dialect: Dialect,
  transactionOf: (all: SyncTransaction['all']) => SyncTransaction,
): GroupCommit {
  type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
  type Waiting = {
    work: (trx: SyncTransaction) => unknown;
    finish: ((trx: SyncTransaction) => void) | undefined;
    settle: (outcome: Outcome) => void;
    fail: (error: unknown) => void;
  };
  // what the batch running now wrote (batches run one at a time, synchronously), told to the
  // dialect's write listeners once it has committed
  let written: TableWrite[] = [];
  const all = <R>(query: CompiledQuery<R>, parameters: readonly unknown[]) => {
    const rows = runStatement<R>(prepare, query, parameters);
    const writes = dialect.writesOf(query);
    if (writes.length) written.push(...writes);
    return rows;
  };
  // called inside the group's transaction, a transaction function runs as a savepoint
  const inSavepoint = sqlite.transaction((work: (trx: SyncTransaction) => unknown) => work(transactionOf(all)));
  let pending: Waiting[] = [];
  const commitPending = () => {
    const batch = pending;
    pending = [];
    runExclusive(() => {
      written = [];
      const outcomes = batch.map(({ work }): Outcome => {
        try {
          // a transaction object per work (made in inSavepoint): what is kept per transaction (its events, its If-Match check) stays its own
          return { ok: true, value: inSavepoint(work) };
        } catch (error) {
          return { ok: false, error: dialect.classifyError(error) };
        }
      });
      const finishing = transactionOf(all);
      batch.forEach(({ finish }, i) => {
        if (finish && outcomes[i]?.ok) finish(finishing);
      });
      return { outcomes, writes: written };
    }).then(
      ({ outcomes, writes }) => {
        dialect.committed(writes);
        batch.forEach((waiting, i) => waiting.settle(outcomes[i] as Outcome));
      },
      (error: unknown) => batch.forEach((waiting) => waiting.fail(error)),
    );
  };
  return <T>(work: (trx: SyncTransaction) => T, finish?: (trx: SyncTransaction) => void) =>
    new Promise<T>((resolve, reject) => {
      const settle = (outcome: Outcome) => (outcome.ok ? resolve(outcome.value as T) : reject(outcome.error));
      pending.push({ work, finish, settle, fail: reject });
      if (pending.length === 1) setImmediate(commitPending);
    });
}

// PostgreSQL returns int8 (bigint, count(*)) as strings; every such value here fits in a double.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export interface OpenOptions extends Partial<DatabaseTimeouts> {
  poolSize?: number;
  /** PostgreSQL: told about a connection that died while idle (the pool drops it and goes on). */
  onIdleError?: (error: Error) => void;
  /** SQLite in a file: checkpoint in a thread of its own once the log grows (the server; src/storage/sqlite-checkpoints.ts). */
  backgroundCheckpoints?: BackgroundCheckpointOptions;
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
    // Checkpoint here every ~40 MB of WAL instead of ~4 MB: a page changed again and again between two
    // checkpoints (a busy card's row, the tail of the event record's indexes) is copied back once.
    // Toggle: 223/282 -> 209/242 us CPU per request (two A/B pairs, BENCH_CARDS=1001, target 2).
    // With `backgroundCheckpoints` (the server) a thread copies the log first; this bounds it if that falls behind.
    sqlite.pragma('wal_autocheckpoint = 10000');
    // A savepoint's undo copies (the statement journal) spill to a temporary file past 64 KiB unless
    // temporary storage is in memory: a group commit of eight toggles with their events did, opening,
    // writing and closing a file in /var/tmp at every commit (strace; 10.2 -> 7.6 write calls per toggle).
    sqlite.pragma('temp_store = MEMORY');
    const dialect = new SqliteDialect(sqlite, withStatementCache(sqlite), () => db);
    const db = new Kysely<Database>({ dialect });
    const checkpoints =
      options.backgroundCheckpoints && parsed.location !== ':memory:' ? backgroundCheckpoints(sqlite.name, options.backgroundCheckpoints) : undefined;
    const close = async () => {
      await checkpoints?.stop();
      await db.destroy();
    };
    return { db, dialect, description: `sqlite:${parsed.location}`, ...(checkpoints ? { checkpoints } : {}), close };
  }
  const pool = createPostgresPool({
    ...DEFAULT_DATABASE_TIMEOUTS,
    ...options,
    connectionString: parsed.location,
    schema: parsed.schema,
    poolSize: options.poolSize ?? DEFAULT_POOL_SIZE,
  });
  const dialect = new PostgresDialect(pool, parsed.schema);
  const db = new Kysely<Database>({ dialect });
  return { db, dialect, description: maskUrl(url), close: () => db.destroy() };
}
