/**
 * A long press moves a card on touch screens whose browser starts no native drag from touch (desktop
 * Chromium on Linux and Windows touch screens, for one): after the press the card follows the
 * finger, the card or list under it shows where it lands, and lifting the finger drops it there.
 * Where the browser does start a native drag (phones, tablets), that drag (pragmatic-drag-and-drop)
 * takes over and this one stands down. Written by hand: pragmatic-drag-and-drop leaves touch to the
 * browser, and a second drag library for one gesture would weigh more than these lines.
 */
import { useEffect } from 'react';

/** How long a finger rests on a card before it is lifted (Chromium's and Android's long press). */
export const LONG_PRESS_MS = 500;
/** A finger that moves this far before the press ends is scrolling, not pressing. */
const SLOP_PX = 10;

/** Where a dragged card lands: before or after a card, or at the end of a list. */
export type TouchTarget = { type: 'card'; listId: string; cardId: string; edge: 'top' | 'bottom' } | { type: 'list'; listId: string };

function targetAt(x: number, y: number, dragged: Element): { target: TouchTarget; element: Element } | null {
  const under = document.elementFromPoint(x, y);
  const card = under?.closest('[data-card-id]');
  const list = under?.closest('[data-list-id]');
  // over itself: where it was
  if (card === dragged) return null;
  if (card && list) {
    const box = card.getBoundingClientRect();
    const edge = y < box.top + box.height / 2 ? 'top' : 'bottom';
    return { target: { type: 'card', listId: list.getAttribute('data-list-id') ?? '', cardId: card.getAttribute('data-card-id') ?? '', edge }, element: card };
  }
  if (list) return { target: { type: 'list', listId: list.getAttribute('data-list-id') ?? '' }, element: list };
  return null;
}

/** Long-press drags of the cards inside `container`; `onDrop` gets the card, its list and the target. */
export function useTouchDrag(container: React.RefObject<HTMLElement | null>, onDrop: (cardId: string, fromListId: string, target: TouchTarget) => void) {
  useEffect(() => {
    const root = container.current;
    if (!root) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let start: { x: number; y: number } | null = null;
    let card: HTMLElement | null = null;
    let lifted = false;
    let marked: { element: Element; className: string } | null = null;

    const unmark = () => {
      marked?.element.classList.remove(marked.className);
      marked = null;
    };
    const end = () => {
      clearTimeout(timer);
      unmark();
      card?.classList.remove('dragging');
      card = null;
      start = null;
      lifted = false;
    };
    const onStart = (event: TouchEvent) => {
      const touch = event.touches[0];
      const pressed = (event.target as Element | null)?.closest<HTMLElement>('[data-card-id]');
      if (event.touches.length !== 1 || !touch || !pressed) return end();
      card = pressed;
      start = { x: touch.clientX, y: touch.clientY };
      timer = setTimeout(() => {
        lifted = true;
        card?.classList.add('dragging');
      }, LONG_PRESS_MS);
    };
    const onMove = (event: TouchEvent) => {
      const touch = event.touches[0];
      if (!start || !card || !touch) return;
      if (!lifted) {
        if (Math.hypot(touch.clientX - start.x, touch.clientY - start.y) > SLOP_PX) end();
        return;
      }
      // the page stays put while the card moves
      event.preventDefault();
      unmark();
      const found = targetAt(touch.clientX, touch.clientY, card);
      if (found) {
        const className = found.target.type === 'card' ? `drop-${found.target.edge}` : 'drop-end';
        found.element.classList.add(className);
        marked = { element: found.element, className };
      }
    };
    const onEnd = (event: TouchEvent) => {
      const touch = event.changedTouches[0];
      if (lifted && card && touch) {
        event.preventDefault();
        const found = targetAt(touch.clientX, touch.clientY, card);
        const cardId = card.getAttribute('data-card-id');
        const fromListId = card.closest('[data-list-id]')?.getAttribute('data-list-id');
        if (found && cardId && fromListId) onDrop(cardId, fromListId, found.target);
      }
      end();
    };
    root.addEventListener('touchstart', onStart, { passive: true });
    document.addEventListener('touchmove', onMove, { passive: false });
    document.addEventListener('touchend', onEnd, { passive: false });
    document.addEventListener('touchcancel', end);
    // the browser's own drag started: it carries the card
    document.addEventListener('dragstart', end);
    return () => {
      end();
      root.removeEventListener('touchstart', onStart);
      document.removeEventListener('touchmove', onMove);
      document.removeEventListener('touchend', onEnd);
      document.removeEventListener('touchcancel', end);
      document.removeEventListener('dragstart', end);
    };
  }, [container, onDrop]);
}
