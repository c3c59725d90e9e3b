/**
 * Who is viewing a board now (docs/decisions/0260-board-presence.md). A board stream opened with
 * `presence=true` counts its caller as viewing the board for as long as it is open: it joins with a
 * row of its own, its instance keeps the row alive (`refresh`, every `refreshMs`), and it leaves when
 * the stream ends. A row its instance stopped refreshing (a crash, a cut network between it and the
 * database) counts no more after `seen_until`, a few refreshes later. Joining and leaving ring the
 * event bell for the board, so every stream of the board, on any instance, reads the viewers again at
 * once; a stream also reads them at each of its own refreshes, which is how an expiry shows.
 *
 * Presence is not a change of the board: it records no event and moves no version.
 */
import * as viewers from '../../storage/repositories/board-viewers.ts';
import type { ServiceContext } from '../context.ts';
import { newId } from '../shared/ids.ts';

/** A person viewing the board: as a board member is shown. */
export interface Viewer {
  _id: string;
  fullName: string;
  photoUrl: string;
}

/** Missed refreshes after which a viewer counts no more. */
const REFRESHES_TO_EXPIRY = 3;

export class BoardPresence {
  readonly #ctx: ServiceContext;
  readonly #id: string;
  readonly boardId: string;
  readonly userId: string;
  readonly refreshMs: number;
  #left = false;

  constructor(ctx: ServiceContext, boardId: string, userId: string, refreshMs: number) {
    this.#ctx = ctx;
    this.#id = newId(ctx.clock.now());
    this.boardId = boardId;
    this.userId = userId;
    this.refreshMs = refreshMs;
  }

  #at(offsetMs = 0): string {
    return new Date(this.#ctx.clock.now() + offsetMs).toISOString();
  }

  #rung(): void {
    this.#ctx.eventsCommitted?.({ boards: new Set([this.boardId]), users: new Set() });
  }

  /** Counts the caller as viewing the board; rows of stopped instances are cleared on the way. */
  async join(): Promise<void> {
    await viewers.deleteExpiredViewers(this.#ctx.db, this.#at());
    await viewers.insertViewer(this.#ctx.db, {
      id: this.#id,
      board_id: this.boardId,
      user_id: this.userId,
      joined_at: this.#at(),
      seen_until: this.#at(this.refreshMs * REFRESHES_TO_EXPIRY),
    });
    this.#rung();
  }

  /** Keeps the caller counted a few refreshes more; a row cleared meanwhile (taken for expired) comes back. */
  async refresh(): Promise<void> {
    if (this.#left) return;
    const seenUntil = this.#at(this.refreshMs * REFRESHES_TO_EXPIRY);
    if (await viewers.refreshViewer(this.#ctx.db, this.#id, seenUntil)) return;
    await viewers.insertViewer(this.#ctx.db, { id: this.#id, board_id: this.boardId, user_id: this.userId, joined_at: this.#at(), seen_until: seenUntil });
    this.#rung();
  }

  /** The caller no longer views the board through this stream. */
  async leave(): Promise<void> {
    if (this.#left) return;
    this.#left = true;
    await viewers.deleteViewer(this.#ctx.db, this.#id);
    this.#rung();
  }

  /** The people viewing the board now, each once, in the order they came. */
  async viewers(): Promise<Viewer[]> {
    const rows = await viewers.listViewers(this.#ctx.db, this.boardId, this.#at());
    return rows.map((row) => ({ _id: row.user_id, fullName: row.full_name, photoUrl: row.photo_url }));
  }
}
