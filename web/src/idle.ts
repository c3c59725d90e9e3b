import type { QueryClient } from '@tanstack/react-query';

/**
 * Resolves once the page has loaded and the browser is idle (or `within` ms later at most), or at
 * once when `signal` aborts: for work the first paint must not wait for, such as the live streams
 * and the service worker's downloads.
 */
export function pageIdle(signal?: AbortSignal, within = 2000): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
    const whenIdle = () => {
      if (window.requestIdleCallback) window.requestIdleCallback(() => resolve(), { timeout: within });
      else setTimeout(resolve, 0);
    };
    if (document.readyState === 'complete') whenIdle();
    else window.addEventListener('load', whenIdle, { once: true });
  });
}

/**
 * Resolves once the page is idle and none of its reads is in flight (or `within` ms after idle at
 * most): for code a later click may need (the popups, the board page), whose download on a slow
 * network must not hold back the reads of what the page shows.
 */
export function pageSettled(queryClient: QueryClient, signal?: AbortSignal, within = 5000): Promise<void> {
  return pageIdle(signal).then(
    () =>
      new Promise<void>((resolve) => {
        const done = () => {
          unsubscribe();
          clearTimeout(timer);
          resolve();
        };
        const unsubscribe = queryClient.getQueryCache().subscribe(() => {
          if (queryClient.isFetching() === 0) done();
        });
        const timer = setTimeout(done, within);
        signal?.addEventListener('abort', done, { once: true });
        if (signal?.aborted || queryClient.isFetching() === 0) done();
      }),
  );
}
