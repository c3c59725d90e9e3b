/**
 * Kysely's driver for better-sqlite3, with write transactions that share their commit.
 *
 * On SQLite most of a small write transaction's cost is its COMMIT (measured in
 * docs/benchmarks.md). Transactions run one at a time on the one connection, as with Kysely's own
 * driver, but a transaction that ends while another waits for the connection does not commit on
 * its own: it ends as a savepoint of one open transaction (so a transaction that fails undoes only
 * its own statements), and the next one runs in the same transaction. Transactions asked for in one
 * turn of the event loop start together at its end, one after another; their transaction commits
 * once nobody waits for the connection, or once it holds `GROUP_LIMIT` transactions. Each of them
 * answers its commit only then (nobody is told of a write before it is durable, and a failed commit
 * fails them all). No transaction stays open into another turn unless it holds the connection
 * across one itself, so another connection to the file (another process) waits for one turn at most.
 * A statement outside a transaction commits the open group first, so it never reads a write that
 * has not committed nor joins one.
 *
 * Below Kysely's executor, invisible to the domain and the repositories: they see plain Kysely
 * transactions. Kysely's own single-connection lock is replaced by this driver's queue (the
 * adapter says it has many connections), because a transaction must give the connection to the
 * next one before its own commit is answered.
 */
import type SqliteDatabase from 'better-sqlite3';
import { type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, SqliteAdapter } from 'kysely';
import { sendingOf } from './sent-with-commit.ts';

/** The most transactions one commit is shared by: bounds how long the first of them waits for it. */
const GROUP_LIMIT = 64;

/** The savepoint each transaction of a group runs in (one at a time, so one name serves). */
const SAVEPOINT = 'tb_transaction';

/** SQLite's adapter, saying it has many connections so that Kysely leaves the queueing to this driver. */
export class QueuedSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/** The transactions that share one commit, and how each of them learns its outcome. */
interface Group {
  members: number;
  committed: Promise<void>;
  settle(error?: unknown): void;
}

/** The connection handed to one user of the database at a time (a transaction, or one statement). */
class Lease implements DatabaseConnection {
  inTransaction = false;
  /** Statements held until the transaction commits (./sent-with-commit.ts). */
  held: CompiledQuery[] = [];
  #released = false;
  readonly #driver: GroupCommitSqliteDriver;
  readonly #release: () => void;

  constructor(driver: GroupCommitSqliteDriver, release: () => void) {
    this.#driver = driver;
    this.#release = release;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return Promise.resolve(this.#driver.run<R>(this, query));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // biome-ignore lint/correctness/useYield: the driver does not stream; the interface asks for the method
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite driver does not stream results');
  }

  /** Gives the connection to the next user, once. */
  end(): void {
    if (this.#released) return;
    this.#released = true;
    this.#release();
  }
}

export class GroupCommitSqliteDriver implements Driver {
  readonly #sqlite: SqliteDatabase.Database;
  readonly #prepare: (source: string) => SqliteDatabase.Statement;
  /** Who waits for the connection, in arrival order. */
  readonly #waiting: (() => void)[] = [];
  /** Whether a lease of the connection is out. */
  #held = false;
  /** The lease out, while one is. */
  #current: Lease | undefined;
  /** Whether a batch is to start at the end of this turn of the event loop. */
  #batchScheduled = false;
  #group: Group | undefined;

  /** `prepare` answers the statement of a SQL text (prepared once, src/storage/dialect.ts). */
  constructor(sqlite: SqliteDatabase.Database, prepare: (source: string) => SqliteDatabase.Statement) {
    this.#sqlite = sqlite;
    this.#prepare = prepare;
  }

  async init(): Promise<void> {}

  /** Whether nobody holds or waits for the connection and no transaction is open. */
  get idle(): boolean {
    return !this.#held && this.#waiting.length === 0 && !this.#group;
  }

  /**
   * Runs `work` synchronously as one transaction of its own, once the connection is free and what
   * it held has committed: at once when nobody holds it.
   */
  async exclusive<T>(work: () => T): Promise<T> {
    if (this.idle) return this.#sqlite.transaction(work).immediate();
    const lease = (await this.acquireConnection()) as Lease;
    try {
      this.#commitGroup();
      return this.#sqlite.transaction(work).immediate();
    } finally {
      lease.end();
    }
  }

