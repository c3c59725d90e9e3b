/** The board page's code, a chunk of its own (docs/decisions/0278). */
export const loadBoardPage = () => import('./BoardPage.tsx');

const INTENT_EVENTS = ['pointerover', 'focusin', 'touchstart'] as const;

/**
 * Fetches the board page's code when a link to a board is pointed at, touched or focused: the click
 * that follows finds it loaded or on the way, and a page no one leaves for a board never compiles it
 * (on a phone that is a long task of its own).
 */
export function loadBoardPageOnIntent(): () => void {
  const stop = () => {
    for (const type of INTENT_EVENTS) document.removeEventListener(type, onIntent, true);
  };
  const onIntent = (event: Event) => {
    if (!(event.target instanceof Element) || !event.target.closest('a[href^="/boards/"]')) return;
    stop();
    void loadBoardPage().catch(() => undefined);
  };
  for (const type of INTENT_EVENTS) document.addEventListener(type, onIntent, { capture: true, passive: true });
  return stop;
}
