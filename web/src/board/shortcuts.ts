import type { KeyboardEvent, RefObject } from 'react';
import { useEffect } from 'react';
import type { CardFace } from '../api.ts';
import type { Scrollers } from './ListColumn.tsx';
import type { BoardActions, BoardView } from './store.ts';

/** `?` opens the shortcuts' help anywhere on the board, outside fields. */
export function useHelpKey(open: () => void): void {
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      const field = (event.target as HTMLElement).closest('input, textarea, select, [contenteditable], dialog');
      if (!field && event.key === '?') {
        event.preventDefault();
        open();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
}

export interface CardKeysContext {
  view: BoardView;
  /** The cards each list shows now (the filters applied), by the lists' order. */
  visible: CardFace[][];
  actions: BoardActions;
  openCard: (cardId: string, focus?: string) => void;
  scrollers: RefObject<Scrollers>;
  composers: RefObject<Map<string, () => void>>;
  myId: string | undefined;
  openHelp: () => void;
}

/** Trello's shortcuts on a focused card face (the help dialog lists them), and moving focus between faces. */
export function cardKeyHandler({ view, visible, actions, openCard, scrollers, composers, myId, openHelp }: CardKeysContext) {
  const focusCard = (listIndex: number, cardIndex: number) => {
    const list = view.lists[listIndex];
    const cards = visible[listIndex];
    if (!list || !cards?.length) return;
    const index = Math.max(0, Math.min(cardIndex, cards.length - 1));
    const id = cards[index]?._id;
    const find = () => document.querySelector<HTMLElement>(`[data-card-id="${id}"]`);
    const element = find();
    if (element) return element.focus();
    document.querySelector(`[data-list-id="${list._id}"]`)?.scrollIntoView({ inline: 'nearest', block: 'nearest' });
    scrollers.current.get(list._id)?.(index);
    // the list's cards may still be drawing (a list scrolled into view draws them in a transition)
    const focusWhenShown = (frames: number) =>
      requestAnimationFrame(() => {
        const shown = find();
        if (shown) shown.focus();
        else if (frames > 0) focusWhenShown(frames - 1);
      });
    focusWhenShown(30);
  };

  return (event: KeyboardEvent<HTMLElement>, listIndex: number, cardIndex: number, card: CardFace) => {
    if (event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.key;
    const handled = () => event.preventDefault();
    // Trello's shortcuts on a focused card (the help dialog lists them).
    const shortcuts = new Map<string, (() => unknown) | undefined>([
      ['ArrowDown', () => focusCard(listIndex, cardIndex + 1)],
      ['ArrowUp', () => focusCard(listIndex, cardIndex - 1)],
      ['Enter', () => openCard(card._id)],
      ['e', () => openCard(card._id, 'name')],
      ['l', () => openCard(card._id, 'labels')],
      ['m', () => openCard(card._id, 'members')],
      ['d', () => openCard(card._id, 'due')],
      ['n', () => composers.current.get(card.list)?.()],
      ['c', () => void actions.archiveCard(card._id).then(() => focusCard(listIndex, cardIndex))],
      ['?', () => openHelp()],
      [' ', myId ? () => void actions.toggleMembers(card._id, [myId]) : undefined],
    ]);
    const shortcut = shortcuts.get(key);
    if (shortcut) {
      handled();
      shortcut();
      return;
    }
    if (key === 'ArrowRight' || key === 'ArrowLeft') {
      handled();
      // the arrow towards the next list: right to left, that is the left one
      const forward = document.documentElement.dir === 'rtl' ? 'ArrowLeft' : 'ArrowRight';
      const step = key === forward ? 1 : -1;
      for (let next = listIndex + step; next >= 0 && next < view.lists.length; next += step) if (visible[next]?.length) return focusCard(next, cardIndex);
      return;
    }
    if (key === '<' || key === '>' || key === ',' || key === '.') {
      handled();
      const target = view.lists[listIndex + (key === '<' || key === ',' ? -1 : 1)];
      if (!target) return;
      const index = Math.min(cardIndex, target.cards.length);
      void actions
        .moveCard(card._id, target._id, index)
        .then(() => requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-card-id="${card._id}"]`)?.focus()));
    }
  };
}
