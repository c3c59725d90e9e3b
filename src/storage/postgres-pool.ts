/**
 * The PostgreSQL connection pool, built so that the database can go away and come back without
 * taking the process with it, and so that no wait on the database is unbounded.
 */
import pg from 'pg';
import { pgTypes } from './engine/pg-types.ts';

/** How long the service waits on PostgreSQL, in ms (see docs/operations.md, Database faults). */
export interface DatabaseTimeouts {
  /** Opening a connection (TCP, TLS, authentication), and waiting for a free one in the pool. */
  connectTimeoutMs: number;
  /** One statement, enforced by the server (`statement_timeout`) and, a little later, by the client. */
  statementTimeoutMs: number;
  /** A transaction left open with nothing running (`idle_in_transaction_session_timeout`). */
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectTimeoutMs: 5000,
  statementTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 30_000,
};

export const DEFAULT_POOL_SIZE = 10;

/**
 * The client's own bound on a statement: the server's `statement_timeout` plus this margin, so a
 * server that answers cancels the statement itself (a clean 57014), and one that does not answer at
 * all (a silent network, a frozen host) still cannot hold a request.
 */
const CLIENT_MARGIN_MS = 1000;

/**
 * The longest a start can wait on the database: connecting, then a few statements (the migration
 * check and its catalog-race retries), each ended by its own bound. Fastify's plugin timeout must
 * not fire first, or the error would name a plugin instead of the database.
 */
export function startupBoundMs(timeouts: Pick<DatabaseTimeouts, 'connectTimeoutMs' | 'statementTimeoutMs'>): number {
  return Math.max(10_000, timeouts.connectTimeoutMs + 3 * (timeouts.statementTimeoutMs + CLIENT_MARGIN_MS));
}

/** The message pg gives a query that `query_timeout` ended. */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

export interface PostgresPoolOptions extends DatabaseTimeouts {
  /** A connection string without our `schema` parameter. */
  connectionString: string;
  schema?: string | undefined;
  poolSize: number;
  /** Shown in `pg_stat_activity`, so an operator (or a test) can find the service's backends. */
  applicationName?: string;
  /** Told about connection errors that no request saw (an idle connection that died). */
  onIdleError?: (error: Error) => void;
}

/** A statement this module answers itself, without a round trip: its result as pg gives one. */
function answered(command: string): pg.QueryResult {
  return { command, rowCount: 0, rows: [], oid: 0, fields: [] };
}

/** What Kysely sends to open a transaction (`begin`, or `start transaction` with settings). */
const OPENS_TRANSACTION = /^(begin|start transaction)\b/i;

/**
 * A client of the pool:
 * - pg lets a query that `query_timeout` ended leave the connection waiting for that query's answer:
 *   returned to the pool, the connection would queue the next request behind an answer that may
 *   never come. Such a connection is closed instead, and the pool opens a fresh one.
 * - Fewer round trips per transaction, through pg's pipeline mode (several queries written before
 *   the first answer; each still ends with its own Sync, so each succeeds or fails on its own as it
 *   would alone): the BEGIN goes out with the transaction's first statement, and the statements the
 *   dialect holds until the commit (`Dialect.sentWithCommit`: writes whose answer nobody reads, such
 *   as the events' INSERT) go out with the COMMIT. A transaction that ran nothing sends nothing.
 *   A statement sent ahead (`Dialect.afterNextStatement`: given before the statement it must follow)
 *   goes out right behind the transaction's next statement, and its answer goes to its own promise.
 *   Kysely still awaits each statement before the next, so nothing else is ever pipelined.
 */
class BoundedClient extends pg.Client {
  readonly #statementNames: ReadonlyMap<string, string>;
  readonly #sendings: WeakMap<readonly unknown[], Sending>;
  /** The BEGIN of the open transaction while it has not been sent yet. */
  #begin: string | undefined;
  #inTransaction = false;
  /** Statements held until the COMMIT, as `query` was given them. */
  #held: unknown[][] = [];
  /** Statements sent ahead, waiting for the transaction's next statement to go out behind it. */
  #ahead: Outgoing[] = [];

