import { pageIdle } from '../idle.ts';

/** The board page's code, a chunk of its own (docs/decisions/0278). */
export const loadBoardPage = () => import('./BoardPage.tsx');

/** Fetches the board page's code once the page is idle, so a board opened from another page does not wait for it. */
export function loadBoardPageWhenIdle(): () => void {
  const leaving = new AbortController();
  void pageIdle(leaving.signal).then(() => {
    if (!leaving.signal.aborted) void loadBoardPage().catch(() => undefined);
  });
  return () => leaving.abort();
}
