import { useSyncExternalStore } from 'react';

/**
 * The modal dialogs open now, last opened last. A modal makes the page behind it inert, so what must
 * stay reachable while one is open (the toasts and their Undo) is shown inside the top one.
 */
let modals: readonly HTMLElement[] = [];
const listeners = new Set<() => void>();
const emit = () => {
  for (const listener of listeners) listener();
};

/** A modal has opened; the function answered says it closed. */
export function openedModal(element: HTMLElement): () => void {
  modals = [...modals, element];
  emit();
  return () => {
    modals = modals.filter((one) => one !== element);
    emit();
  };
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** The modal on top, if one is open. */
export function useTopModal(): HTMLElement | undefined {
  return useSyncExternalStore(
    subscribe,
    () => modals.at(-1),
    () => undefined,
  );
}
