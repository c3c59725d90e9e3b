/**
 * A long press moves a card, or a list by its header, on touch screens whose browser starts no native
 * drag from touch (desktop Chromium on Linux and Windows touch screens, for one): after the press a
 * copy of it follows the finger, the card or list under the finger shows where it lands, the board
 * and the list scroll while the finger rests near their edges, and lifting the finger drops it where
 * the mark showed. Where the browser does start a native drag (phones, tablets), that drag
 * (pragmatic-drag-and-drop) takes over and this one stands down. Written by hand: pragmatic-drag-and-drop
 * leaves touch to the browser, and a second drag library for one gesture would weigh more than these
 * lines (docs/decisions/0095, 0273).
 */
import { useEffect } from 'react';
import type { ListTarget, CardTarget as TouchTarget } from './placing.ts';

export type { TouchTarget };

/** How long a finger rests on a card before it is lifted (Chromium's and Android's long press). */
export const LONG_PRESS_MS = 500;
/** A finger that moves this far before the press ends is scrolling, not pressing. */
const SLOP_PX = 10;
/** A finger this near an edge of the board or of a list scrolls it, faster the nearer. */
const EDGE_PX = 56;
const MAX_STEP_PX = 18;

type Found = { element: Element; className: string; card?: TouchTarget; list?: ListTarget };

function cardTargetAt(x: number, y: number, dragged: Element): Found | null {
  const under = document.elementFromPoint(x, y);
  const card = under?.closest('[data-card-id]');
  const list = under?.closest('[data-list-id]');
  // over itself: where it was
  if (card === dragged) return null;
  if (card && list) {
    const box = card.getBoundingClientRect();
    const edge = y < box.top + box.height / 2 ? 'top' : 'bottom';
    return {
      element: card,
      className: `drop-${edge}`,
      card: { type: 'card', listId: list.getAttribute('data-list-id') ?? '', cardId: card.getAttribute('data-card-id') ?? '', edge },
    };
  }
  if (list) return { element: list, className: 'drop-end', card: { type: 'list', listId: list.getAttribute('data-list-id') ?? '' } };
  return null;
}

function listTargetAt(x: number, y: number, dragged: Element): Found | null {
  const list = document.elementFromPoint(x, y)?.closest('[data-list-id]');
  if (!list || list === dragged) return null;
  const box = list.getBoundingClientRect();
  const side = x > box.left + box.width / 2 ? 'right' : 'left';
  // right to left, the list after this one stands on its left
  const after = (side === 'right') === (getComputedStyle(list).direction !== 'rtl');
  return { element: list, className: `drop-${side}`, list: { listId: list.getAttribute('data-list-id') ?? '', after } };
}

/** How far to scroll along one axis for a finger at `at` between `start` and `end` (0 away from the edges). */
function edgeStep(at: number, start: number, end: number): number {
  if (at < start + EDGE_PX) return -Math.ceil((MAX_STEP_PX * (start + EDGE_PX - at)) / EDGE_PX);
  if (at > end - EDGE_PX) return Math.ceil((MAX_STEP_PX * (at - (end - EDGE_PX))) / EDGE_PX);
  return 0;
}

/**
 * Long-press drags inside `container` (the board's canvas, which scrolls sideways): cards to
 * `onCardDrop`, lists (pressed by their header) to `onListDrop`.
 */
