import * as RadixPopover from '@radix-ui/react-popover';
import { type ReactNode, useState } from 'react';
import { Tip } from './Tooltip.tsx';
import './ui.css';

/**
 * The design system's menus and popovers, on Radix UI's Popover (focus moves in and back, Escape and
 * outside clicks close it: the library's, not ours). A menu is a popover of action buttons, as
 * Trello's list and board menus are; one primitive keeps the board's first load small
 * (docs/decisions/0211-design-system.md).
 */
export interface MenuItem {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  danger?: boolean;
  icon?: ReactNode;
}

export function Menu({ trigger, label, items, align = 'end' }: { trigger: ReactNode; label: string; items: MenuItem[]; align?: 'start' | 'end' }) {
  const [open, setOpen] = useState(false);
  return (
    <RadixPopover.Root open={open} onOpenChange={setOpen}>
      {/* the trigger shows an icon only: its name shows on hover and focus too */}
      <Tip label={label}>
        <RadixPopover.Trigger className="menu-trigger" aria-label={label}>
          {trigger}
        </RadixPopover.Trigger>
      </Tip>
      <RadixPopover.Portal>
        <RadixPopover.Content className="ui-menu" aria-label={label} align={align} sideOffset={4} collisionPadding={8}>
          {items.map((item) => (
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

export function Popover({ trigger, label, children, className }: { trigger: ReactNode; label: string; children: ReactNode; className?: string }) {
  return (
    <RadixPopover.Root>
      <RadixPopover.Trigger className={`popover-trigger${className ? ` ${className}` : ''}`}>{trigger}</RadixPopover.Trigger>
      <RadixPopover.Portal>
        <RadixPopover.Content className="ui-popover" aria-label={label} align="start" sideOffset={4} collisionPadding={8}>
          {children}
        </RadixPopover.Content>
      </RadixPopover.Portal>
    </RadixPopover.Root>
  );
}
