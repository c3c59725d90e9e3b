/**
 * Which failures mean "the database cannot serve right now" (as opposed to a bug or a bad query):
 * requests that meet one answer 503 `unavailable` with Retry-After, and a command or a server
 * start that meets one says it could not reach the database, and where.
 */
/** The message pg gives a query that `query_timeout` ended. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

/** Seconds a client should wait before retrying a request the database could not serve. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/** Network failures on the way to the database (node's `code`). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs of a server going away, refusing connections, or ending work on our own
 * timeouts. 57014 is also a cancel request, which this service never sends: here it is our
 * `statement_timeout`. Class 08 is every connection exception.
 */
const SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown, a failover
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '57P05', // idle_session_timeout
  '57014', // query_canceled: our statement_timeout
  '25P03', // idle_in_transaction_session_timeout
  '53300', // too_many_connections
  '53400', // configuration_limit_exceeded
]);

/** pg's messages when the connect timeout (DB_CONNECT_TIMEOUT_MS) ended a wait. */
const CONNECT_TIMEOUTS = [
  /^timeout expired$/, // connectionTimeoutMillis while connecting
  /^Connection terminated due to connection timeout$/,
  /^timeout exceeded when trying to connect$/, // waiting for a free pooled connection
];

/** pg's own messages for a dead or silent connection (these errors carry no code; `query_timeout`'s is QUERY_READ_TIMEOUT). */
const PG_MESSAGES = [
  /^Connection terminated/, // unexpectedly, or due to connection timeout
  ...CONNECT_TIMEOUTS,
  /is not queryable$/, // the connection died earlier
];

/** SQLite: the file stayed locked by another process beyond `busy_timeout`. */
const SQLITE_BUSY = /^SQLITE_BUSY/;

/** True when `error` (or its cause) says the database is unreachable, too slow or shutting down. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      (NETWORK_CODES.has(code) || SQLSTATES.has(code) || (code.startsWith('08') && code.length === 5) || SQLITE_BUSY.test(code))
    ) {
      return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && (message === QUERY_READ_TIMEOUT || PG_MESSAGES.some((pattern) => pattern.test(message)))) return true;
  }
  return false;
}

/** What went wrong on the way to the database, in a few words, for a person. */
function reason(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length) return reason(error.errors[0]);
  const e = error as { code?: unknown; message?: unknown; cause?: unknown };
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0]!.trim() : String(error);
  if (message.startsWith('migration failed: ') && e.cause) return reason(e.cause);
  if (CONNECT_TIMEOUTS.some((pattern) => pattern.test(message))) {
    return 'no answer within the connect timeout (DB_CONNECT_TIMEOUT_MS)';
  }
  if (message === QUERY_READ_TIMEOUT) return 'no answer within the statement timeout (DB_STATEMENT_TIMEOUT_MS)';
  const code = typeof e?.code === 'string' ? e.code : undefined;
  return code && !message.includes(code) ? `${message} (${code})` : message || String(code);
}

/** `host:port (the masked URL)` for PostgreSQL, so the address is plain even when the URL leaves the port out. */
function address(where: string): string {
  if (!/^postgres(ql)?:\/\//.test(where)) return where;
  const url = new URL(where);
  return `${url.hostname}:${url.port || '5432'} (${where})`;
}

/** The database could not be reached (or did not answer) when a command or the server started. */
export class DatabaseUnreachableError extends Error {
  /** @param where the database's URL with the password masked */
  constructor(where: string, cause: unknown) {
    super(`could not reach the database at ${address(where)}: ${reason(cause)}`, { cause });
    this.name = 'DatabaseUnreachableError';
  }
}

/**
 * Runs `work`, the first use of the database at `where` (its masked URL): a failure that means the
 * database is unavailable becomes a DatabaseUnreachableError naming it, anything else passes.
 */
export async function reachingDatabase<T>(where: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isDatabaseUnavailable(error) ? new DatabaseUnreachableError(where, error) : error;
  }
}