export function useTouchDrag(
  container: React.RefObject<HTMLElement | null>,
  onCardDrop: (cardId: string, fromListId: string, target: TouchTarget) => void,
  onListDrop?: (listId: string, target: ListTarget) => void,
) {
  useEffect(() => {
    const root = container.current;
    if (!root) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let start: { x: number; y: number } | null = null;
    let finger = { x: 0, y: 0 };
    let item: HTMLElement | null = null;
    let fromListId: string | null = null;
    // a touch's moves go to the element it started on, even once the list has stopped rendering it
    // (scrolled far off): they are heard there, not on the document
    let touched: EventTarget | null = null;
    let kind: 'card' | 'list' = 'card';
    let ghost: HTMLElement | null = null;
    let lifted = false;
    let found: Found | null = null;
    let frame = 0;

    const unmark = () => {
      found?.element.classList.remove(found.className);
      found = null;
    };
    const end = () => {
      clearTimeout(timer);
      cancelAnimationFrame(frame);
      unmark();
      item?.classList.remove('dragging');
      root.classList.remove('touch-carrying');
      ghost?.remove();
      ghost = item = start = fromListId = null;
      lifted = false;
      touched?.removeEventListener('touchmove', onMove as EventListener);
      touched?.removeEventListener('touchend', onEnd as EventListener);
      touched?.removeEventListener('touchcancel', end);
      touched = null;
    };
    /** Marks what is under the finger: where the drop will land. */
    const mark = () => {
      if (!item) return;
      unmark();
      found = kind === 'card' ? cardTargetAt(finger.x, finger.y, item) : listTargetAt(finger.x, finger.y, item);
      found?.element.classList.add(found.className);
    };
    /** While lifted: the board and the list under the finger scroll when it rests near their edges. */
    const scroll = () => {
      const board = root.getBoundingClientRect();
      let moved = false;
      const sideways = edgeStep(finger.x, board.left, board.right);
      if (sideways && root.scrollWidth > root.clientWidth) {
        const before = root.scrollLeft;
        root.scrollLeft += sideways;
        moved ||= root.scrollLeft !== before;
      }
      const cards = kind === 'card' ? document.elementFromPoint(finger.x, finger.y)?.closest<HTMLElement>('.list-cards') : null;
      if (cards) {
        const box = cards.getBoundingClientRect();
        const down = edgeStep(finger.y, box.top, box.bottom);
        const before = cards.scrollTop;
        if (down) cards.scrollTop += down;
        moved ||= cards.scrollTop !== before;
      }
      // what is under a resting finger changed: the mark follows it
      if (moved) mark();
      frame = requestAnimationFrame(scroll);
    };
    const lift = (x: number, y: number) => {
      if (!item) return;
      lifted = true;
      item.classList.add('dragging');
      root.classList.add('touch-carrying');
      // a copy of what is lifted, under the finger; the page's own element stays as the placeholder
      const shown = kind === 'card' ? item : (item.querySelector<HTMLElement>('.list-header') ?? item);
      const box = shown.getBoundingClientRect();
      ghost = shown.cloneNode(true) as HTMLElement;
      ghost.removeAttribute('id');
      ghost.setAttribute('aria-hidden', 'true');
      ghost.className = `${shown.className} touch-ghost${kind === 'list' ? ' touch-ghost-list' : ''}`;
      ghost.style.width = `${box.width}px`;
      ghost.style.left = `${box.left}px`;
      ghost.style.top = `${box.top}px`;
      ghost.dataset.dx = String(x);
      ghost.dataset.dy = String(y);
      document.body.append(ghost);
      frame = requestAnimationFrame(scroll);
    };
    const follow = () => {
      if (ghost) ghost.style.transform = `translate(${finger.x - Number(ghost.dataset.dx)}px, ${finger.y - Number(ghost.dataset.dy)}px) rotate(2deg)`;
    };
    const onStart = (event: TouchEvent) => {
      const touch = event.touches[0];
      const target = event.target as Element | null;
      const card = target?.closest<HTMLElement>('[data-card-id]');
      // a list is lifted by its header, but not from its menu or a field in it
      const header = !card && onListDrop && !target?.closest('button[aria-haspopup], input, textarea') ? target?.closest('.list-header') : null;
      const pressed = card ?? header?.closest<HTMLElement>('[data-list-id]');
      if (event.touches.length !== 1 || !touch || !pressed) return end();
      item = pressed;
      fromListId = pressed.closest('[data-list-id]')?.getAttribute('data-list-id') ?? null;
      kind = card ? 'card' : 'list';
      touched = event.target;
      touched?.addEventListener('touchmove', onMove as EventListener, { passive: false });
      touched?.addEventListener('touchend', onEnd as EventListener, { passive: false });
      touched?.addEventListener('touchcancel', end);
      start = finger = { x: touch.clientX, y: touch.clientY };
      timer = setTimeout(() => lift(touch.clientX, touch.clientY), LONG_PRESS_MS);
    };
    const onMove = (event: TouchEvent) => {
      const touch = event.touches[0];
      if (!start || !item || !touch) return;
      finger = { x: touch.clientX, y: touch.clientY };
      if (!lifted) {
        if (Math.hypot(finger.x - start.x, finger.y - start.y) > SLOP_PX) end();
        return;
      }
      // the page stays put while the card moves
      event.preventDefault();
      follow();
      mark();
    };
    const onEnd = (event: TouchEvent) => {
      if (lifted && item) {
        event.preventDefault();
        // the drop lands where the mark showed, not wherever the last scroll left the finger
        const cardId = item.getAttribute('data-card-id');
        if (found?.card && cardId && fromListId) onCardDrop(cardId, fromListId, found.card);
        const listId = item.getAttribute('data-list-id');
        if (found?.list && kind === 'list' && listId) onListDrop?.(listId, found.list);
      }
      end();
    };
    root.addEventListener('touchstart', onStart, { passive: true });
    // the browser's own drag started: it carries the card
    document.addEventListener('dragstart', end);
    return () => {
      end();
      root.removeEventListener('touchstart', onStart);
      document.removeEventListener('dragstart', end);
    };
  }, [container, onCardDrop, onListDrop]);
}
