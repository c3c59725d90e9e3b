/**
 * The Kysely dialect of each engine and how it runs statements, one object per database: a base
 * class with what both share, and a subclass per engine overriding only what differs. The other
 * differences live in small modules by concern under src/storage/engine/ (SQL fragments, error
 * classification, locks and clock, migrations, search), each held here. Services never see it;
 * repositories reach it through their executor (`dialectOf`).
 */
import { createHash } from 'node:crypto';
import type SqliteDatabase from 'better-sqlite3';
import {
  type Compilable,
  type CompiledQuery,
  createQueryId,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type Dialect as KyselyDialect,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type QueryId,
  type RawBuilder,
  type SchemaMetadata,
  type SqlBool,
  type TableMetadata,
} from 'kysely';
import { ParameterizedQuery, type ParametersObject, QueryParameterMaker } from 'kysely-params';
import type pg from 'pg';
import type { Executor } from './database.ts';
import type { Engine } from './database-url.ts';
import { ClassifyingDriver } from './engine/classifying-driver.ts';
import { type ErrorClassifier, postgresErrors, sqliteErrors } from './engine/errors.ts';
import { type JsonArrayFrom, PostgresFragments, SqlFragments } from './engine/fragments.ts';
import { groupCommitDecisions, type KeyedDecisions, type SyncQueries, transactionPerDecision } from './engine/keyed-decisions.ts';
import { Locks, PostgresLocks } from './engine/locks.ts';
import { MigrationSupport, PostgresMigrationSupport } from './engine/migrations.ts';
import { PipelinedPostgresDriver } from './engine/postgres-driver.ts';
import { PostgresSearchIndex, type SearchIndex, SqliteSearchIndex } from './engine/search.ts';
import { sentWithCommit, sentWithNext } from './engine/sent-with-commit.ts';
import { GroupCommitSqliteDriver } from './engine/sqlite-driver.ts';
import { type EventFeed, PostgresEventFeed, SqliteEventFeed } from './event-feed.ts';
import { PlanStableSqliteDialect } from './sqlite-parameters.ts';
import { type TableWrite, tableWrites } from './table-writes.ts';

/** Told of the tables written by statements that have committed (`Dialect.onCommittedWrites`). */
export type WriteListener = (writes: readonly TableWrite[]) => void;

const NO_WRITES: readonly TableWrite[] = [];

/**
 * Names a value of a query compiled once (`executeCompiledOnce`): typed as the value itself, so the
 * builder takes it wherever the value goes, and given its value on each run.
 */
export type Param<P> = QueryParameterMaker<P>['param'];

/** A query kept by `Dialect.parameterizedOnce`, with the one query id its runs are known by. */
interface KeptQuery {
  query: ParameterizedQuery<any, any>;
  queryId: QueryId;
}

/** The dialect of each Kysely instance and transaction asked before. */
const known = new WeakMap<Executor, Dialect>();

/**
 * The dialect of the database `db` (a Kysely instance or one of its transactions) runs on. Kysely's
 * one public way from a transaction back to its dialect is `introspection`, which the dialect makes
 * (`Dialect.createIntrospector`): ours names it. Asked once per instance or transaction.
 */
export function dialectOf(db: Executor): Dialect {
  let dialect = known.get(db);
  if (!dialect) {
    const introspector = db.introspection;
    if (!(introspector instanceof DialectIntrospector)) throw new Error('this Kysely instance was not opened by openStorage');
    dialect = introspector.dialect;
    known.set(db, dialect);
  }
  return dialect;
}

/** The engine's introspector, knowing the dialect that made it (`dialectOf`). */
class DialectIntrospector implements DatabaseIntrospector {
  readonly dialect: Dialect;
  readonly #engine: DatabaseIntrospector;

  constructor(dialect: Dialect, engine: DatabaseIntrospector) {
    this.dialect = dialect;
    this.#engine = engine;
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return this.#engine.getSchemas();
  }

  getTables(options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    return this.#engine.getTables(options);
  }
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
  /** How the search index's words are matched (src/storage/engine/search.ts). */
  abstract readonly search: SearchIndex;
  readonly #kysely: KyselyDialect;
  readonly #compiled = new Map<string, CompiledQuery>();
  readonly #parameterized = new Map<string, KeptQuery>();
  readonly #writeListeners = new Set<WriteListener>();
  /** The driver Kysely runs on, which notes the writes of each transaction (`wroteDirectly`). */
  #classifying: ClassifyingDriver | undefined;

  protected constructor(kysely: KyselyDialect) {
    this.#kysely = kysely;
  }

  createDriver(): Driver {
    this.#classifying = new ClassifyingDriver(this.#kysely.createDriver(), this);
    return this.#classifying;
  }

