import type { BoardView } from './store.ts';

/** Where a dragged card lands: before or after a card, or at the end of a list. */
export type CardTarget = { type: 'card'; listId: string; cardId: string; edge: 'top' | 'bottom' } | { type: 'list'; listId: string };
/** Where a dragged list lands: beside another list, before or after it in the board's order. */
export type ListTarget = { listId: string; after: boolean };

/**
 * The index a card dropped on `target` takes in the target's list (by mouse or finger), counted
 * without the card itself; null when it lands where it already is.
 */
export function cardDropIndex(view: BoardView, cardId: string, fromListId: string, target: CardTarget): number | null {
  const fromList = view.lists.find((list) => list._id === fromListId);
  const fromIndex = fromList?.cards.findIndex((card) => card._id === cardId) ?? -1;
  const toList = view.lists.find((list) => list._id === target.listId);
  let index: number;
  if (target.type === 'card') {
    index = (toList?.cards.findIndex((card) => card._id === target.cardId) ?? 0) + (target.edge === 'bottom' ? 1 : 0);
    if (target.listId === fromListId && fromIndex < index) index -= 1;
  } else index = (toList?.cards.length ?? 0) - (target.listId === fromListId ? 1 : 0);
  if (target.listId === fromListId && index === fromIndex) return null;
  return Math.max(0, index);
}

/** The index a list dropped beside another takes among the board's lists; null when it stays. */
export function listDropIndex(view: BoardView, listId: string, target: ListTarget): number | null {
  const from = view.lists.findIndex((list) => list._id === listId);
  const over = view.lists.findIndex((list) => list._id === target.listId);
  if (from < 0 || over < 0) return null;
  let index = over + (target.after ? 1 : 0);
  if (from < index) index -= 1;
  return index === from ? null : index;
}
