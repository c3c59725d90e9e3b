import { useQueryClient } from '@tanstack/react-query';
import { createParser } from 'eventsource-parser';
import { useEffect, useRef, useState } from 'react';
import { authHeaders, type BoardEvent } from '../api.ts';
import { type BoardView, boardKey, removeCard } from './store.ts';

/**
 * Every event of the stream that names a card, for whoever shows more of that card than the board
 * does (the card dialog's comments, checklists and activity): they listen here instead of opening a
 * second stream.
 */
export const cardEvents = new EventTarget();

/**
 * The board's live stream (Server-Sent Events, read through fetch so the same code sends the API key
 * or rides the session cookie): every change applies to the open page. A card's event re-reads that
 * card (events carry changed fields, not whole records); a list's, label's or board's re-reads the
 * board. A dropped stream reconnects with Last-Event-ID, so nothing committed meanwhile is missed.
 */
export function useBoardStream(boardId: string, refreshCard: (cardId: string) => Promise<unknown>): { connected: boolean } {
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState(true);
  const refresh = useRef(refreshCard);
  refresh.current = refreshCard;

  useEffect(() => {
    const stop = new AbortController();
    let lastEventId: string | undefined;
    let attempt = 0;
    const pendingCards = new Set<string>();
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

    function apply(event: BoardEvent) {
      if (event.type === 'card.deleted' && event.card) {
        queryClient.setQueryData<BoardView>(boardKey(boardId), (view) => (view ? removeCard(view, event.card as string) : view));
        return;
      }
      if (event.card) {
        cardEvents.dispatchEvent(new CustomEvent(event.card, { detail: event }));
        pendingCards.add(event.card);
        void flushCards();
        return;
      }
      if (/^(list|label|board)\./.test(event.type)) {
        void queryClient.invalidateQueries({ queryKey: boardKey(boardId) });
        void queryClient.invalidateQueries({ queryKey: ['labels', boardId] });
      }
    }

    async function run() {
      while (!stop.signal.aborted) {
        try {
          const headers: Record<string, string> = { Accept: 'text/event-stream', ...authHeaders() };
          if (lastEventId) headers['Last-Event-ID'] = lastEventId;
          const response = await fetch(`/api/v1/boards/${boardId}/events`, { headers, credentials: 'same-origin', signal: stop.signal, cache: 'no-store' });
          if (response.status === 400 && lastEventId) {
            // The record no longer holds our last event: read the board afresh and start from now.
            lastEventId = undefined;
            await queryClient.invalidateQueries({ queryKey: boardKey(boardId) });
            continue;
          }
          if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
          // Back after a drop with no event to resume from: what changed meanwhile is only in a fresh read.
          if (attempt > 0 && !lastEventId) void queryClient.invalidateQueries({ queryKey: boardKey(boardId) });
          setConnected(true);
          attempt = 0;
          const parser = createParser({
            onEvent(message) {
              if (message.id) lastEventId = message.id;
              try {
                apply(JSON.parse(message.data) as BoardEvent);
              } catch {
                // a frame that is not an event (none are sent today) is skipped
              }
            },
          });
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            parser.feed(value);
          }
          throw new Error('stream ended');
        } catch {
          if (stop.signal.aborted) return;
          setConnected(false);
          attempt += 1;
          const wait = Math.min(10_000, 500 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    }
    void run();
    return () => stop.abort();
  }, [boardId, queryClient]);

  return { connected };
}