  /** Notes what `query`, run on the engine driver's `connection` without Kysely (`runDirectly`), wrote. */
  protected wroteDirectly(connection: DatabaseConnection, query: CompiledQuery): void {
    this.#classifying?.wrote(connection, query);
  }

  /**
   * Calls `listener` with the tables each statement wrote (src/storage/table-writes.ts), once the
   * write has committed (or, where a commit's outcome is unknown, may have): whichever code made it,
   * through Kysely or a statement run directly. Writes rolled back to a savepoint
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
    return this.#kysely.createAdapter();
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new DialectIntrospector(this, this.#kysely.createIntrospector(db));
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
   * A query compiled once per dialect under `name`, then reused with its parameters given anew on
   * each run (the rate limiter's, src/ratelimit/sql-decisions.ts, whose values are positional).
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
   * A query built once per dialect under `name` with its values as named parameters (kysely-params)
   * and compiled on its first run, answered with this run's `values` in their places: for hot queries
   * whose building costs more than running them (measured with --cpu-prof).
   */
  parameterizedOnce<P extends ParametersObject<P>, R>(name: string, build: (param: Param<P>) => Compilable<R>, values: P): CompiledQuery<R> {
    const kept = this.#parameterized.get(name);
    // kysely-params answers no query id, which Kysely's executor hands its plugins
    if (kept) return { ...kept.query.instantiate(values), queryId: kept.queryId };
    const maker = new QueryParameterMaker<P>();
    const query = new ParameterizedQuery<P, R>(build((parameter) => maker.param(parameter)));
    const compiled = { ...query.instantiate(values), queryId: createQueryId() };
    this.prepareOnce(compiled.sql);
    this.#parameterized.set(name, { query, queryId: compiled.queryId });
    return compiled;
  }

  /**
   * Runs a statement compiled once straight on the engine's driver, without Kysely's connection
   * machinery: outside any transaction, and on SQLite a read of the transaction that holds the
   * connection. The rows at once where the engine answers in this process (SQLite), else their
   * promise; undefined where it must go through Kysely's connection.
   */
  runDirectly<R>(_db: Executor, _query: CompiledQuery<R>, _parameters: readonly unknown[]): R[] | Promise<R[]> | undefined {
    return undefined;
  }

  /**
   * `query`, to run inside a transaction as a write whose answer nobody reads (the events' INSERT):
   * held by the driver and run with the COMMIT, so its errors surface at the commit and its result
   * is empty (src/storage/engine/sent-with-commit.ts). PostgreSQL saves it a round trip; SQLite runs
   * it outside the transaction's savepoint.
   */
  sentWithCommit<R>(query: CompiledQuery<R>): CompiledQuery<R> {
    return sentWithCommit(query);
  }

  /**
   * `query`, to run inside a transaction as a write whose answer nobody reads, right before the
   * transaction's next statement (a card's change, followed by the read of its record): PostgreSQL
   * writes both at once, a round trip fewer. Its errors surface at that statement; its result is empty.
   */
  sentWithNext<R>(query: CompiledQuery<R>): CompiledQuery<R> {
    return sentWithNext(query);
  }

  /** Asks the engine to plan this SQL text once per connection. SQLite: done already (statements are cached by text). */
  protected prepareOnce(_sql: string): void {}

  /**
   * How small hot decisions on the rows of one key run on `db` (the rate limiter's): serialized per
   * key, each reading, deciding and writing (src/storage/engine/keyed-decisions.ts).
   */
  keyedDecisions(db: Executor): KeyedDecisions {
    return transactionPerDecision(db, this.locks);
  }
}

/**
 * Runs a query built and compiled once under `name` (`Dialect.parameterizedOnce`): `build` writes
 * each value as `param(key)`, a key of `values`, which is given its value on every run.
 */
export async function executeCompiledOnce<P extends ParametersObject<P>, R>(
  db: Executor,
  name: string,
  build: (param: Param<P>) => Compilable<R>,
  values: P,
): Promise<R[]> {
  return executeCompiled(db, dialectOf(db).parameterizedOnce(name, build, values));
}

/** Runs a compiled query: directly where the dialect can (`Dialect.runDirectly`), else through Kysely. */
export async function executeCompiled<R>(db: Executor, query: CompiledQuery<R>): Promise<R[]> {
  return (await dialectOf(db).runDirectly(db, query, query.parameters)) ?? (await db.executeQuery(query)).rows;
}

