/**
 * The Kysely dialect of each engine and how it runs statements, one object per database: a base
 * class with what both share, and a subclass per engine overriding only what differs. The other
 * differences live in small modules by concern under src/storage/engine/ (SQL fragments, error
 * classification, locks and clock, migrations), each held here. Services never see it;
 * repositories reach it through their executor (`dialectOf`).
 */
import { createHash } from 'node:crypto';
import type SqliteDatabase from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseIntrospector,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type Dialect as KyselyDialect,
  PostgresDialect as KyselyPostgresDialect,
  type QueryCompiler,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import type pg from 'pg';
import type { Database, Executor, GroupCommit, SyncTransaction, Transaction } from './database.ts';
import type { Engine } from './database-url.ts';
import { ClassifyingDriver } from './engine/classifying-driver.ts';
import { type ErrorClassifier, postgresErrors, sqliteErrors } from './engine/errors.ts';
import { type JsonArrayFrom, PostgresFragments, SqlFragments } from './engine/fragments.ts';
import { Locks, PostgresLocks } from './engine/locks.ts';
import { MigrationSupport, PostgresMigrationSupport } from './engine/migrations.ts';
import { type EventFeed, PostgresEventFeed, SqliteEventFeed } from './event-feed.ts';
import { type AheadAnswer, type Sending, sendingsOf, statementNamesOf } from './postgres-pool.ts';
import { PlanStableSqliteDialect } from './sqlite-parameters.ts';
import { type TableWrite, tableWrites } from './table-writes.ts';

/** Runs SQL synchronously, with statements prepared once per text. */
export interface SyncQueries {
  all<R>(source: string, parameters: readonly unknown[]): R[];
  run(source: string, parameters: readonly unknown[]): void;
}

export type ExclusiveRunner = <T>(work: (queries: SyncQueries) => T) => Promise<T>;

/** Told of the tables written by statements that have committed (`Dialect.onCommittedWrites`). */
export type WriteListener = (writes: readonly TableWrite[]) => void;

const NO_WRITES: readonly TableWrite[] = [];

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
  /** The SQL that differs, for the queries repositories build (src/storage/engine/fragments.ts). */
  abstract readonly fragments: SqlFragments;
  /** Which of the engine's errors are typed storage errors (src/storage/engine/errors.ts). */
  abstract readonly errors: ErrorClassifier;
  /** The per-key transaction lock and the shared clock (src/storage/engine/locks.ts). */
  abstract readonly locks: Locks;
  /** What the migrator asks of the engine (src/storage/engine/migrations.ts). */
  abstract readonly migrations: MigrationSupport;
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

  /** `error` as a typed storage error (src/storage/errors.ts) when it is one, else as it is. */
  classifyError(error: unknown): unknown {
    return this.errors.classify(error);
  }

  // The compiled-once queries reach these SQL fragments through the dialect itself.
  inIdList(column: string, list: unknown): RawBuilder<SqlBool> {
    return this.fragments.inIdList(column, list);
  }

  idList(ids: readonly string[]): unknown {
    return this.fragments.idList(ids);
  }

  jsonArrayFrom<O>(expr: Parameters<JsonArrayFrom<O>>[0]): ReturnType<JsonArrayFrom<O>> {
    return this.fragments.jsonArrayFrom(expr);
  }

  fromJson<T>(value: T | string): T {
    return this.fragments.fromJson(value);
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

  /**
   * Where statements run synchronously in this process: runs work as one transaction of its own,
   * with nothing between its statements (`exclusiveRunner`). Undefined where every statement is a
   * round trip.
   */
  get exclusiveRunner(): ExclusiveRunner | undefined {
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
  readonly fragments = new SqlFragments();
  readonly errors = sqliteErrors;
  readonly locks = new Locks();
  readonly migrations = new MigrationSupport();
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

  /** The rate limiter's decisions run in it (src/ratelimit/sql-decisions.ts). */
  override get exclusiveRunner(): ExclusiveRunner {
    return this.#runExclusive;
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
}

export class PostgresDialect extends Dialect {
  readonly name = 'postgres';
  readonly eventFeed = new PostgresEventFeed();
  readonly fragments = new PostgresFragments();
  readonly errors = postgresErrors;
  readonly locks = new PostgresLocks();
  readonly migrations: PostgresMigrationSupport;

  readonly #pool: pg.Pool;

  readonly #statementNames: Map<string, string>;

  readonly #sendings: WeakMap<readonly unknown[], Sending>;

  constructor(pool: pg.Pool, schema?: string) {
    super(new KyselyPostgresDialect({ pool }));
    this.#pool = pool;
    this.migrations = new PostgresMigrationSupport(schema);
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

export function withStatementCache(sqlite: SqliteDatabase.Database, size = 1000): StatementCache {
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
