import { combine } from '@atlaskit/pragmatic-drag-and-drop/combine';
import { monitorForElements } from '@atlaskit/pragmatic-drag-and-drop/element/adapter';
import { autoScrollForElements } from '@atlaskit/pragmatic-drag-and-drop-auto-scroll/element';
import { extractClosestEdge } from '@atlaskit/pragmatic-drag-and-drop-hitbox/closest-edge';
import { type RefObject, useCallback, useEffect } from 'react';
import { cardDropIndex, type ListTarget, listDropIndex } from './placing.ts';
import type { BoardActions, BoardView } from './store.ts';
import { type TouchTarget, useTouchDrag } from './touch.ts';

/**
 * Drag and drop on the board canvas, by mouse (pragmatic-drag-and-drop) and by finger (a long
 * press): where a card or list lands, and the move it makes. The faces and columns register
 * themselves as draggables and targets; this decides what a drop means.
 */
export function useBoardDrops(canvas: RefObject<HTMLDivElement | null>, view: BoardView | undefined, actions: BoardActions): void {
  /** A card dropped on `target` (by mouse or finger): its list and index there, and the move. */
  const dropCard = useCallback(
    (view: BoardView, cardId: string, fromListId: string, target: TouchTarget) => {
      const index = cardDropIndex(view, cardId, fromListId, target);
      if (index !== null) void actions.moveCard(cardId, target.listId, index);
    },
    [actions],
  );
  /** A list dropped beside another (by mouse or finger): its index there, and the move. */
  const dropList = useCallback(
    (view: BoardView, listId: string, target: ListTarget) => {
      const index = listDropIndex(view, listId, target);
      if (index !== null) void actions.moveList(listId, index);
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
