import { combine } from '@atlaskit/pragmatic-drag-and-drop/combine';
import { monitorForElements } from '@atlaskit/pragmatic-drag-and-drop/element/adapter';
import { autoScrollForElements } from '@atlaskit/pragmatic-drag-and-drop-auto-scroll/element';
import { extractClosestEdge } from '@atlaskit/pragmatic-drag-and-drop-hitbox/closest-edge';
import { type RefObject, useCallback, useEffect } from 'react';
import type { BoardActions, BoardView } from './store.ts';
import { type ListTarget, type TouchTarget, useTouchDrag } from './touch.ts';

/**
 * Drag and drop on the board canvas, by mouse (pragmatic-drag-and-drop) and by finger (a long
 * press): where a card or list lands, and the move it makes. The faces and columns register
 * themselves as draggables and targets; this decides what a drop means.
 */
export function useBoardDrops(canvas: RefObject<HTMLDivElement | null>, view: BoardView | undefined, actions: BoardActions): void {
  /** A card dropped on `target` (by mouse or finger): its list and index there, and the move. */
  const dropCard = useCallback(
    (view: BoardView, cardId: string, fromListId: string, target: TouchTarget) => {
      const fromList = view.lists.find((list) => list._id === fromListId);
      const fromIndex = fromList?.cards.findIndex((card) => card._id === cardId) ?? -1;
      const toList = view.lists.find((list) => list._id === target.listId);
      let index: number;
      if (target.type === 'card') {
        index = (toList?.cards.findIndex((card) => card._id === target.cardId) ?? 0) + (target.edge === 'bottom' ? 1 : 0);
        if (target.listId === fromListId && fromIndex < index) index -= 1;
      } else index = (toList?.cards.length ?? 0) - (target.listId === fromListId ? 1 : 0);
      if (target.listId === fromListId && index === fromIndex) return;
      void actions.moveCard(cardId, target.listId, Math.max(0, index));
    },
    [actions],
  );

  /** A list dropped beside another (by mouse or finger): its index there, and the move. */
  const dropList = useCallback(
    (view: BoardView, listId: string, target: ListTarget) => {
      const from = view.lists.findIndex((list) => list._id === listId);
      const over = view.lists.findIndex((list) => list._id === target.listId);
      if (from < 0 || over < 0) return;
      let index = over + (target.after ? 1 : 0);
      if (from < index) index -= 1;
      if (index !== from) void actions.moveList(listId, index);
    },
    [actions],
  );

  // Drops: the innermost target decides (a card's edge, else the list's end, else a list's edge).
  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    return combine(
      autoScrollForElements({ element }),
      monitorForElements({
        onDrop({ source, location }) {
          const target = location.current.dropTargets[0];
          if (!target || !view) return;
          if (source.data.type === 'card') {
            const to: TouchTarget | null =
              target.data.type === 'card'
                ? {
                    type: 'card',
                    listId: target.data.listId as string,
                    cardId: target.data.cardId as string,
                    edge: extractClosestEdge(target.data) === 'bottom' ? 'bottom' : 'top',
                  }
                : target.data.type === 'list'
                  ? { type: 'list', listId: target.data.listId as string }
                  : null;
            if (to) dropCard(view, source.data.cardId as string, source.data.listId as string, to);
          } else if (source.data.type === 'list' && target.data.type === 'list') {
            dropList(view, source.data.listId as string, { listId: target.data.listId as string, after: extractClosestEdge(target.data) === 'right' });
          }
        },
      }),
    );
  }, [canvas, view, dropCard, dropList]);

  const onTouchDrop = useCallback(
    (cardId: string, fromListId: string, target: TouchTarget) => view && dropCard(view, cardId, fromListId, target),
    [view, dropCard],
  );
  const onTouchListDrop = useCallback((listId: string, target: ListTarget) => view && dropList(view, listId, target), [view, dropList]);
  useTouchDrag(canvas, onTouchDrop, onTouchListDrop);
}
