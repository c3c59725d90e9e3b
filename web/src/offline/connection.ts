import { useSyncExternalStore } from 'react';
import { FROM_COPY_HEADER } from './policy.ts';
import { offlineText } from './strings.ts';

/**
 * Whether the page is offline, as far as it can tell: the browser says so, or the last request
 * failed on the network, or an answer was the service worker's copy. The next answer from the
 * network (or the browser's `online`) ends it.
 */
export type Connection = 'online' | 'offline' | 'unreachable';

let reachable = true;
const listeners = new Set<() => void>();
const changed = () => {
  for (const listener of listeners) listener();
};
function setReachable(next: boolean) {
  if (reachable === next) return;
  reachable = next;
  changed();
}

// The browser's word that the network is back is taken: if the server is still away, the next request says so.
window.addEventListener('online', () => setReachable(true));

function current(): Connection {
  if (!navigator.onLine) return 'offline';
  return reachable ? 'online' : 'unreachable';
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('online', listener);
  window.addEventListener('offline', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('online', listener);
    window.removeEventListener('offline', listener);
  };
}

/** The page's connection, kept current by the browser's events and the page's own requests. */
export function useConnection(): Connection {
  return useSyncExternalStore(subscribe, current);
}

/** A request that could not be sent, or not answered, because the page is offline: said in words. */
export class OfflineError extends Error {
  override readonly name = 'OfflineError';
}

const isWrite = (method: string) => method !== 'GET' && method !== 'HEAD';

/**
 * `fetch` for the API's requests: a write while the browser is offline is refused before it is sent
 * (nothing is queued, so nothing is lost unseen: the page puts its change back and says why), and a
 * request the network fails says so in words instead of the browser's "Failed to fetch".
 */
export async function fetchOnline(input: Request | string, init?: RequestInit): Promise<Response> {
  const method = (init?.method ?? (typeof input === 'string' ? 'GET' : input.method)).toUpperCase();
  if (isWrite(method) && !navigator.onLine) throw new OfflineError(offlineText.writeRefused);
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    // a cancelled request is no sign of the network
    if ((error as Error).name === 'AbortError') throw error;
    setReachable(false);
    throw new OfflineError(isWrite(method) ? offlineText.writeRefused : offlineText.readUnavailable, { cause: error });
  }
  setReachable(!response.headers.has(FROM_COPY_HEADER));
  return response;
}
