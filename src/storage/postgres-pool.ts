/**
 * The PostgreSQL connection pool, built so that the database can go away and come back without
 * taking the process with it, and so that no wait on the database is unbounded.
 */
import type pg from 'pg';
import { pgModule } from './engine/pg-module.ts';
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

/**
 * A pool that survives a lost database: a connection that dies while idle is dropped (and logged),
 * one that dies while a request holds it fails that request's query and is not reused, and new
 * connections are opened on demand, so service resumes as soon as the database answers again.
 */
export function createPostgresPool(options: PostgresPoolOptions): pg.Pool {
  const settings = [`-c statement_timeout=${options.statementTimeoutMs}`, `-c idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs}`];
  if (options.schema) settings.push(`-c search_path=${options.schema}`);
  const pool = new (pgModule().Pool)({
    // several queries written before the first answer (src/storage/engine/postgres-driver.ts); pg also
    // closes a connection whose query timed out, instead of leaving it waiting for that answer
    pipeline: true,
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
  });
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
