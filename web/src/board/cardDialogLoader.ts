import { useEffect, useState } from 'react';

// The card dialog (and its Markdown renderer) loads when a card is first opened, or in the board's idle time.
let cardDialogModule: typeof import('../card/CardDialog.tsx') | undefined;
export const loadCardDialog = () =>
  import('../card/CardDialog.tsx').then((module) => {
    cardDialogModule = module;
    return module;
  });
/**
 * The card dialog's component once its code is here, loading it when a card is open. Not React.lazy:
 * its first render suspends even when the code is already here (a Suspense fallback is held back for
 * React's reveal throttle, 300 ms), and switching from the lazy wrapper to the component itself
 * would remount an open dialog and lose what is being typed in it.
 */
export function useCardDialog(wanted: boolean, onFailure: (error: unknown) => void) {
  const [loaded, setLoaded] = useState(cardDialogModule);
  const module = loaded ?? cardDialogModule;
  useEffect(() => {
    if (!wanted || module) return;
    let current = true;
    loadCardDialog().then(
      (arrived) => current && setLoaded(arrived),
      (error: unknown) => current && onFailure(error),
    );
    return () => {
      current = false;
    };
  }, [wanted, module, onFailure]);
  return module?.CardDialog;
}
