/**
 * The event bell: tells readers of the event feed (live board streams, the webhook dispatcher) that
 * events have committed, so they read the feed now instead of at their next poll. It carries no
 * events, only the news: readers always read what committed from the record (src/storage/event-feed.ts),
 * so a ring heard twice or late costs a read, and a ring missed costs at most the reader's own
 * periodic look (a stream looks at each heartbeat).
 *
 * Where the rings come from:
 * - in process, always: `inTransaction` rings it after each commit that recorded events
 *   (`ServiceContext.eventsCommitted`);
 * - across instances by Redis pub/sub when REDIS_URL is set (either engine);
 * - else on PostgreSQL by LISTEN/NOTIFY (a connection of the dialect's own,
 *   src/storage/commit-listener.ts);
 * - else (SQLite without Redis) in process only.
 * A bell gathers this app's commits for ANNOUNCE_WINDOW_MS and announces them together (one NOTIFY
 * or PUBLISH per window, not per commit: each announcement wakes every instance's listener and, on
 * PostgreSQL, is a NOTIFY's work for the database, both growing with the write rate and the number
 * of instances). Each announcement says which app made
 * it (`id`): an app's own bell passes over its own, which it rang in process as they committed, so
 * a commit rings once. It also says what the events concern (`announcement`), so another instance's ring wakes only the streams it concerns, as a
 * ring in process does. Commits of a process without a bell (the `taskboard` command) are not
 * announced: readers see them at their next look.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import type { AppConfig } from '../config.ts';
import type { CommittedEvents } from '../domain/events/record.ts';
import type { StorageConnection } from '../storage/open.ts';

const require = createRequire(import.meta.url);

/** What a ring says committed: what the events concern, or undefined (another instance, a reconnection): anything may have. */
export type Ring = CommittedEvents | undefined;

/** How long a bell gathers this app's commits into one announcement to the other instances. */
export const ANNOUNCE_WINDOW_MS = 20;

