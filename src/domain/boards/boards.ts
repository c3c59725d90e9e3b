import type { Board } from '../../schemas/records.ts';
import type { BoardWithLists, BoardWithListsAndCards, ListWithCards } from '../../schemas/boards.ts';
import * as boards from '../../storage/repositories/boards.ts';
import { findListsOfBoard } from '../../storage/repositories/lists.ts';
import { loadCards } from '../cards/service.ts';
import type { ServiceContext } from '../context.ts';
import { requireAccess } from '../access/access.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { toBoard, toList } from './records.ts';

const CARD_CHUNK = 500;

/** Creates a board in a team the caller reaches (team member, or company owner/admin). */
export async function createBoard(
  ctx: ServiceContext,
  caller: Caller,
  input: { teamId: string; companyId?: string | undefined; name: string },
): Promise<Board> {
  const team = await requireAccess(ctx.db, caller, { kind: 'team', id: input.teamId, scope: { companyId: input.companyId } });
  const now = nowIso();
  const row = {
    id: newId(),
    company_id: team.company_id,
    team_id: team.id,
    name: input.name.trim(),
    creator_id: caller.userId,
    created_at: now,
    updated_at: now,
    version: 0,
  };
  await boards.insertBoard(ctx.db, row);
  return toBoard(row);
}

/** Boards the caller reaches, narrowed by the scope, oldest first. */
export async function listBoards(ctx: ServiceContext, caller: Caller, scope: Scope): Promise<Board[]> {
  const reach = await requireAccess(ctx.db, caller, { kind: 'collection', scope });
  return (await boards.listReachableBoards(ctx.db, reach)).map(toBoard);
}

/** The board with its lists in position order. */
export async function getBoardWithLists(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  scope: Scope,
): Promise<BoardWithLists> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const lists = await findListsOfBoard(ctx.db, board.id);
  return { ...toBoard(board), lists: lists.map(toList) };
}

/** The board with its lists, each with its unarchived cards as full card records, in position order. */
export async function getBoardWithListsAndCards(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  scope: Scope,
): Promise<BoardWithListsAndCards> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const [lists, cardRefs] = await Promise.all([
    findListsOfBoard(ctx.db, board.id),
    boards.findUnarchivedCardIdsOfBoard(ctx.db, board.id),
  ]);
  const cardsByList = new Map<string, ListWithCards['cards']>(lists.map((list) => [list.id, []]));
  // in chunks, so a large board stays within the parameters one statement takes; loadCards keeps
  // the order of the ids, which is already position order
  for (let start = 0; start < cardRefs.length; start += CARD_CHUNK) {
    const ids = cardRefs.slice(start, start + CARD_CHUNK).map((c) => c.id);
    for (const card of await loadCards(ctx, ids)) cardsByList.get(card.list)?.push(card);
  }
  return {
    ...toBoard(board),
    lists: lists.map((list) => ({ ...toList(list), cards: cardsByList.get(list.id) ?? [] })),
  };
}
