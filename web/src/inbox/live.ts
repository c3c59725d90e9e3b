import { useQueryClient } from '@tanstack/react-query';
import { createParser } from 'eventsource-parser';
import { useEffect } from 'react';
import { authHeaders } from '../api.ts';

/** Every cached read of the caller's notifications (the bell's count, the inbox's pages). */
export const NOTIFICATIONS_KEY = ['notifications'] as const;

/**
 * Follows the caller's notifications stream (Server-Sent Events read through fetch, so the API key or
 * the session cookie rides along, as the board stream does): each new notification re-reads the bell
 * and the inbox. The stream has no replay the bell needs, so a reconnect simply re-reads the count.
 */
export function useNotificationStream(enabled: boolean): void {
  const queryClient = useQueryClient();
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
          // What arrived while the stream was down is only in a fresh read.
          if (attempt > 0) refresh();
          attempt = 0;
          const parser = createParser({ onEvent: refresh });
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
