import type { ReactElement } from 'react';
import { usePopups } from './popups.ts';
import './ui.css';

/**
 * A short name shown on hover and keyboard focus of a control that shows only an icon: Radix UI's
 * Tooltip (it opens after a pause, closes on Escape, and names nothing new: the control keeps its own
 * accessible name). Radix's code comes once the page is idle (./popups.ts); until then the control
 * shows as it is.
 */
export function Tip({ label, children, side = 'bottom' }: { label: string; children: ReactElement; side?: 'top' | 'bottom' }) {
  const core = usePopups();
  return core ? (
    <core.RadixTip label={label} side={side}>
      {children}
    </core.RadixTip>
  ) : (
    children
  );
}
