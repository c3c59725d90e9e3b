import { type ReactElement, useSyncExternalStore } from 'react';
import { flushSync } from 'react-dom';
import { pageIdle } from '../idle.ts';
import './ui.css';

/**
 * A short name shown on hover and keyboard focus of a control that shows only an icon: Radix UI's
 * Tooltip (it opens after a pause, closes on Escape, and names nothing new: the control keeps its own
 * accessible name). Radix's tooltip code comes once the page is idle, not in the first load; until
 * then the control shows as it is (docs/decisions/0273).
 */
let core: typeof import('./TooltipCore.tsx') | undefined;
const listeners = new Set<() => void>();
let asked = false;

/** Loads the tooltips once the page is idle; every `Tip` then shows its name on hover and focus. */
export function loadTooltipsWhenIdle(): void {
  if (asked) return;
  asked = true;
  void pageIdle()
    .then(() => import('./TooltipCore.tsx'))
    .then((module) => {
      // Each control is mounted again inside Radix's trigger; the one a person had focused meanwhile
      // keeps the focus. The trigger adds no element, so the control is found again by its place.
      const focused = document.activeElement;
      const everything = document.getElementsByTagName('*');
      const place = focused && focused !== document.body ? Array.prototype.indexOf.call(everything, focused) : -1;
      core = module;
      flushSync(() => {
        for (const listener of listeners) listener();
      });
      if (place >= 0 && !focused?.isConnected) (everything[place] as HTMLElement | undefined)?.focus({ preventScroll: true });
    })
    .catch(() => undefined);
}
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const loaded = () => core;

/** `children` is the control itself: one element that takes a ref. */
export function Tip({ label, children, side = 'bottom' }: { label: string; children: ReactElement; side?: 'top' | 'bottom' }) {
  const module = useSyncExternalStore(subscribe, loaded);
  return module ? (
    <module.RadixTip label={label} side={side}>
      {children}
    </module.RadixTip>
  ) : (
    children
  );
}
