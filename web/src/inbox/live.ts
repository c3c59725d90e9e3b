import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { type Card, client, unwrap } from '../api.ts';
import { followStream } from '../stream.ts';
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
 *
 * One tab follows the stream for all of them: the one holding a Web Lock, telling the others over a
 * BroadcastChannel. A browser keeps six connections per server over HTTP/1.1, and a stream held by
 * every tab beside its board's stream starved the third tab's requests.
 */
export function useNotificationStream(enabled: boolean): void {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const open = useRef(navigate);
  open.current = navigate;
  useEffect(() => {
    if (!enabled) return;
    const stop = new AbortController();
    const refresh = () => void queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY });
    const tabs = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(STREAM_CHANNEL);
    if (tabs) tabs.onmessage = refresh;
    const follow = () =>
      followStream('/api/v1/notifications/stream', stop.signal, {
        // The stream starts from now: what arrived before it opened (or while it was down) is only in a fresh read.
        opened() {
          refresh();
          tabs?.postMessage('opened');
        },
        message(message) {
          refresh();
          tabs?.postMessage('notified');
          try {
            const told = (JSON.parse(message.data) as { data?: { notification?: Told } }).data?.notification;
            if (told) void showInBrowser(told, (path) => open.current(path)).catch(() => undefined);
          } catch {
            // a frame that is not an event is only a reason to re-read
          }
        },
      });
    // The lock is held while this tab follows the stream; when the tab goes, the next one waiting takes it.
    if (navigator.locks) void navigator.locks.request(STREAM_LOCK, { signal: stop.signal }, follow).catch(() => undefined);
    else void follow();
    return () => {
      stop.abort();
      tabs?.close();
    };
  }, [enabled, queryClient]);
}

const STREAM_LOCK = 'taskboard-notifications-stream';
const STREAM_CHANNEL = 'taskboard-notifications';