  constructor(config: pg.ClientConfig & PoolSideTables = {}) {
    super({ ...config, pipeline: true } as pg.ClientConfig);
    this.#statementNames = config.statementNames ?? new Map();
    this.#sendings = config.sendings ?? new WeakMap();
  }

  // pg's overloads (callbacks, streams) are many; Kysely uses the promise form only.
  override query(...args: unknown[]): never {
    const text = typeof args[0] === 'string' && args.length <= 2 ? args[0] : undefined;
    return (text === undefined ? this.#send(args) : (this.#inTransactionQuery(text, args) ?? this.#send(args))) as never;
  }

  /**
   * A statement of Kysely's transaction (promise form, a text): answered here or sent with others;
   * undefined when it goes out alone as it is.
   */
  #inTransactionQuery(text: string, args: unknown[]): Promise<pg.QueryResult> | undefined {
    const sending = Array.isArray(args[1]) ? this.#sendings.get(args[1]) : undefined;
    if (typeof sending === 'object') {
      // outside a transaction there is no next statement to wait for: it goes now
      if (!this.#inTransaction) return this.#sendTogether([{ args, to: sending }]);
      this.#ahead.push({ args, to: sending });
      return Promise.resolve(answered('AHEAD'));
    }
    if (OPENS_TRANSACTION.test(text)) {
      // Only from an idle connection (otherwise PostgreSQL must answer it: a warning, or an error
      // in a failed transaction), so the BEGIN sent later cannot fail where this one would not.
      if (this.#inTransaction || this.getTransactionStatus() !== 'I') return undefined;
      this.#inTransaction = true;
      this.#begin = text;
      return Promise.resolve(answered('BEGIN'));
    }
    if (!this.#inTransaction) return undefined;
    const ends = /^(commit|rollback)$/i.exec(text)?.[1]?.toUpperCase();
    if (ends) {
      const [begin, held, ahead] = [this.#begin, this.#held, this.#ahead];
      this.#inTransaction = false;
      this.#begin = undefined;
      this.#held = [];
      this.#ahead = [];
      if (ends === 'ROLLBACK') for (const { to } of ahead) to?.reject(new Error('not sent: its transaction rolled back'));
      const writes = ends === 'COMMIT' ? [...ahead, ...held.map((query) => ({ args: query }))] : [];
      // nothing ran: there is no transaction on the server to end
      if (begin !== undefined && writes.length === 0) return Promise.resolve(answered(ends));
      return this.#sendTogether([...(begin === undefined ? [] : [{ args: [begin] }]), ...writes, { args }]);
    }
    if (sending !== undefined) {
      this.#held.push(args);
      return Promise.resolve(answered('HELD'));
    }
    if (this.#begin === undefined && this.#ahead.length === 0) return undefined;
    const begin = this.#begin;
    const ahead = this.#ahead;
    this.#begin = undefined;
    this.#ahead = [];
    return this.#sendTogether([...(begin === undefined ? [] : [{ args: [begin] }]), { args }, ...ahead]);
  }

  /**
   * Writes the queries in one go. Those sent ahead settle their own promises; the answer is the
   * last other one's result once those are all answered, and the first of their failures (in order)
   * rejects it. With a failed statement the transaction is aborted on the server, so a COMMIT after
   * it answers ROLLBACK and the caller sees the statement's own error.
   */
  async #sendTogether(queries: Outgoing[]): Promise<pg.QueryResult> {
    const stream = (this as unknown as { connection: { stream: { cork?(): void; uncork?(): void } } }).connection.stream;
    stream.cork?.();
    const answers: Promise<pg.QueryResult>[] = [];
    try {
      for (const { args, to } of queries) {
        const sent = this.#send(args) as Promise<pg.QueryResult>;
        if (to) sent.then(to.resolve, to.reject);
        else answers.push(sent);
      }
    } finally {
      stream.uncork?.();
    }
    const outcomes = await Promise.allSettled(answers);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    return (outcomes.at(-1) as PromiseFulfilledResult<pg.QueryResult> | undefined)?.value ?? answered('AHEAD');
  }

  #send(args: unknown[]): unknown {
    // A text the dialect named goes out as a named statement: prepared once on this connection.
    const name = typeof args[0] === 'string' ? this.#statementNames.get(args[0]) : undefined;
    // (a callback after the values, as the pool passes one, is kept)
    if (name) args = [{ name, text: args[0], values: args[1] }, ...args.slice(2)];
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if ((error as Error | null)?.message === QUERY_READ_TIMEOUT) {
          (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        }
      });
    }
    return result;
  }
}

/** Where the answer of a statement sent ahead goes (`Dialect.afterNextStatement`). */
export interface AheadAnswer {
  resolve(result: pg.QueryResult): void;
  reject(error: unknown): void;
}

/**
 * How the dialect asks a statement of a transaction to be sent (`Dialect.sentWithCommit`,
 * `afterNextStatement`): held and written with the COMMIT, or written behind the transaction's next
 * statement with its answer going here.
 */
export type Sending = 'with commit' | AheadAnswer;

/** A query as `query` was given it, and where its answer goes when it was sent ahead. */
interface Outgoing {
  args: unknown[];
  to?: AheadAnswer;
}

/** What the dialect tells the pool's clients, through the pool's options (pg hands them to every client). */
interface PoolSideTables {
  /** SQL text -> statement name: sent as a named (prepared) statement. */
  statementNames?: Map<string, string>;
  /** The parameter arrays of statements the dialect marked (Kysely hands them over as they are), with how each is sent. */
  sendings?: WeakMap<readonly unknown[], Sending>;
}

function sideTablesOf(pool: pg.Pool): Required<PoolSideTables> {
  const { statementNames, sendings } = pool.options as PoolSideTables;
  if (!statementNames || !sendings) throw new Error('this pool was not made by createPostgresPool');
  return { statementNames, sendings };
}

/** How this pool's clients send the statements the dialect marked, by parameter array. */
export function sendingsOf(pool: pg.Pool): WeakMap<readonly unknown[], Sending> {
  return sideTablesOf(pool).sendings;
}

/** The SQL texts this pool's clients send as named (prepared) statements, by text. */
export function statementNamesOf(pool: pg.Pool): Map<string, string> {
  return sideTablesOf(pool).statementNames;
}

/**
 * A pool that survives a lost database: a connection that dies while idle is dropped (and logged),
 * one that dies while a request holds it fails that request's query and is not reused, and new
 * connections are opened on demand, so service resumes as soon as the database answers again.
 */
export function createPostgresPool(options: PostgresPoolOptions): pg.Pool {
  const settings = [`-c statement_timeout=${options.statementTimeoutMs}`, `-c idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs}`];
  if (options.schema) settings.push(`-c search_path=${options.schema}`);
  // Filled by the dialect (`compiledOnce`): SQL text -> statement name; pg hands the pool's options to every client.
  const statementNames = new Map<string, string>();
  const pool = new pg.Pool({
    Client: BoundedClient,
    statementNames,
    sendings: new WeakMap(),
    types: pgTypes,
    connectionString: options.connectionString,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.statementTimeoutMs + CLIENT_MARGIN_MS,
    options: settings.join(' '),
    application_name: options.applicationName ?? 'taskboard',
    // A peer that vanished without a FIN (failover, a cut network) is noticed on idle connections too.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  } as pg.PoolConfig);
  const onIdleError = options.onIdleError ?? (() => {});
  // An idle connection's error reaches the pool, which has already dropped the connection; without a
  // listener the 'error' event would end the process.
  pool.on('error', (error) => onIdleError(error));
  // A connection a request holds has no pool listener: its error (the socket died) fails the
  // request's query already, so here it only must not go unhandled.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}
