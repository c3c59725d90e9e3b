import { type QueryClient, queryOptions } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { type CardFace, client, unwrap } from '../../api.ts';
import { type BoardView, boardKey } from '../store.ts';

export type List = components['schemas']['List'];

/**
 * What a board holds beyond what its page shows: every list (archived ones too), the archived cards
 * of every list, and the cards of archived lists. Read when a settings dialog opens or a deletion
 * is asked, never by the board page itself: the archive view, the label counts and the board
 * deletion's confirmation all come from it ([0160](../../../../docs/decisions/0160-board-settings.md)).
 */
export interface Inventory {
  board: { _id: string; name: string; team: string; company: string };
  lists: List[];
  archivedLists: List[];
  /** Archived cards of every list, in list order then position. */
  archivedCards: CardFace[];
  /** The unarchived cards of archived lists (they come back with their list). */
  cardsOfArchivedLists: CardFace[];
  /** The unarchived cards of unarchived lists, when the board page did not have them all. */
  cardsOnBoard: CardFace[] | null;
}

export const inventoryKey = (boardId: string) => ['board-inventory', boardId] as const;

/** Lists read at once: a board of fifty lists is read three lists at a time, as the board page reads its further pages. */
const LISTS_AT_ONCE = 3;

async function facesOf(listId: string, archived: boolean, signal?: AbortSignal): Promise<CardFace[]> {
  const all: CardFace[] = [];
  let cursor: string | null = null;
  do {
    const query: { archived: boolean; limit: number; cursor?: string } = { archived, limit: 200, ...(cursor ? { cursor } : {}) };
    const page = unwrap(await client.GET('/api/v1/lists/{listId}/card-faces', { params: { path: { listId }, query }, signal }));
    all.push(...page.cards);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

async function eachList<T>(lists: List[], read: (list: List) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(lists.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    const index = next++;
    const list = lists[index];
    if (!list) return;
    out[index] = await read(list);
    return worker();
  };
  await Promise.all(Array.from({ length: LISTS_AT_ONCE }, worker));
  return out;
}

/** The board's inventory; `view` is the board page's read (its cards are not read again when it has them all). */
export async function readInventory(boardId: string, view: BoardView | undefined, signal?: AbortSignal): Promise<Inventory> {
  const { board } = unwrap(await client.GET('/api/v1/boards/{boardId}/lists', { params: { path: { boardId }, query: { archived: true } }, signal }));
  const lists = board.lists;
  const complete = view && view.lists.every((list) => list.nextCursor === null);
  const parts = await eachList(lists, async (list) => ({
    archived: await facesOf(list._id, true, signal),
    // an archived list's cards, or (without a complete board read) a list's cards on the board
    current: list.archived.status || !complete ? await facesOf(list._id, false, signal) : [],
  }));
  const onBoard = lists.flatMap((list, index) => (list.archived.status ? [] : (parts[index]?.current ?? [])));
  return {
    board: { _id: board._id, name: board.name, team: board.team, company: board.company },
    lists,
    archivedLists: lists.filter((list) => list.archived.status),
    archivedCards: parts.flatMap((part) => part.archived),
    cardsOfArchivedLists: lists.flatMap((list, index) => (list.archived.status ? (parts[index]?.current ?? []) : [])),
    cardsOnBoard: complete ? null : onBoard,
  };
}

export const inventoryQuery = (queryClient: QueryClient, boardId: string) =>
  queryOptions({
    queryKey: inventoryKey(boardId),
    queryFn: ({ signal }) => readInventory(boardId, queryClient.getQueryData<BoardView>(boardKey(boardId)), signal),
    staleTime: 0,
  });

/** Every card of the board, archived or not, in one array: what a label count or a deletion counts. */
export function allCards(inventory: Inventory, view: BoardView | undefined): CardFace[] {
  const onBoard = inventory.cardsOnBoard ?? (view?.lists ?? []).flatMap((list) => list.cards);
  const seen = new Set<string>();
  return [...onBoard, ...inventory.archivedCards, ...inventory.cardsOfArchivedLists].filter((card) => !seen.has(card._id) && seen.add(card._id));
}
