import { useSyncExternalStore } from 'react';
import { flushSync } from 'react-dom';
import { pageIdle } from '../idle.ts';

/**
 * Radix UI's code for tooltips, menus and popovers comes once the page is idle, not in the first
 * load (docs/decisions/0273); until then a tooltip is not shown and a menu's trigger is a plain
 * button whose click loads the code and opens the menu. One chunk for all three, so the controls
 * are mounted again inside Radix's triggers once.
 */
type Core = typeof import('./PopupCore.tsx');
let core: Core | undefined;
let loading: Promise<Core> | undefined;
const listeners = new Set<() => void>();

/** Loads Radix's code (once); every `Tip`, `Menu` and `Popover` then uses it. */
export function loadPopups(): Promise<Core> {
  loading ??= import('./PopupCore.tsx').then((module) => {
    // Each control is mounted again inside Radix's trigger; the one a person had focused meanwhile
    // keeps the focus (unless a popup opened by the swap took it). The trigger adds no element, so
    // the control is found again by its place.
    const focused = document.activeElement;
    const everything = document.getElementsByTagName('*');
    const place = focused && focused !== document.body ? Array.prototype.indexOf.call(everything, focused) : -1;
    core = module;
    flushSync(() => {
      for (const listener of listeners) listener();
    });
    const lost = !document.activeElement || document.activeElement === document.body;
    if (place >= 0 && lost && !focused?.isConnected) (everything[place] as HTMLElement | undefined)?.focus({ preventScroll: true });
    return module;
  });
  return loading;
}

/** Loads the popups' code once the page is idle. */
export function loadPopupsWhenIdle(): void {
  void pageIdle()
    .then(loadPopups)
    .catch(() => undefined);
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const loaded = () => core;

/** Radix's code once it is in, else undefined. */
export const usePopups = (): Core | undefined => useSyncExternalStore(subscribe, loaded);
