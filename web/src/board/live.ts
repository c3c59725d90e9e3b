import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { BoardEvent } from '../api.ts';
import { fieldsKey } from '../fields/fields.ts';
import { type BoardRelation, boardRelationsKey } from '../relations/relations.ts';
import { followStream } from '../stream.ts';
import type { Person } from '../ui/Avatar.tsx';
import { inventoryKey } from './settings/inventory.ts';
import { type BoardView, boardKey, removeCard } from './store.ts';

/**
 * Every event of the stream that names a card, for whoever shows more of that card than the board
 * does (the card dialog's comments, checklists and activity): they listen here instead of opening a
 * second stream.
 */
export const cardEvents = new EventTarget();

/** The events that change what the board menu's dialogs list: lists, labels, the board, cards archived, restored, deleted, made or relabelled. */
const INVENTORY_EVENTS = /^(list|label|board)\.|^card\.(archived|unarchived|deleted|created|copied|labels\.toggled)$/;
const INVENTORY_SETTLE_MS = 250;

/**
 * The board's live stream (Server-Sent Events, read through fetch so the same code sends the API key
 * or rides the session cookie): every change applies to the open page. A card's event re-reads that
 * card (events carry changed fields, not whole records); a list's, label's or board's re-reads the
 * board. A dropped stream reconnects with Last-Event-ID, so nothing committed meanwhile is missed.
 * The stream counts the page's person as viewing the board, and its `presence` frames say who is
 * (`viewers`, the page's person among them; none while it is down).
 */
export function useBoardStream(boardId: string, refreshCard: (cardId: string) => Promise<unknown>): { connected: boolean; viewers: Person[] } {
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState(true);
  const [viewers, setViewers] = useState<Person[]>([]);
  const refresh = useRef(refreshCard);
  refresh.current = refreshCard;

  useEffect(() => {
    const stop = new AbortController();
    let lastEventId: string | undefined;
    const pendingCards = new Set<string>();
    let inventoryTimer: ReturnType<typeof setTimeout> | undefined;
    /**
     * What the board menu's dialogs list (archived items, label counts) is read again if one is open,
     * once for a burst of events (a label deleted from fifty cards is fifty events).
     */
    function inventoryChanged() {
      inventoryTimer ??= setTimeout(() => {
        inventoryTimer = undefined;
        void queryClient.invalidateQueries({ queryKey: inventoryKey(boardId) });
      }, INVENTORY_SETTLE_MS);
    }
    let flushing = false;

    async function flushCards() {
      if (flushing) return;
      flushing = true;
      try {
        while (pendingCards.size) {
          const ids = [...pendingCards];
          pendingCards.clear();
          await Promise.all(ids.map((id) => refresh.current(id).catch(() => undefined)));
        }
      } finally {
        flushing = false;
      }
    }

    const isRelated = (cardId: string) =>
      (queryClient.getQueryData<BoardRelation[]>(boardRelationsKey(boardId)) ?? []).some((one) => one.from._id === cardId || one.to._id === cardId);

    function apply(event: BoardEvent) {
      if (INVENTORY_EVENTS.test(event.type)) inventoryChanged();
      // a rule saved, paused or run: the Rules page (when open) reads its rules and their runs again
      if (event.type.startsWith('rule.')) void queryClient.invalidateQueries({ queryKey: ['rules', boardId] });
      // a recurrence saved, paused or its card made: the recurring cards' dialog (when open) reads them again
      if (event.type.startsWith('recurrence.') || event.type === 'card.created') void queryClient.invalidateQueries({ queryKey: ['recurrences', boardId] });
      if (event.type === 'card.deleted' && event.card) {
        queryClient.setQueryData<BoardView>(boardKey(boardId), (view) => (view ? removeCard(view, event.card as string) : view));
        return;
      }
      // the board's relations are read again when one comes or goes, or when a card at an end of one changes (archived, completed)
      if (event.type.startsWith('card.relation.') || (event.card && isRelated(event.card)))
        void queryClient.invalidateQueries({ queryKey: boardRelationsKey(boardId) });
      if (event.card) {
        cardEvents.dispatchEvent(new CustomEvent(event.card, { detail: event }));
        pendingCards.add(event.card);
        void flushCards();
        return;
      }
      if (event.type.startsWith('custom_field.')) {
        // a field defined, renamed, reordered or deleted: the fields are read again (the cards whose values it changed have events of their own)
        void queryClient.invalidateQueries({ queryKey: fieldsKey(boardId) });
        return;
      }
      if (/^(list|label|board)\./.test(event.type)) {
        void queryClient.invalidateQueries({ queryKey: boardKey(boardId) });
        void queryClient.invalidateQueries({ queryKey: ['labels', boardId] });
      }
    }

    void followStream(`/api/v1/boards/${boardId}/events?presence=true`, stop.signal, {
      headers: (): Record<string, string> => (lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
      async refused(response) {
        if (response.status !== 400 || !lastEventId) return false;
        // The record no longer holds our last event: read the board afresh and start from now.
        lastEventId = undefined;
        await queryClient.invalidateQueries({ queryKey: boardKey(boardId) });
        return true;
      },
      opened() {
        // A stream with no event to resume from starts from now: what changed before it listened (after
        // the first board read began, or during a drop) is only in a fresh read.
        if (!lastEventId) void queryClient.invalidateQueries({ queryKey: boardKey(boardId) });
        setConnected(true);
      },
      message(message) {
        if (message.event === 'presence') {
          try {
            setViewers((JSON.parse(message.data) as { viewers: Person[] }).viewers);
          } catch {
            // a presence frame that does not read is skipped: the next one says it all again
          }
          return;
        }
        if (message.id) lastEventId = message.id;
        try {
          apply(JSON.parse(message.data) as BoardEvent);
        } catch {
          // a frame that is not an event (none are sent today) is skipped
        }
      },
      dropped: () => {
        setConnected(false);
        setViewers([]);
      },
    });
    return () => {
      stop.abort();
      clearTimeout(inventoryTimer);
      setViewers([]);
    };
  }, [boardId, queryClient]);

  return { connected, viewers };
}
