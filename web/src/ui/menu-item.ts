import type { ReactNode } from 'react';

/** One action of a menu (./Menu.tsx). */
export interface MenuItem {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  danger?: boolean;
  icon?: ReactNode;
}
