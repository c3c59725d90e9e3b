import * as RadixTooltip from '@radix-ui/react-tooltip';
import type { ReactElement } from 'react';

/** Radix UI's Tooltip around one control (see Tooltip.tsx, which loads this after the first load). */
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