  /**
   * The connection, in arrival order. Users that arrive while it is free start together at the end
   * of this turn of the event loop, one after another, so the transactions of one turn share a
   * commit; none stays open into another turn unless it holds the connection across one itself.
   */
  acquireConnection(): Promise<DatabaseConnection> {
    return new Promise((resolve) => {
      this.#waiting.push(() => resolve(new Lease(this, () => this.#next())));
      if (!this.#held && !this.#batchScheduled) {
        this.#batchScheduled = true;
        setImmediate(() => {
          this.#batchScheduled = false;
          this.#grant();
        });
      }
    });
  }

  #grant(): void {
    const next = this.#waiting.shift();
    if (!next) return;
    this.#held = true;
    next();
  }

  #next(): void {
    this.#held = false;
    this.#current = undefined;
    // nobody waits: the batch is over and its group commits now
    if (this.#waiting.length === 0) this.#commitGroup();
    else this.#grant();
  }

  /**
   * The lease of the transaction that holds the connection, if one does: a statement given now
   * belongs to it (`runInTransaction`).
   */
  get transaction(): DatabaseConnection | undefined {
    return this.#current?.inTransaction ? this.#current : undefined;
  }

  /**
   * Runs a statement of the transaction that holds the connection, synchronously, without Kysely's
   * machinery around it (src/storage/dialect.ts, `runDirectly`): only that transaction's code can
   * be running while it holds the connection. Held as `run` holds it when marked so.
   */
  runInTransaction<R>(query: CompiledQuery): R[] {
    return this.run<R>(this.#current as Lease, query).rows;
  }

  /** Runs one statement of `lease` (src/storage/engine/classifying-driver.ts classifies its errors). */
  run<R>(lease: Lease, query: CompiledQuery): QueryResult<R> {
    const sending = sendingOf(query);
    // alone, a statement must see only what has committed, and its own write must commit on its own
    if (!lease.inTransaction) this.#commitGroup();
    // (a statement sent with the next one runs at once: here statements are no round trips)
    else if (sending.when === 'with commit') {
      lease.held.push(sending.query);
      return { rows: [] };
    }
    return this.#execute<R>(sending.query);
  }

  #execute<R>(query: CompiledQuery): QueryResult<R> {
    const statement = this.#prepare(query.sql);
    if (statement.reader) return { rows: statement.all(...query.parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(...query.parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }

  #exec(sql: string): void {
    this.#prepare(sql).run();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.#group) {
      // IMMEDIATE: the write lock at once, so another process on the file makes this wait
      // (busy_timeout) instead of failing when a read turns into a write
      this.#exec('begin immediate');
      let settle!: Group['settle'];
      const committed = new Promise<void>((resolve, reject) => (settle = (error) => (error === undefined ? resolve() : reject(error))));
      // a group nobody awaits (all its transactions rolled back) must not reject unheard
      committed.catch(() => {});
      this.#group = { members: 0, committed, settle };
    }
    this.#exec(`savepoint ${SAVEPOINT}`);
    (connection as Lease).inTransaction = true;
    this.#current = connection as Lease;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    const group = this.#group as Group;
    this.#exec(`release ${SAVEPOINT}`);
    lease.inTransaction = false;
    // Outside the savepoint, so it copies none of the pages they change: writes that need no undo
    // of their own (the event record). Should one fail, the whole group fails with it.
    const held = lease.held;
    lease.held = [];
    try {
      for (const query of held) this.#execute(query);
    } catch (error) {
      this.#abandonGroup(error);
      lease.end();
      throw error;
    }
    group.members++;
    if (group.members >= GROUP_LIMIT) this.#commitGroup();
    lease.end();
    await group.committed;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    lease.inTransaction = false;
    lease.held = [];
    // a statement that failed may have ended the whole transaction already (SQLite does on some errors)
    if (this.#sqlite.inTransaction) {
      this.#exec(`rollback to ${SAVEPOINT}`);
      this.#exec(`release ${SAVEPOINT}`);
    } else {
      this.#abandonGroup(new Error('the shared transaction ended with a failed statement'));
    }
  }

  /** Ends the open group without committing it: its transactions fail with `error`. */
  #abandonGroup(error: unknown): void {
    const group = this.#group;
    if (!group) return;
    this.#group = undefined;
    if (this.#sqlite.inTransaction) this.#exec('rollback');
    group.settle(error);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as Lease).end();
  }

  /** Commits the open group, if any, and tells its transactions. */
  #commitGroup(): void {
    const group = this.#group;
    if (!group) return;
    this.#group = undefined;
    try {
      this.#exec('commit');
      group.settle();
    } catch (error) {
      if (this.#sqlite.inTransaction) this.#exec('rollback');
      group.settle(error);
    }
  }

  async destroy(): Promise<void> {
    this.#commitGroup();
    this.#sqlite.close();
  }
}
