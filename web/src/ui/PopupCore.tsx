import * as RadixPopover from '@radix-ui/react-popover';
import * as RadixTooltip from '@radix-ui/react-tooltip';
import { type ReactElement, type ReactNode, useState } from 'react';
import type { MenuItem } from './menu-item.ts';

/**
 * Radix UI's Tooltip and Popover, behind the design system's `Tip`, `Menu` and `Popover` (see
 * popups.ts, which loads this after the first load): focus moves in and back, Escape and outside
 * clicks close them, the library's doing, not ours.
 */
export function RadixTip({ label, children, side }: { label: string; children: ReactElement; side: 'top' | 'bottom' }) {
  return (
    <RadixTooltip.Provider delayDuration={500}>
      <RadixTooltip.Root>
        <RadixTooltip.Trigger asChild>{children}</RadixTooltip.Trigger>
        <RadixTooltip.Portal>
          <RadixTooltip.Content className="ui-tooltip" side={side} sideOffset={6} collisionPadding={8}>
            {label}
          </RadixTooltip.Content>
        </RadixTooltip.Portal>
      </RadixTooltip.Root>
    </RadixTooltip.Provider>
  );
}

export function RadixMenu(props: { trigger: ReactNode; label: string; items: MenuItem[]; align: 'start' | 'end'; initiallyOpen: boolean }) {
  const [open, setOpen] = useState(props.initiallyOpen);
  return (
    <RadixPopover.Root open={open} onOpenChange={setOpen}>
      {/* the trigger shows an icon only: its name shows on hover and focus too */}
      <RadixTip label={props.label} side="bottom">
        <RadixPopover.Trigger className="menu-trigger" aria-label={props.label}>
          {props.trigger}
        </RadixPopover.Trigger>
      </RadixTip>
      <RadixPopover.Portal>
        <RadixPopover.Content className="ui-menu" aria-label={props.label} align={props.align} sideOffset={4} collisionPadding={8}>
          {props.items.map((item) => (
            <button
              key={item.label}
              type="button"
              className={`ui-menu-item${item.danger ? ' danger' : ''}`}
              disabled={item.disabled}
              onClick={() => {
                // the menu closes first, so a confirmation or a dialog the item opens takes the focus
                setOpen(false);
                item.onSelect();
              }}
            >
              {item.icon ? (
                <span className="ui-menu-icon" aria-hidden="true">
                  {item.icon}
                </span>
              ) : null}
              {item.label}
            </button>
          ))}
        </RadixPopover.Content>
      </RadixPopover.Portal>
    </RadixPopover.Root>
  );
}

export function RadixPopoverBox(props: { trigger: ReactNode; label: string; children: ReactNode; className: string; initiallyOpen: boolean }) {
  return (
    <RadixPopover.Root defaultOpen={props.initiallyOpen}>
      <RadixPopover.Trigger className={props.className}>{props.trigger}</RadixPopover.Trigger>
      <RadixPopover.Portal>
        <RadixPopover.Content className="ui-popover" aria-label={props.label} align="start" sideOffset={4} collisionPadding={8}>
          {props.children}
        </RadixPopover.Content>
      </RadixPopover.Portal>
    </RadixPopover.Root>
  );
}
