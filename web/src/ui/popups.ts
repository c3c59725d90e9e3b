import type { QueryClient } from '@tanstack/react-query';
import { startTransition, useEffect, useLayoutEffect, useState } from 'react';
import { pageSettled } from '../idle.ts';

/**
 * Radix UI's code for tooltips, menus and popovers comes once the page is idle, not in the first
 * load (docs/decisions/0273); until then a tooltip is not shown and a menu's trigger is a plain
 * button whose click loads the code and opens the menu. One chunk for all three, so the controls
 * are mounted again inside Radix's triggers once: in a transition (docs/decisions/0279), which React
 * renders in slices, so a board with many menus is not held for the whole swap at once.
 */
type Core = typeof import('./PopupCore.tsx');
let core: Core | undefined;
let loading: Promise<Core> | undefined;
const listeners = new Set<() => void>();
/** The control that had the focus when the code came, and its place among the page's elements. */
let swapped: { focused: Element; place: number } | undefined;

/** Loads Radix's code (once); every `Tip`, `Menu` and `Popover` then uses it. */
export function loadPopups(): Promise<Core> {
  loading ??= import('./PopupCore.tsx').then((module) => {
    // Each control is mounted again inside Radix's trigger; the one a person had focused meanwhile
    // keeps the focus (unless a popup opened by the swap took it). The trigger adds no element, so
    // the control is found again by its place once the swap is drawn.
    const focused = document.activeElement;
    if (focused && focused !== document.body) swapped = { focused, place: Array.prototype.indexOf.call(document.getElementsByTagName('*'), focused) };
    core = module;
    startTransition(() => {
      for (const listener of listeners) listener();
    });
    return module;
  });
  return loading;
}

/** After the swap is drawn: the focus back on the control that had it, if the swap took it away. */
function keepFocus(): void {
  if (!swapped) return;
  const { focused, place } = swapped;
  swapped = undefined;
  const lost = !document.activeElement || document.activeElement === document.body;
  if (!lost || focused.isConnected) return;
  const found = document.getElementsByTagName('*')[place] as HTMLElement | undefined;
  // the same control, unless the page changed meanwhile
  if (
    found?.tagName === focused.tagName &&
    found.getAttribute('aria-label') === focused.getAttribute('aria-label') &&
    found.textContent === focused.textContent
  )
    found.focus({ preventScroll: true });
}

/** Loads the popups' code once the page is idle and its reads are in (their download must not hold the reads back). */
export function loadPopupsWhenSettled(queryClient: QueryClient): () => void {
  const leaving = new AbortController();
  void pageSettled(queryClient, leaving.signal)
    .then(() => (leaving.signal.aborted ? undefined : loadPopups()))
    .catch(() => undefined);
  return () => leaving.abort();
}

/** Radix's code once it is in, else undefined. */
export function usePopups(): Core | undefined {
  const [mine, setMine] = useState(core);
  useEffect(() => {
    if (mine) return;
    const listener = () => setMine(core);
    listeners.add(listener);
    // the code came between this control's render and now
    if (core) startTransition(listener);
    return () => void listeners.delete(listener);
  }, [mine]);
  useLayoutEffect(() => {
    if (mine) keepFocus();
  }, [mine]);
  return mine;
}
