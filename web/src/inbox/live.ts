import { useQueryClient } from '@tanstack/react-query';
import { createParser } from 'eventsource-parser';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { authHeaders, type Card, client, unwrap } from '../api.ts';
import { t } from '../strings.ts';

/** Every cached read of the caller's notifications (the bell's count, the inbox's pages). */
export const NOTIFICATIONS_KEY = ['notifications'] as const;

/** Whether this browser can show its own notifications (the Notifications API is there). */
export const browserNotificationsExist = () => typeof Notification !== 'undefined';

type Told = { _id: string; type: string; card: string | null };

/**
 * The browser's own notification of one of ours, when the person allowed them: its card's name, and a
 * click opens the card. The tag is the notification's id, so several open tabs show it once.
 */
async function showInBrowser(told: Told, open: (path: string) => void): Promise<void> {
  if (!browserNotificationsExist() || Notification.permission !== 'granted' || !told.card) return;
  const card = unwrap(await client.GET('/api/v1/cards/{cardId}', { params: { path: { cardId: told.card } } })).card as Card;
  const shown = new Notification(t.product, { body: t.notificationText(told.type, card.name), tag: told._id });
  shown.onclick = () => {
    window.focus();
    open(`/boards/${card.board}?card=${card._id}`);
    shown.close();
  };
}

/**
 * Follows the caller's notifications stream (Server-Sent Events read through fetch, so the API key or
 * the session cookie rides along, as the board stream does): each new notification re-reads the bell
 * and the inbox, and shows the browser's own notification when allowed. Each (re)connect re-reads
 * the count instead of replaying with Last-Event-ID: the bell needs the count, not each event.
 */
export function useNotificationStream(enabled: boolean): void {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const open = useRef(navigate);
  open.current = navigate;
  useEffect(() => {
    if (!enabled) return;
    const stop = new AbortController();
    let attempt = 0;
    const refresh = () => void queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY });

    async function run() {
      while (!stop.signal.aborted) {
        try {
          const response = await fetch('/api/v1/notifications/stream', {
            headers: { Accept: 'text/event-stream', ...authHeaders() },
            credentials: 'same-origin',
            signal: stop.signal,
            cache: 'no-store',
          });
          if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
          // The stream starts from now: what arrived before it opened (or while it was down) is only in a fresh read.
          refresh();
          attempt = 0;
          const parser = createParser({
            onEvent(message) {
              refresh();
              try {
                const told = (JSON.parse(message.data) as { data?: { notification?: Told } }).data?.notification;
                if (told) void showInBrowser(told, (path) => open.current(path)).catch(() => undefined);
              } catch {
                // a frame that is not an event is only a reason to re-read
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
          attempt += 1;
          const wait = Math.min(10_000, 500 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    }
    void run();
    return () => stop.abort();
  }, [enabled, queryClient]);
}
