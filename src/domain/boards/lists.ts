import type { List } from '../../schemas/records.ts';
import type { Executor } from '../../storage/database.ts';
import { lockBoard } from '../../storage/repositories/boards.ts';
import { lockList } from '../../storage/repositories/cards.ts';
import { markListDeleted } from '../../storage/repositories/lifecycle.ts';
import * as lists from '../../storage/repositories/lists.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { boardSubject, changedFields, recordEvent } from '../events/record.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { type PositionRequest, placeAmong } from '../shared/positions.ts';
import { isExpected, requireExpectedVersion } from '../shared/preconditions.ts';
import { LIVE, newMade, onBoard } from '../shared/records.ts';
import { inTransaction } from '../shared/transaction.ts';
import { toList } from './records.ts';

/** Lists of the boards the caller reaches, narrowed by the scope: by board, then position. */
export async function listLists(ctx: ServiceContext, caller: Caller, scope: Scope, archived = false): Promise<List[]> {
  const reach = await requireAccess(ctx.db, caller, { kind: 'collection', scope });
  return (await lists.listReachableLists(ctx.db, reach, archived)).map(toList);
}

/** Get List: one list of a board the caller reaches (archived ones too, as its id names it). */
export async function getList(ctx: ServiceContext, caller: Caller, listId: string, scope: Scope): Promise<List> {
  return toList(await requireAccess(ctx.db, caller, { kind: 'list', id: listId, scope }));
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
    if (!(await lockBoard(trx, board.id))) throw new NotFoundError('Board');
    const now = nowIso();
    const position = await positionAmongSiblings(trx, board.id, input.position, now);
    const row = { ...newMade(newId(), caller.userId, now), ...onBoard(board), name: input.name.trim(), position, ...LIVE };
    await lists.insertList(trx, row);
    recordEvent(trx, caller, 'list.created', boardSubject(row), { list: row.id, name: row.name, position }, now);
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
    if (!(await lockBoard(trx, list.board_id))) throw new NotFoundError('Board');
    const now = nowIso();
    const change: { name?: string; position?: number } = {};
    if (input.name !== undefined) change.name = input.name.trim();
    if (input.position !== undefined) change.position = await positionAmongSiblings(trx, list.board_id, input.position, now, list.id);
    const updated = await lists.updateList(trx, list.id, change, now);
    if (updated) {
      // the update holds the list's lock: If-Match is compared with the revision it replaced
      requireExpectedVersion(trx, caller, 'list', updated.id, Number(updated.version) - 1);
      const data = changedFields({ name: list.name, position: list.position }, { name: updated.name, position: updated.position });
      recordEvent(trx, caller, 'list.updated', boardSubject(updated), { list: list.id, ...data }, now);
    }
    return updated;
  });
  // deleted between the check and the write
  if (!updated) throw new NotFoundError('List');
  return toList(updated);
}

/** Archive List (`archived` true) and Unarchive List (false): team members; archiving an archived list keeps its time. */
export async function setListArchived(ctx: ServiceContext, caller: Caller, listId: string, scope: Scope, archived: boolean): Promise<List> {
  return inTransaction(ctx, async (trx) => {
    const list = await requireAccess(trx, caller, { kind: 'list', id: listId, scope });
    if (Boolean(Number(list.archived)) === archived) {
      // nothing to change: If-Match still holds the revision read
      requireExpectedVersion(trx, caller, 'list', list.id, list.version);
      return toList(list);
    }
    const at = nowIso();
    const changed = await lists.setListArchived(trx, list.id, archived, at);
    if (!changed) throw new NotFoundError('List');
    // the update holds the list's lock: If-Match is compared with the revision it replaced
    requireExpectedVersion(trx, caller, 'list', changed.id, Number(changed.version) - 1);
    const subject = { company: changed.company_id, team: changed.team_id, board: changed.board_id };
    recordEvent(trx, caller, archived ? 'list.archived' : 'list.unarchived', subject, { list: changed.id }, at);
    return toList(changed);
  });
}

/**
 * Delete List: team members. A list still holding unarchived cards is a 409 unless `cascade`. The
 * list and its cards are marked deleted at once (hidden from every read) and swept later (./sweep.ts).
 */
export async function deleteList(ctx: ServiceContext, caller: Caller, listId: string, scope: Scope, cascade: boolean): Promise<{ _id: string }> {
  const list = await requireAccess(ctx.db, caller, { kind: 'list', id: listId, scope });
  return inTransaction(ctx, async (trx) => {
    // the list's lock: no card is placed in it while this decides (step 1 of the lock rule)
    if (!(await lockList(trx, list.id))) throw new NotFoundError('List');
    // If-Match: compared under that lock (the mark leaves the list's __v as it is), before the 409
    if (isExpected(caller, 'list', list.id)) requireExpectedVersion(trx, caller, 'list', list.id, (await lists.findListById(trx, list.id))?.version ?? -1);
    const holding = await lists.countUnarchivedCards(trx, list.id);
    if (holding > 0 && !cascade) {
      throw new ConflictError(`The list holds ${holding} unarchived card(s); archive or move them, or delete with ?cascade=true`);
    }
    const at = nowIso();
    if (!(await markListDeleted(trx, list.id, at))) throw new NotFoundError('List');
    recordEvent(trx, caller, 'list.deleted', { company: list.company_id, team: list.team_id, board: list.board_id }, { list: list.id, name: list.name }, at);
    return { _id: list.id };
  });
}
