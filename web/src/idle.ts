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
