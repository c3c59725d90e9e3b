/**
 * Starred boards (docs/decisions/0276-starred-boards.md): a person marks the boards they use most, and
 * the marks follow them to every browser. A star is the person's own: no change of the board (its
 * `__v` stays), recorded as a `board.starred` or `board.unstarred` event of theirs alone. A board
 * the person no longer reaches keeps its star but is not listed, so reach regained brings it back.
 */
import type { Board } from '../../schemas/records.ts';
import * as stars from '../../storage/repositories/board-stars.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { toBoard } from './records.ts';

/** Get Starred Boards: the caller's starred boards that they reach, open ones, in the order starred. */
export async function listStarredBoards(ctx: ServiceContext, caller: Caller, scope: Scope): Promise<Board[]> {
  const reach = await requireAccess(ctx.db, caller, { kind: 'collection', scope });
  return (await stars.listStarredBoards(ctx.db, reach, caller.userId)).map(toBoard);
}

/** Star Board or Unstar Board: the caller's star set as asked; again is no change (and no event). */
export function setBoardStar(ctx: ServiceContext, caller: Caller, boardId: string, scope: Scope, starred: boolean): Promise<{ starred: boolean }> {
  return inTransaction(ctx, async (trx) => {
    const board = await requireAccess(trx, caller, { kind: 'board', id: boardId, scope });
    const at = nowIso();
    const changed = starred ? await stars.addStar(trx, board.id, caller.userId, at) : await stars.removeStar(trx, board.id, caller.userId);
    if (changed) {
      // the person's own (as Trello's stars are): filed under them, not the board, so neither the
      // board's stream nor the company's webhooks tell anyone else
      recordEvent(trx, caller, starred ? 'board.starred' : 'board.unstarred', { company: null, user: caller.userId }, { board: board.id }, at);
    }
    return { starred };
  });
}
