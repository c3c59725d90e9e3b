/**
 * PostgreSQL's half of the event bell (src/events/bell.ts): a connection of its own, outside the pool,
 * that LISTENs on the schema's events channel, and on which the app's bell announces the commits it
 * gathered (`announce`: a NOTIFY), which PostgreSQL delivers to every instance listening. The
 * connection is bounded like the pool's (connect timeout,
 * TCP keep-alive, query timeout) and comes back after a loss with a growing pause; every (re)connect
 * counts as a ring, because commits made while it was deaf were not heard.
 */
import type pg from 'pg';
import { pgModule } from './engine/pg-module.ts';
import { EVENTS_CHANNEL_SQL } from './event-feed.ts';

export interface CommitListener {
  /** Settles once the first connection attempt has ended, listening or failed (then it retries). */
  started: Promise<void>;
  /**
   * Announces commits with `text` (the bell's announcement) to every instance listening, this one
   * too; dropped while the connection is not listening (the readers' next look catches up).
   */
  announce(text: string): void;
  close(): Promise<void>;
}

/**
 * The NOTIFY, in a transaction of its own that does not wait for its WAL flush. A transaction that
 * NOTIFYs takes a database-wide lock at its commit and holds it until the commit is flushed: were the
 * changes' own transactions to NOTIFY, every write of the deployment would commit one after another.
 */
export const ANNOUNCE_SQL = `select set_config('synchronous_commit', 'off', true), pg_notify(${EVENTS_CHANNEL_SQL}, $1)`;

export interface CommitListenerOptions {
  /**
   * Events may have committed: a NOTIFY arrived (`announced`: its payload), or the connection was
   * (re)made (undefined: anyone's commits may have been missed).
   */
  onCommit: (announced?: string) => void;
  /** The connection failed or was lost; it is tried again after `retryInMs`. */
  onError: (error: Error, retryInMs: number) => void;
}

/** What the listening connection is called in `pg_stat_activity.application_name`, before its channel's name. */
export const LISTENER_NAME = 'taskboard listener';

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5000;

export function listenForCommits(config: pg.ClientConfig, options: CommitListenerOptions): CommitListener {
  let closed = false;
  let client: pg.Client | undefined;
  /** `client` once it listens. */
  let listening: pg.Client | undefined;
  /** The last announcement sent: answered, every one before it is (one connection answers in order). */
  let lastAnnounced: Promise<unknown> = Promise.resolve();
  let retryMs = FIRST_RETRY_MS;
  let timer: NodeJS.Timeout | undefined;
  let firstAttemptEnded = () => {};
  const started = new Promise<void>((resolve) => (firstAttemptEnded = resolve));

  const retry = (error: Error) => {
    const lost = client;
    client = undefined;
    listening = undefined;
    lost?.removeAllListeners('notification');
    lost?.end().catch(() => {});
    if (closed || timer) return;
    options.onError(error, retryMs);
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  };

  const connect = async () => {
    const next = new (pgModule().Client)({ ...config, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    client = next;
    // Until it is replaced, a broken connection's errors end it and start the next one.
    next.on('error', (error) => client === next && retry(error));
    next.on('end', () => client === next && retry(new Error('the listening connection ended')));
    try {
      await next.connect();
      // named after its channel, so an operator (or a test) can tell it among the connections
      const { rows } = await next.query<{ channel: string }>(
        `select channel, set_config('application_name', '${LISTENER_NAME} ' || channel, false) from (select ${EVENTS_CHANNEL_SQL} as channel) c`,
      );
      const channel = rows[0]?.channel as string;
      next.on('notification', (message) => {
        if (message.channel === channel) options.onCommit(message.payload ?? '');
      });
      await next.query(`listen "${channel}"`);
      if (closed) return void next.end().catch(() => {});
      listening = next;
      retryMs = FIRST_RETRY_MS;
      options.onCommit();
    } catch (error) {
      if (client === next) retry(error as Error);
    } finally {
      firstAttemptEnded();
    }
  };

  void connect();
  return {
    started,
    announce(text) {
      // (a failure that breaks the connection reaches its 'error' listener, which reconnects)
      if (listening) lastAnnounced = listening.query(ANNOUNCE_SQL, [text]).catch(() => {});
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      // What was announced goes out before the connection ends (each wait bounded by query_timeout):
      // pg ends a connection with a query in flight by destroying its socket, and never sends the
      // queries queued behind that one, so a close's last announcement was lost now and then.
      await lastAnnounced;
      const last = client;
      client = undefined;
      listening = undefined;
      await last?.end().catch(() => {});
    },
  };
}
