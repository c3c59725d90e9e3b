import { type ReactNode, useState } from 'react';
import type { MenuItem } from './menu-item.ts';
import { loadPopups, usePopups } from './popups.ts';
import './ui.css';

/**
 * The design system's menus and popovers, on Radix UI's Popover (focus moves in and back, Escape and
 * outside clicks close it: the library's, not ours). A menu is a popover of action buttons, as
 * Trello's list and board menus are; one primitive keeps the board's first load small
 * (docs/decisions/0211-design-system.md). Radix's code comes after the first load (./popups.ts):
 * a click on the trigger before it has come loads it and opens the menu.
 */
export type { MenuItem } from './menu-item.ts';

export function Menu({ trigger, label, items, align = 'end' }: { trigger: ReactNode; label: string; items: MenuItem[]; align?: 'start' | 'end' }) {
  const core = usePopups();
  const [asked, setAsked] = useState(false);
  if (core) return <core.RadixMenu trigger={trigger} label={label} items={items} align={align} initiallyOpen={asked} />;
  return (
    <button type="button" className="menu-trigger" aria-label={label} aria-haspopup="dialog" aria-expanded={false} onClick={() => openWhenLoaded(setAsked)}>
      {trigger}
    </button>
  );
}

export function Popover({ trigger, label, children, className }: { trigger: ReactNode; label: string; children: ReactNode; className?: string }) {
  const core = usePopups();
  const [asked, setAsked] = useState(false);
  const classes = `popover-trigger${className ? ` ${className}` : ''}`;
  if (core)
    return (
      <core.RadixPopoverBox trigger={trigger} label={label} className={classes} initiallyOpen={asked}>
        {children}
      </core.RadixPopoverBox>
    );
  return (
    <button type="button" className={classes} aria-haspopup="dialog" aria-expanded={false} onClick={() => openWhenLoaded(setAsked)}>
      {trigger}
    </button>
  );
}

/** A click before Radix's code came: it opens once the code is in. */
function openWhenLoaded(setAsked: (asked: boolean) => void) {
  setAsked(true);
  void loadPopups().catch(() => setAsked(false));
}
