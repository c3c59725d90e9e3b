import type { List } from '../../schemas/records.ts';
import { lockBoard } from '../../storage/repositories/boards.ts';
import type { Executor } from '../../storage/database.ts';
import * as lists from '../../storage/repositories/lists.ts';
import type { ServiceContext } from '../context.ts';
import { requireAccess } from '../access/access.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { placeAmong, type PositionRequest } from '../shared/positions.ts';
import { inTransaction } from '../shared/transaction.ts';
import { toList } from './records.ts';

/** Lists of the boards the caller reaches, narrowed by the scope: by board, then position. */
export async function listLists(ctx: ServiceContext, caller: Caller, scope: Scope): Promise<List[]> {
  const reach = await requireAccess(ctx.db, caller, { kind: 'collection', scope });
  return (await lists.listReachableLists(ctx.db, reach)).map(toList);
}

/**
 * The position for a list placed among the board's other lists, renumbering them (each a change of
 * that list) when they must be spread again. Runs inside the transaction that writes the list, after
 * `lockBoard`, which guards the board's list positions.
 */
async function positionAmongSiblings(
  trx: Executor,
  boardId: string,
  request: PositionRequest | undefined,
  at: string,
  excludeListId?: string,
): Promise<number> {
  const siblings = (await lists.findListsOfBoard(trx, boardId)).filter((l) => l.id !== excludeListId);
  return placeAmong(siblings, request, (moves) => lists.setListPositions(trx, moves, at));
}

export async function createList(
  ctx: ServiceContext,
  caller: Caller,
  input: { board: string; name: string; position?: PositionRequest | undefined },
  scope: Scope,
): Promise<List> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: input.board, scope });
  const row = await inTransaction(ctx, async (trx) => {
    await lockBoard(trx, board.id);
    const now = nowIso();
    const position = await positionAmongSiblings(trx, board.id, input.position, now);
    const row = {
      id: newId(),
      company_id: board.company_id,
      team_id: board.team_id,
      board_id: board.id,
      name: input.name.trim(),
      position,
      creator_id: caller.userId,
      created_at: now,
      updated_at: now,
      version: 0,
    };
    await lists.insertList(trx, row);
    return row;
  });
  return toList(row);
}

/** Renames and/or moves a list within its board; the list's `__v` grows by one. */
export async function updateList(
  ctx: ServiceContext,
  caller: Caller,
  listId: string,
  input: { name?: string | undefined; position?: PositionRequest | undefined },
  scope: Scope,
): Promise<List> {
  const list = await requireAccess(ctx.db, caller, { kind: 'list', id: listId, scope });
  const updated = await inTransaction(ctx, async (trx) => {
    await lockBoard(trx, list.board_id);
    const now = nowIso();
    const change: { name?: string; position?: number } = {};
    if (input.name !== undefined) change.name = input.name.trim();
    if (input.position !== undefined) change.position = await positionAmongSiblings(trx, list.board_id, input.position, now, list.id);
    return lists.updateList(trx, list.id, change, now);
  });
  // deleted between the check and the write
  if (!updated) throw new NotFoundError('List');
  return toList(updated);
}
