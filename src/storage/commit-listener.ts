/**
 * PostgreSQL's half of the event bell (src/events/bell.ts): a connection of its own, outside the pool,
 * that LISTENs on the schema's events channel. Each transaction that records events NOTIFYs it
 * (src/storage/event-feed.ts, `announcing`), and PostgreSQL delivers that only when the transaction
 * commits, to every instance listening. The connection is bounded like the pool's (connect timeout,
 * TCP keep-alive, query timeout) and comes back after a loss with a growing pause; every (re)connect
 * counts as a ring, because commits made while it was deaf were not heard.
 */
import pg from 'pg';
import { EVENTS_CHANNEL_SQL } from './event-feed.ts';

export interface CommitListener {
  /** Settles once the first connection attempt has ended, listening or failed (then it retries). */
  started: Promise<void>;
  close(): Promise<void>;
}

export interface CommitListenerOptions {
  /**
   * Events may have committed: a NOTIFY arrived (`announced`: its payload), or the connection was
   * (re)made (undefined: anyone's commits may have been missed).
   */
  onCommit: (announced?: string) => void;
  /** The connection failed or was lost; it is tried again after `retryInMs`. */
  onError: (error: Error, retryInMs: number) => void;
}

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5000;

export function listenForCommits(config: pg.ClientConfig, options: CommitListenerOptions): CommitListener {
  let closed = false;
  let client: pg.Client | undefined;
  let retryMs = FIRST_RETRY_MS;
  let timer: NodeJS.Timeout | undefined;
  let firstAttemptEnded = () => {};
  const started = new Promise<void>((resolve) => (firstAttemptEnded = resolve));

  const retry = (error: Error) => {
    const lost = client;
    client = undefined;
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
    const next = new pg.Client({ ...config, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    client = next;
    // Until it is replaced, a broken connection's errors end it and start the next one.
    next.on('error', (error) => client === next && retry(error));
    next.on('end', () => client === next && retry(new Error('the listening connection ended')));
    try {
      await next.connect();
      const { rows } = await next.query<{ channel: string }>(`select ${EVENTS_CHANNEL_SQL} as channel`);
      const channel = rows[0]?.channel as string;
      next.on('notification', (message) => {
        if (message.channel === channel) options.onCommit(message.payload ?? '');
      });
      await next.query(`listen "${channel}"`);
      if (closed) return void next.end().catch(() => {});
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
    async close() {
      closed = true;
      clearTimeout(timer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