export interface EventBell {
  /** Who this bell's app is in the announcements of its commits. */
  readonly id: string;
  /** Calls `listener` each time events may have committed, here or on another instance; answers how to stop. */
  subscribe(listener: (ring: Ring) => void): () => void;
  /** Events committed in this process (`ServiceContext.eventsCommitted`), concerning `committed`. */
  ring(committed: CommittedEvents): void;
  /**
   * An announcement from the other instances (`announcement`'s text; undefined: a (re)connection,
   * after which anyone's commits may have been missed): rings, unless it is this app's own.
   */
  heard(announced?: string): void;
  /** Settles once the transport's first connection attempt has ended (connected or not: it retries). */
  started(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The text that announces commits to the other instances:
 * `<announcer>;<boards>;<users>`, the lists comma-separated (ids are hex). Past what a database
 * notification carries (8,000 bytes) it says only who (`readAnnouncement`: it concerns anything).
 */
export function announcement(by: string, committed: CommittedEvents): string {
  const text = `${by};${[...committed.boards].join(',')};${[...committed.users].join(',')}`;
  return text.length <= ANNOUNCEMENT_MAX ? text : by;
}

const ANNOUNCEMENT_MAX = 7900;

/** Who made an announcement, and what it concerns (undefined: it does not say). */
export function readAnnouncement(text: string): { by: string; concerns: CommittedEvents | undefined } {
  const [by = '', boards, users] = text.split(';');
  if (boards === undefined || users === undefined) return { by, concerns: undefined };
  const ids = (list: string) => new Set(list.split(',').filter(Boolean));
  return { by, concerns: { boards: ids(boards), users: ids(users) } };
}

/** How other instances hear this one's rings (`announce`: the text of `announcement`), and this one theirs (through `Bell.heard`). */
interface Transport {
  announce(text: string): void;
  /** The first connection attempt has ended. */
  started: Promise<void>;
  close(): Promise<void>;
}

class Bell implements EventBell {
  readonly id = randomBytes(8).toString('hex');
  readonly #listeners = new Set<(ring: Ring) => void>();
  #transport: Transport | undefined;
  /** This app's commits since the last announcement, while a window is open. */
  #gathered: { boards: Set<string>; users: Set<string> } | undefined;
  #window: NodeJS.Timeout | undefined;

  /** Ends the window: announces what it gathered. */
  readonly #announce = (): void => {
    clearTimeout(this.#window);
    this.#window = undefined;
    const gathered = this.#gathered;
    this.#gathered = undefined;
    if (gathered) this.#transport?.announce(announcement(this.id, gathered));
  };

  /** Rings for this process's listeners only. */
  readonly deliver = (ring: Ring): void => {
    for (const listener of this.#listeners) listener(ring);
  };

  /** `ring` told the listeners of this app's own commits already, as they committed. */
  readonly heard = (announced?: string): void => {
    if (announced === undefined) return this.deliver(undefined);
    const { by, concerns } = readAnnouncement(announced);
    if (by !== this.id) this.deliver(concerns);
  };

  subscribe(listener: (ring: Ring) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  ring(committed: CommittedEvents): void {
    this.deliver(committed);
    if (!this.#transport) return;
    const gathered = (this.#gathered ??= { boards: new Set(), users: new Set() });
    for (const board of committed.boards) gathered.boards.add(board);
    for (const user of committed.users) gathered.users.add(user);
    this.#window ??= setTimeout(this.#announce, ANNOUNCE_WINDOW_MS).unref();
  }

  started(): Promise<void> {
    return this.#transport?.started ?? Promise.resolve();
  }

  use(transport: Transport): void {
    this.#transport = transport;
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#announce();
    await this.#transport?.close();
  }
}

/** The channel of one database on a shared Redis: instances configured with the same DATABASE_URL share it. */
function redisChannel(config: AppConfig, storage: StorageConnection): string {
  return `${config.redisKeyPrefix}events:${createHash('sha256').update(storage.description).digest('hex').slice(0, 16)}`;
}

/**
 * Redis pub/sub: PUBLISH of the bell's announcements (after the commits), SUBSCRIBE on a connection of its own.
 * Both connections retry forever with a bounded pause; a publish that cannot be sent is dropped (the
 * other instances' readers catch up at their next look), and every (re)subscription rings, because
 * what was published meanwhile was not heard.
 */
function redisTransport(url: string, channel: string, heard: (announced?: string) => void, log: FastifyBaseLogger): Transport {
  const common = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    commandTimeout: 1000,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 2000),
  };
  // loaded only where REDIS_URL is set
  const { Redis } = require('ioredis') as typeof import('ioredis');
  const publisher = new Redis(url, common);
  const subscriber = new Redis(url, { ...common, commandTimeout: undefined, enableOfflineQueue: true, autoResubscribe: false });
  let firstAttemptEnded = () => {};
  const started = new Promise<void>((resolve) => (firstAttemptEnded = resolve));
  publisher.on('error', () => {});
  subscriber.on('error', (error) => {
    firstAttemptEnded();
    log.warn({ err: error }, 'event bell: the Redis subscription failed; retrying');
  });
  subscriber.on('ready', () => {
    subscriber
      .subscribe(channel)
      .then(
        () => heard(),
        (error: Error) => log.warn({ err: error }, 'event bell: could not subscribe in Redis'),
      )
      .finally(firstAttemptEnded);
  });
  subscriber.on('end', firstAttemptEnded);
  subscriber.on('message', (from: string, announced: string) => {
    if (from === channel) heard(announced);
  });
  return {
    started,
    announce(text) {
      if (publisher.status === 'ready') publisher.publish(channel, text).catch(() => {});
    },
    async close() {
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}

/**
 * The bell of this instance: across instances by Redis when REDIS_URL is set, else by the database
 * where its engine can tell (PostgreSQL), else in process only.
 */
export function createEventBell(config: AppConfig, storage: StorageConnection, log: FastifyBaseLogger): EventBell {
  const bell = new Bell();
  if (config.redisUrl) {
    bell.use(redisTransport(config.redisUrl, redisChannel(config, storage), bell.heard, log));
    return bell;
  }
  const listener = storage.listenForCommits?.({
    onCommit: bell.heard,
    onError: (error, retryInMs) => log.warn({ err: error, retryInMs }, 'event bell: the database listener was lost; reconnecting'),
  });
  // the listening connection carries the bell's announcements too
  if (listener) bell.use(listener);
  return bell;
}
