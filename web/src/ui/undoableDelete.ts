import { useSyncExternalStore } from 'react';
import { authHeaders } from '../api.ts';
import { t } from '../strings.ts';
import { showToast } from './toasts.ts';

/**
 * A delete that can be undone (docs/decisions/0262-undo-of-deletes.md): the thing disappears from
 * the page at once and a toast offers Undo; the DELETE is sent only when the toast goes unused
 * (its ten seconds ran out, it was closed or swiped away, or the page is being left). Undo shows
 * the thing again, untouched: nothing was deleted, so its replies, files and cheers are all there.
 * Until then other people still see it.
 */
interface Pending {
  /** The DELETE's path, for the page being left (a keep-alive request outlives the page). */
  path: string;
  /** The DELETE, with its own refusal message and re-read (the card dialog's `run`). */
  remove: () => Promise<unknown>;
}

const pending = new Map<string, Pending>();
let hidden: ReadonlySet<string> = new Set();
const listeners = new Set<() => void>();

function setHidden(id: string, hide: boolean): void {
  const next = new Set(hidden);
  if (hide) next.add(id);
  else next.delete(id);
  hidden = next;
  for (const listener of listeners) listener();
}

/** Sends the delete of `id` now, if it is still waiting. */
function commit(id: string): void {
  const waiting = pending.get(id);
  if (!waiting) return;
  pending.delete(id);
  // gone on the server and re-read (or refused, and shown again): it need not be hidden any more
  waiting.remove().finally(() => setHidden(id, false));
}

/**
 * Hides `id` and offers Undo in a toast saying `text`; when the toast goes unused, runs `remove` (the
 * DELETE of `path`, which says a refusal itself and reads the thing again).
 */
export function deleteWithUndo(options: { id: string; text: string; path: string; remove: () => Promise<unknown> }): void {
  const { id, text } = options;
  pending.set(id, options);
  setHidden(id, true);
  showToast({
    kind: 'info',
    text,
    action: {
      label: t.undo,
      run: () => {
        pending.delete(id);
        setHidden(id, false);
      },
    },
    onClose: () => commit(id),
  });
}

if (typeof window !== 'undefined') {
  // Leaving the page: what waits for its toast is deleted now, by requests that outlive the page.
  window.addEventListener('pagehide', () => {
    for (const [id, waiting] of pending) {
      pending.delete(id);
      void fetch(waiting.path, { method: 'DELETE', keepalive: true, credentials: 'same-origin', headers: authHeaders() }).catch(() => undefined);
    }
  });
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** The ids deleted on this page whose Undo is still offered (or whose delete is on its way): not shown. */
export function useHiddenByUndo(): ReadonlySet<string> {
  return useSyncExternalStore(
    subscribe,
    () => hidden,
    () => hidden,
  );
}
