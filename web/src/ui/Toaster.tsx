import { lazy, Suspense, useState } from 'react';
import { useToasts } from './toasts.ts';

const ToastList = lazy(() => import('./ToastList.tsx'));

/** Where toasts appear: their code (Radix UI's Toast) loads with the first one. */
export function Toaster() {
  const shown = useToasts();
  const [needed, setNeeded] = useState(false);
  if (shown.length > 0 && !needed) setNeeded(true);
  return needed ? (
    <Suspense fallback={null}>
      <ToastList />
    </Suspense>
  ) : null;
}
