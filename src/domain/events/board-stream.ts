/**
 * A live stream of a board's events (GET /api/v1/boards/:boardId/events): from where the client
 * stands (the event it saw last, or the feed's end when it opens), it sends each event of the board
 * as it commits, in commit order, and ends when the caller no longer reaches the board.
 *
 * The stream keeps only a position, never a queue: woken (the event bell, a heartbeat), it reads
 * what committed after its position from the record and hands it to the sink, page by page. A
 * reconnect replays from the record the same way, so what a client missed while away is what it
 * gets. Reach is decided again, by a fresh authentication of the caller's key, before each batch it
 * sends and at each heartbeat: a removed member, a revoked key or a board moved out of reach ends it.
 */
import { authenticate } from '../account/service.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import * as events from '../../storage/repositories/events.ts';
import type { FeedPosition } from '../../storage/event-feed.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError, UnauthorizedError, ValidationError } from '../shared/errors.ts';
import { type Event, toEvent } from './events.ts';

export interface StreamSink {
  /** Sends one event; false when the client is too far behind to take it (the stream ends). */
  send(event: Event): boolean;
  /** The stream is over (`reason` for the log); the sink closes the connection. */
  end(reason: string, error?: unknown): void;
}

/** How soon a stream looks again while the feed holds back committed events (doubling up to the last). */
const HELD_BACK_FIRST_MS = 20;
const HELD_BACK_LAST_MS = 500;

export class BoardStream {
  readonly #ctx: ServiceContext;
  readonly #token: string;
  readonly #boardId: string;
  #position: FeedPosition;
  #sink: StreamSink | undefined;
  #reading: Promise<void> | undefined;
  #again = false;
  #ended = false;
  #heldBackMs = HELD_BACK_FIRST_MS;
  #heldBackTimer: NodeJS.Timeout | undefined;

  constructor(ctx: ServiceContext, token: string, boardId: string, position: FeedPosition) {
    this.#ctx = ctx;
    this.#token = token;
    this.#boardId = boardId;
    this.#position = position;
  }

  /** Starts sending to `sink`: first what the client missed, then each event as it commits. */
  start(sink: StreamSink): void {
    this.#sink = sink;
    this.wake();
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
      if (!(await this.#reaches())) return this.end('the caller no longer reaches the board');
    } catch (error) {
      return this.end('reading the event record failed', error);
    }
    this.wake();
  }

  end(reason: string, error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#heldBackTimer);
    this.#sink?.end(reason, error);
  }

  get ended(): boolean {
    return this.#ended;
  }

  async #reaches(): Promise<boolean> {
    try {
      const caller = await authenticate(this.#ctx, this.#token);
      await requireAccess(this.#ctx.db, caller, { kind: 'board', id: this.#boardId });
      return true;
    } catch (error) {
      if (error instanceof UnauthorizedError || error instanceof NotFoundError) return false;
      throw error;
    }
  }

  async #read(): Promise<void> {
    try {
      for (;;) {
        const rows = await events.boardEventsAfter(this.#ctx.db, this.#boardId, this.#position);
        if (rows.length === 0 || this.#ended) break;
        if (!(await this.#reaches())) return this.end('the caller no longer reaches the board');
        for (const row of rows) {
          if (this.#ended) return;
          if (!this.#sink?.send(toEvent(row))) return this.end('the client fell too far behind');
          this.#position = row.position;
        }
        this.#heldBackMs = HELD_BACK_FIRST_MS;
        if (rows.length < events.FEED_PAGE) break;
      }
      if (!this.#ended && (await events.boardEventsHeldBack(this.#ctx.db, this.#boardId, this.#position))) this.#lookSoon();
    } catch (error) {
      // The client reconnects with the last id it got and resumes from the record.
      this.end('reading the event record failed', error);
    }
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
 * Opens a stream of the board for `caller` (holding `token`): 404 when it does not reach the board;
 * with `lastEventId`, from that event (400 when the record has no such event: pruned, or never one),
 * else from now.
 */
export async function openBoardStream(
  ctx: ServiceContext,
  caller: Caller,
  token: string,
  boardId: string,
  lastEventId: string | undefined,
): Promise<BoardStream> {
  await requireAccess(ctx.db, caller, { kind: 'board', id: boardId });
  let position: FeedPosition | undefined;
  if (lastEventId !== undefined) {
    position = await events.eventPosition(ctx.db, lastEventId);
    if (position === undefined) {
      throw new ValidationError('Last-Event-ID names no event in the record (never one, or pruned): reload the board and open the stream without it', [
        { field: 'headers.last-event-id', message: 'unknown event id' },
      ]);
    }
  } else {
    position = await events.feedEnd(ctx.db);
  }
  return new BoardStream(ctx, token, boardId, position);
}
