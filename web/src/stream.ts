import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { authHeaders } from './api.ts';
import { pageIdle } from './idle.ts';

export interface StreamHandlers {
  /** Headers of each attempt beside the credentials (the board's `Last-Event-ID`). */
  headers?: () => Record<string, string>;
  /** A refused answer the caller deals with itself: true reconnects at once, false counts as a drop. */
  refused?: (response: Response) => Promise<boolean> | boolean;
  /** The stream is open; `afterDrop` when an earlier attempt failed. */
  opened: (afterDrop: boolean) => void;
  message: (message: EventSourceMessage) => void;
  /** The stream failed or ended; the next attempt follows after a backoff. */
  dropped?: () => void;
}

/**
 * Follows a Server-Sent Events stream of the API until `signal` aborts. Read through fetch rather than
 * EventSource so the same code sends the API key or rides the session cookie; a dropped stream comes
 * back after a growing, jittered wait (at most 10 s), or as soon as the browser is back online.
 *
 * A stream never ends, so it starts once the page has loaded and is idle, at low priority: it takes
 * no connection from the first reads, and a page load counts as finished without it (Lighthouse
 * waits for the network to go quiet). What changed before it opened is re-read by `opened`.
 */
export async function followStream(path: string, signal: AbortSignal, on: StreamHandlers): Promise<void> {
  await pageIdle(signal);
  let attempt = 0;
  while (!signal.aborted) {
    try {
      const headers = { Accept: 'text/event-stream', ...authHeaders(), ...on.headers?.() };
      const response = await fetch(path, { headers, credentials: 'same-origin', signal, cache: 'no-store', priority: 'low' });
      if (!response.ok && (await on.refused?.(response))) continue;
      if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
      on.opened(attempt > 0);
      attempt = 0;
      const parser = createParser({ onEvent: on.message });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
      throw new Error('stream ended');
    } catch {
      if (signal.aborted) return;
      on.dropped?.();
      attempt += 1;
      const wait = Math.min(10_000, 500 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
      await backOnlineOr(wait);
    }
  }
}

/** Resolves after `ms`, or earlier when the browser comes back online. */
function backOnlineOr(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener('online', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    window.addEventListener('online', done);
  });
}
