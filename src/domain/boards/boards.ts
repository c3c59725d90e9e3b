import type { BoardWithLists, BoardWithListsAndCards } from '../../schemas/boards.ts';
import type { Board } from '../../schemas/records.ts';
import type { BoardRow } from '../../storage/repositories/boards.ts';
import * as boards from '../../storage/repositories/boards.ts';
import { insertLabel } from '../../storage/repositories/labels.ts';
import { markBoardDeleted } from '../../storage/repositories/lifecycle.ts';
import { findListsOfBoard } from '../../storage/repositories/lists.ts';
import { requireAccess } from '../access/access.ts';
import { firstCardsOfList } from '../cards/listing.ts';
import { loadCards } from '../cards/service.ts';
import type { ServiceContext } from '../context.ts';
import { boardSubject, recordEvent } from '../events/record.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ForbiddenError, NotFoundError } from '../shared/errors.ts';
import { newId, newOrderedId, nowIso } from '../shared/ids.ts';
import { DEFAULT_PAGE_SIZE } from '../shared/pagination.ts';
import { isExpected, requireExpectedVersion } from '../shared/preconditions.ts';
import { LIVE, newMade, onBoard } from '../shared/records.ts';
import { inTransaction } from '../shared/transaction.ts';
import { toBoard, toList } from './records.ts';

/**
 * The labels a board asked to start with `defaultLabels` gets: Trello's default six, unnamed, in the
 * palette's first six colours (green, yellow, orange, red, purple, blue: ids fixed by the palette).
 */
const DEFAULT_LABEL_COLORS = [
  '000000000000000000000001',
  '000000000000000000000002',
  '000000000000000000000003',
  '000000000000000000000004',
  '000000000000000000000005',
  '000000000000000000000006',
];

/** Creates a board in a team the caller reaches (team member, or company owner/admin); with `defaultLabels`, with Trello's default labels. */
export async function createBoard(
  ctx: ServiceContext,
  caller: Caller,
  input: { teamId: string; companyId?: string | undefined; name: string; defaultLabels?: boolean },
): Promise<Board> {
  const team = await requireAccess(ctx.db, caller, { kind: 'team', id: input.teamId, scope: { companyId: input.companyId } });
  const now = nowIso();
  const row = {
    ...newMade(newId(), caller.userId, now),
    company_id: team.company_id,
    team_id: team.id,
    name: input.name.trim(),
    description: '',
    ...LIVE,
    labels_stamp: 0,
  };
  await inTransaction(ctx, async (trx) => {
    await boards.insertBoard(trx, row);
    recordEvent(trx, caller, 'board.created', boardSubject(row), { board: row.id, name: row.name }, now);
    if (!input.defaultLabels) return;
    for (const color of DEFAULT_LABEL_COLORS) {
      // ids in the order made: the labels list in palette order (they share their creation time)
      const label = { ...newMade(newOrderedId(), caller.userId, now), ...onBoard(row), name: '', color_id: color };
      await insertLabel(trx, label);
      recordEvent(trx, caller, 'label.created', boardSubject(row), { label: label.id, name: '', color }, now);
    }
  });
  return toBoard(row);
}

/** Boards the caller reaches, narrowed by the scope, oldest first. */
export async function listBoards(ctx: ServiceContext, caller: Caller, scope: Scope, archived = false): Promise<Board[]> {
  const reach = await requireAccess(ctx.db, caller, { kind: 'collection', scope });
  return (await boards.listReachableBoards(ctx.db, reach, archived)).map(toBoard);
}

/** The board with its lists in position order. */
export async function getBoardWithLists(ctx: ServiceContext, caller: Caller, boardId: string, scope: Scope, archived = false): Promise<BoardWithLists> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const lists = await findListsOfBoard(ctx.db, board.id, archived);
  return { ...toBoard(board), lists: lists.map(toList) };
}

/** Cards of each list a board view shows: Get List Card reads further from the list's `nextCursor`. */
export const BOARD_CARDS_PER_LIST = DEFAULT_PAGE_SIZE;

