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
  toasts = [...toasts.filter((toast) => toast.text !== message.text), { ...message, id: nextId++ }].slice(-3);
  emit();
}

export function dismissToast(id: number) {
  toasts = toasts.filter((toast) => toast.id !== id);
  emit();
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
