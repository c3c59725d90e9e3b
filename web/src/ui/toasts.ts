import { useSyncExternalStore } from 'react';

/**
 * Toasts: short messages at the foot of the screen, announced to screen readers and reachable by
 * keyboard (F8 moves focus to them), each with at most one action such as Undo. Radix UI keeps the
 * timing (paused while hovered or focused) and the swipe to dismiss.
 */
export interface ToastMessage {
  id: number;
  text: string;
  kind: 'info' | 'error';
  action?: { label: string; run: () => void };
  /** Called once when the toast goes without its action run (timed out, closed, swiped, replaced). */
  onClose?: () => void;
}

/** How long a toast with an action stays: long enough to reach Undo by keyboard. */
export const UNDO_WINDOW_MS = 10_000;

let toasts: ToastMessage[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => {
  for (const listener of listeners) listener();
};

export function showToast(message: Omit<ToastMessage, 'id'>): void {
  // one at a time per text: a repeated message replaces the one showing
  const next = [...toasts.filter((toast) => toast.text !== message.text), { ...message, id: nextId++ }].slice(-3);
  const gone = toasts.filter((toast) => !next.includes(toast));
  toasts = next;
  emit();
  for (const toast of gone) toast.onClose?.();
}

/** Takes a toast away; `acted`: its action was run (else it closed unused, and `onClose` is told). */
export function dismissToast(id: number, acted = false) {
  const toast = toasts.find((one) => one.id === id);
  if (!toast) return;
  toasts = toasts.filter((one) => one.id !== id);
  emit();
  if (!acted) toast.onClose?.();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** The toasts showing now. */
export function useToasts(): ToastMessage[] {
  return useSyncExternalStore(
    subscribe,
    () => toasts,
    () => toasts,
  );
}
