/**
 * Live streams of the event record: a board's events (GET /api/v1/boards/:boardId/events) and a
 * user's own notifications (GET /api/v1/notifications/stream). From where the client stands (the
 * event it saw last, or the feed's end when it opens), a stream sends each of its events as it
 * commits, in commit order, and ends when the caller no longer reaches what it watches.
 *
 * The stream keeps only a position, never a queue: woken (the event bell, a heartbeat), it reads
 * what committed after its position from the record and hands it to the sink, page by page. A
 * reconnect replays from the record the same way, so what a client missed while away is what it
 * gets. Reach is decided again, by a fresh authentication of the caller's key, before each batch it
 * sends and at each heartbeat: a removed member, a revoked key or a board moved out of reach ends it.
 */

import type { Executor } from '../../storage/database.ts';
import type { EventRow, FeedPosition } from '../../storage/event-feed.ts';
import * as events from '../../storage/repositories/events.ts';
import { requireAccess } from '../access/access.ts';
import { authenticate } from '../account/service.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError, UnauthorizedError, ValidationError } from '../shared/errors.ts';
import { type Event, toEvent } from './events.ts';
import { BoardPresence, type Viewer } from './presence.ts';
import type { CommittedEvents } from './record.ts';

/** Authenticates the stream's caller again as it was at the start (an API key's token, or a session's: see src/plugins/auth.ts). */
export type Reauthenticate = () => Caller | Promise<Caller>;

export interface StreamSink {
  /** Sends one event; false when the client is too far behind to take it (the stream ends). */
  send(event: Event): boolean;
  /** Sends who is viewing the board now (a stream that counts its caller as viewing it); false as `send`. */
  presence?(viewers: Viewer[]): boolean;
  /** The stream is over (`reason` for the log); the sink closes the connection. */
  end(reason: string, error?: unknown): void;
}

/** How soon a stream looks again while the feed holds back committed events (doubling up to the last). */
const HELD_BACK_FIRST_MS = 20;
const HELD_BACK_LAST_MS = 500;

/** What a stream watches: which events it sends, and who may go on seeing them. */
interface StreamSubject {
  /** Its committed events after `after`, in commit order, a page (FEED_PAGE) at most. */
  eventsAfter(db: Executor, after: FeedPosition): Promise<EventRow[]>;
  /** Whether it has committed events after `after` that the feed does not show yet. */
  heldBack(db: Executor, after: FeedPosition): Promise<boolean>;
  /**
   * The access module's check that `caller` (just authenticated again) still reaches it (a
   * NotFoundError when not); none when authenticating the key again is the whole check.
   */
  checkAccess?: (db: Executor, caller: Caller) => Promise<unknown>;
  /** Its name in the reason a stream ends ("the board"). */
  name: string;
  /** Whether events concerning `committed` may be its. */
  concerns(committed: CommittedEvents): boolean;
}

/** A board's stream: the board's events (and the moves of cards to or from it); its caller must reach the board. */
function boardStreamSubject(boardId: string): StreamSubject {
  return {
    eventsAfter: (db, after) => events.boardEventsAfter(db, boardId, after),
    heldBack: (db, after) => events.boardEventsHeldBack(db, boardId, after),
    checkAccess: (db, caller) => requireAccess(db, caller, { kind: 'board', id: boardId }),
    name: 'the board',
    concerns: (committed) => committed.boards.has(boardId),
  };
}

/**
 * A user's notifications: the `notification.created` events addressed to them. Opened for the
 * caller's own user, and a key belongs to one user, so a key that still authenticates still reaches them.
 */
function notificationsSubject(userId: string): StreamSubject {
  return {
    eventsAfter: (db, after) => events.notificationEventsAfter(db, userId, after),
    heldBack: (db, after) => events.notificationEventsHeldBack(db, userId, after),
    name: 'their notifications',
    concerns: (committed) => committed.users.has(userId),
  };
}

export class LiveStream {
  readonly #ctx: ServiceContext;
  readonly #token: string | Reauthenticate;
  readonly #subject: StreamSubject;
  #position: FeedPosition;
  #sink: StreamSink | undefined;
  #reading: Promise<void> | undefined;
  #again = false;
  #ended = false;
  #heldBackMs = HELD_BACK_FIRST_MS;
  #heldBackTimer: NodeJS.Timeout | undefined;
  /** The caller counted as viewing the board, when it asked to be; and who was last said to view it. */
  readonly presence: BoardPresence | undefined;
  #viewersSent: string | undefined;
  #leaving: Promise<void> | undefined;

  constructor(ctx: ServiceContext, token: string | Reauthenticate, subject: StreamSubject, position: FeedPosition, presence?: BoardPresence) {
    this.#ctx = ctx;
    this.#token = token;
    this.#subject = subject;
    this.#position = position;
    this.presence = presence;
  }

  /** Starts sending to `sink`: first what the client missed, then each event as it commits. */
  start(sink: StreamSink): void {
    this.#sink = sink;
    this.wake();
  }