export class SqliteDialect extends Dialect {
  readonly name = 'sqlite';
  readonly eventFeed = new SqliteEventFeed();
  readonly fragments = new SqlFragments();
  readonly errors = sqliteErrors;
  readonly locks = new Locks();
  readonly migrations = new MigrationSupport();
  readonly search = new SqliteSearchIndex();
  readonly #driver: GroupCommitSqliteDriver;
  readonly #prepare: StatementCache['prepare'];
  readonly #queries: SyncQueries;

  /** `sqlite` itself is used only for its transactions: every statement comes from `statements`. */
  constructor(sqlite: SqliteDatabase.Database, statements: StatementCache) {
    const driver = new GroupCommitSqliteDriver(sqlite, statements.prepare);
    // Every parameter written `+?`: statements are prepared once (src/storage/sqlite-parameters.ts).
    super(new PlanStableSqliteDialect(driver));
    this.#driver = driver;
    this.#prepare = statements.prepare;
    this.#queries = {
      all: <R>(source: string, parameters: readonly unknown[]) => statements.prepare(source).all(...parameters) as R[],
      run: (source, parameters) => {
        statements.prepare(source).run(...parameters);
      },
    };
  }

  /**
   * Statements run synchronously here: the decisions of one turn of the event loop run in one
   * transaction of their own, so no other query comes between their statements and they need no
   * round of the event loop per statement (one async hop for small hot writes instead of one per
   * statement).
   */
  override keyedDecisions(): KeyedDecisions {
    return groupCommitDecisions(async (work) => {
      try {
        return await this.#driver.exclusive(() => work(this.#queries));
      } catch (error) {
        throw this.classifyError(error);
      }
    });
  }

  /**
   * better-sqlite3 answers synchronously: a statement outside any transaction runs now, without
   * Kysely's connection machinery and its chain of promises (most of a small read's cost under load,
   * measured), when nobody holds the connection. Otherwise it waits for it as any query would: a
   * read must not see a transaction's uncommitted rows, nor a write join it.
   */
  override runDirectly<R>(db: Executor, query: CompiledQuery<R>, parameters: readonly unknown[]): R[] | undefined {
    if (db.isTransaction) {
      // a statement of the transaction that holds the connection (only its code runs meanwhile)
      const transaction = this.#driver.transaction;
      if (!transaction) return undefined;
      let rows: R[];
      try {
        rows = this.#driver.runInTransaction<R>({ ...query, parameters });
      } catch (error) {
        throw this.classifyError(error);
      }
      this.wroteDirectly(transaction, query);
      return rows;
    }
    if (!this.#driver.idle) return undefined;
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
  readonly search = new PostgresSearchIndex();

  readonly #pool: pg.Pool;
  /** SQL text -> statement name, for the texts sent as named statements (`prepareOnce`). */
  readonly #statementNames: Map<string, string>;

  constructor(pool: pg.Pool, schema?: string) {
    const statementNames = new Map<string, string>();
    super({
      createDriver: () => new PipelinedPostgresDriver(pool, statementNames),
      createQueryCompiler: () => new PostgresQueryCompiler(),
      createAdapter: () => new PostgresAdapter(),
      createIntrospector: (db) => new PostgresIntrospector(db),
    });
    this.#pool = pool;
    this.#statementNames = statementNames;
    this.migrations = new PostgresMigrationSupport(schema);
  }

  /**
   * PostgreSQL plans an unnamed statement on every run (for the card query, longer than it runs). A
   * named one is parsed and planned once per connection, then only bound and run: the
   * driver sends this text under its name (src/storage/engine/postgres-driver.ts), as does
   * `runDirectly`.
   */
  protected override prepareOnce(sql: string): void {
    if (!this.#statementNames.has(sql)) this.#statementNames.set(sql, `tb_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`);
  }

  /**
   * Outside a transaction a statement compiled once goes to the pool itself (a client taken, the
   * named statement sent, the client given back), without Kysely's connection provider, driver and
   * our classifying wrapper around them (their frames are gone; most of a small read's cost here is
   * the socket writes of its round trips).
   */
  override runDirectly<R>(db: Executor, query: CompiledQuery<R>, parameters: readonly unknown[]): Promise<R[]> | undefined {
    if (db.isTransaction) return undefined;
    const name = this.#statementNames.get(query.sql);
    const values = [...parameters];
    return (name ? this.#pool.query({ name, text: query.sql, values }) : this.#pool.query(query.sql, values)).then(
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
 * (docs/benchmarks.md). Queries repeat by SQL text, so prepared
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

/** Runs a compiled statement on SQLite, synchronously: its rows (none for a write without RETURNING). */
function runStatement<R>(prepare: StatementCache['prepare'], query: CompiledQuery<R>, parameters: readonly unknown[]): R[] {
  const statement = prepare(query.sql);
  if (statement.reader) return statement.all(...parameters) as R[];
  statement.run(...parameters);
  return [];
}