/**
 * The board with its lists, each with the first page of its unarchived cards as full card records,
 * in position order, and the `nextCursor` Get List Card continues from: a board read is bounded by
 * its lists, not by its cards.
 */
export async function getBoardWithListsAndCards(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  scope: Scope,
  archived = false,
): Promise<BoardWithListsAndCards> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const lists = await findListsOfBoard(ctx.db, board.id, archived);
  // one page per list, each loaded in one query (loadCards keeps the order of the ids, position order)
  const withCards = await Promise.all(
    lists.map(async (list) => {
      const page = await firstCardsOfList(ctx, list.id, BOARD_CARDS_PER_LIST);
      return {
        ...toList(list),
        cards: await loadCards(
          ctx,
          page.items.map((ref) => ref.id),
        ),
        nextCursor: page.nextCursor,
      };
    }),
  );
  return { ...toBoard(board), lists: withCards };
}

/** One change of a board the caller reaches, in one transaction with its event; the board as it left it. */
async function changeBoard(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  scope: Scope,
  type: string,
  change: (board: BoardRow, at: string) => Parameters<typeof boards.changeBoard>[2] | undefined,
): Promise<Board> {
  return inTransaction(ctx, async (trx) => {
    const board = await requireAccess(trx, caller, { kind: 'board', id: boardId, scope });
    const at = nowIso();
    const fields = change(board, at);
    // nothing to change (archiving an archived board keeps its time): no change, no event; If-Match still holds the revision read
    if (!fields) {
      requireExpectedVersion(trx, caller, 'board', board.id, board.version);
      return toBoard(board);
    }
    const changed = await boards.changeBoard(trx, board.id, fields, at);
    if (!changed) throw new NotFoundError('Board');
    // the update holds the board's lock: If-Match is compared with the revision it replaced
    requireExpectedVersion(trx, caller, 'board', changed.id, Number(changed.version) - 1);
    recordEvent(trx, caller, type, { company: changed.company_id, team: changed.team_id, board: changed.id }, fields, at);
    return toBoard(changed);
  });
}

/** Update Board: team members rename the board or change its description. */
export function updateBoard(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  scope: Scope,
  input: { name?: string | undefined; description?: string | undefined },
): Promise<Board> {
  return changeBoard(ctx, caller, boardId, scope, 'board.updated', () => ({
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
  }));
}

/** Archive Board (`archived` true) and Unarchive Board (false): team members. */
export function setBoardArchived(ctx: ServiceContext, caller: Caller, boardId: string, scope: Scope, archived: boolean): Promise<Board> {
  return changeBoard(ctx, caller, boardId, scope, archived ? 'board.archived' : 'board.unarchived', (board, at) =>
    Boolean(Number(board.archived)) === archived ? undefined : { archived: archived ? 1 : 0, archived_at: archived ? at : null },
  );
}

/**
 * Delete Board: company owners and admins. The board, its lists and cards are marked deleted in one
 * short transaction (hidden from every read from its commit on); the sweeper removes them in
 * batches (./sweep.ts), the labels with the board.
 */
export async function deleteBoard(ctx: ServiceContext, caller: Caller, boardId: string, scope: Scope): Promise<{ _id: string }> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const { role } = await requireAccess(ctx.db, caller, { kind: 'company', id: board.company_id });
  if (role === 'member') throw new ForbiddenError('Only company owners and admins may delete a board');
  return inTransaction(ctx, async (trx) => {
    // If-Match on the board: compared under its lock (the mark leaves its __v as it is)
    if (isExpected(caller, 'board', board.id)) {
      if (!(await boards.lockBoard(trx, board.id))) throw new NotFoundError('Board');
      requireExpectedVersion(trx, caller, 'board', board.id, (await boards.findBoardById(trx, board.id))?.version ?? -1);
    }
    const at = nowIso();
    if (!(await markBoardDeleted(trx, board.id, at))) throw new NotFoundError('Board');
    recordEvent(trx, caller, 'board.deleted', { company: board.company_id, team: board.team_id, board: board.id }, { name: board.name }, at);
    return { _id: board.id };
  });
}