  /**
   * The event bell rang: wakes the stream unless what committed here concerns none of its events
   * (a ring of another instance, or of a reconnection, says nothing of that: it wakes it). A stream
   * whose events wait behind another transaction looks again by itself (`#lookSoon`).
   */
  heard(ring: CommittedEvents | undefined): void {
    if (!ring || this.#subject.concerns(ring)) this.wake();
  }

  /** Events may have committed: read them (a read under way reads once more when it is done). */
  wake(): void {
    if (this.#ended || !this.#sink) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = this.#read().finally(() => {
      this.#reading = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** A heartbeat: decides reach again, then looks at the feed (in case a ring was missed). */
  async heartbeat(): Promise<void> {
    if (this.#ended) return;
    try {
      if (!(await this.#reaches())) return this.end(`the caller no longer reaches ${this.#subject.name}`);
    } catch (error) {
      return this.end('reading the event record failed', error);
    }
    this.wake();
  }

  /** Keeps the caller counted as viewing the board, and looks at who else is (an expiry rings nothing). */
  async refreshPresence(): Promise<void> {
    if (this.#ended || !this.presence) return;
    try {
      await this.presence.refresh();
    } catch (error) {
      return this.end('keeping the viewer counted failed', error);
    }
    this.wake();
  }

  end(reason: string, error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#heldBackTimer);
    // the others are told at once; a leave that fails expires a few refreshes later
    this.#leaving = this.presence?.leave().catch(() => undefined);
    this.#sink?.end(reason, error);
  }

  /** Settles once an ended stream's caller no longer counts as viewing the board. */
  left(): Promise<void> {
    return this.#leaving ?? Promise.resolve();
  }

  get ended(): boolean {
    return this.#ended;
  }

  async #reaches(): Promise<boolean> {
    try {
      const caller = await (typeof this.#token === 'function' ? this.#token() : authenticate(this.#ctx, this.#token));
      await this.#subject.checkAccess?.(this.#ctx.db, caller);
      return true;
    } catch (error) {
      if (error instanceof UnauthorizedError || error instanceof NotFoundError) return false;
      throw error;
    }
  }

  async #read(): Promise<void> {
    try {
      for (;;) {
        const rows = await this.#subject.eventsAfter(this.#ctx.db, this.#position);
        if (rows.length === 0 || this.#ended) break;
        if (!(await this.#reaches())) return this.end(`the caller no longer reaches ${this.#subject.name}`);
        for (const row of rows) {
          if (this.#ended) return;
          if (!this.#sink?.send(toEvent(row))) return this.end('the client fell too far behind');
          this.#position = row.position;
        }
        this.#heldBackMs = HELD_BACK_FIRST_MS;
        if (rows.length < events.FEED_PAGE) break;
      }
      if (this.presence && !this.#ended) await this.#sendViewers(this.presence);
      if (!this.#ended && (await this.#subject.heldBack(this.#ctx.db, this.#position))) this.#lookSoon();
    } catch (error) {
      // The client reconnects with the last id it got and resumes from the record.
      this.end('reading the event record failed', error);
    }
  }

  /** Sends who views the board when it differs from what was sent last. */
  async #sendViewers(presence: BoardPresence): Promise<void> {
    const now = await presence.viewers();
    const text = JSON.stringify(now);
    if (text === this.#viewersSent || this.#ended) return;
    if (!this.#sink?.presence?.(now)) return this.end('the client fell too far behind');
    this.#viewersSent = text;
  }

  /** Committed events wait behind a transaction still running, and no ring will come for them. */
  #lookSoon(): void {
    if (this.#heldBackTimer) return;
    this.#heldBackTimer = setTimeout(() => {
      this.#heldBackTimer = undefined;
      this.wake();
    }, this.#heldBackMs);
    this.#heldBackMs = Math.min(this.#heldBackMs * 2, HELD_BACK_LAST_MS);
  }
}

/**
 * Where a stream opened with `lastEventId` starts: after that event, else now (nothing committed
 * before it opened). An event the caller does not reach is answered as one the record does not hold
 * (400): the answer must not tell that another company's event id exists.
 */
async function startingPosition(ctx: ServiceContext, caller: Caller, lastEventId: string | undefined): Promise<FeedPosition> {
  if (lastEventId === undefined) return events.feedNow(ctx.db);
  const unknown = () =>
    new ValidationError('Last-Event-ID names no event in the record (never one, or pruned): reload and open the stream without it', [
      { field: 'headers.last-event-id', message: 'unknown event id' },
    ]);
  try {
    await requireAccess(ctx.db, caller, { kind: 'event', id: lastEventId });
  } catch (error) {
    throw error instanceof NotFoundError ? unknown() : error;
  }
  const position = await events.eventPosition(ctx.db, lastEventId);
  // pruned since
  if (position === undefined) throw unknown();
  return position;
}

/**
 * Opens a stream of the board for `caller` (holding `token`): 404 when it does not reach the board;
 * with `lastEventId`, from that event (400 when the record has no such event: pruned, or never one),
 * else from now. With `presence`, the caller counts as viewing the board while the stream is open
 * (refreshed every `presence.refreshMs`), and the stream also tells who views it.
 */
export async function openBoardStream(
  ctx: ServiceContext,
  caller: Caller,
  token: string | Reauthenticate,
  boardId: string,
  lastEventId: string | undefined,
  presence?: { refreshMs: number },
): Promise<LiveStream> {
  const subject = boardStreamSubject(boardId);
  await subject.checkAccess?.(ctx.db, caller);
  const position = await startingPosition(ctx, caller, lastEventId);
  const viewing = presence ? new BoardPresence(ctx, boardId, caller.userId, presence.refreshMs) : undefined;
  await viewing?.join();
  return new LiveStream(ctx, token, subject, position, viewing);
}

/**
 * Opens a stream of the caller's own notifications (each a `notification.created` event addressed
 * to them), from now or after `lastEventId`; it ends when the caller's key stops authenticating.
 */
export async function openNotificationStream(
  ctx: ServiceContext,
  caller: Caller,
  token: string | Reauthenticate,
  lastEventId: string | undefined,
): Promise<LiveStream> {
  return new LiveStream(ctx, token, notificationsSubject(caller.userId), await startingPosition(ctx, caller, lastEventId));
}
