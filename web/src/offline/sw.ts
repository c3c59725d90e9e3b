/// <reference lib="webworker" />
/**
 * The service worker (built by vite-plugin-pwa from Workbox's modules): the app's shell from the
 * precache, so the app opens without a network; the reads a board needs network first, falling back
 * to the last copy only when the network fails, so an answer is never stale while online. Writes and
 * the live streams are not touched: they go to the network as if there were no worker.
 */
import { CacheableResponsePlugin } from 'workbox-cacheable-response';
import { clientsClaim, type WorkboxPlugin } from 'workbox-core';
import { ExpirationPlugin } from 'workbox-expiration';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { NetworkFirst } from 'workbox-strategies';
import { API_CACHE_PREFIX, BOARD_READS, FROM_COPY_HEADER, KEEP_SECONDS, SERVER_PATHS, SKIP_WAITING } from './policy.ts';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] };

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// Every page of the app is its one page; the server's own paths (the API, /docs) are never answered here.
registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html'), { denylist: [SERVER_PATHS] }));

/** The copy served when the network failed says so, so the page can show that it is offline. */
const markCopy: WorkboxPlugin = {
  cachedResponseWillBeUsed: async ({ cachedResponse }) => {
    if (!cachedResponse) return cachedResponse;
    const headers = new Headers(cachedResponse.headers);
    headers.set(FROM_COPY_HEADER, headers.get('Date') ?? 'unknown');
    return new Response(cachedResponse.body, { status: cachedResponse.status, statusText: cachedResponse.statusText, headers });
  },
};

/** A 401 means nobody (or somebody else) is signed in here now: nothing kept for the last person stays. */
const forgetOnSignedOut: WorkboxPlugin = {
  fetchDidSucceed: async ({ response }) => {
    if (response.status === 401) await forgetApiCopies();
    return response;
  },
};

async function forgetApiCopies(): Promise<void> {
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name.startsWith(API_CACHE_PREFIX)).map((name) => caches.delete(name)));
}

for (const read of BOARD_READS) {
  registerRoute(
    ({ url, sameOrigin }) => sameOrigin && read.path.test(url.pathname),
    new NetworkFirst({
      cacheName: read.cache,
      plugins: [
        forgetOnSignedOut,
        new CacheableResponsePlugin({ statuses: [200] }),
        new ExpirationPlugin({ maxEntries: read.keep, maxAgeSeconds: KEEP_SECONDS, purgeOnQuotaError: true }),
        markCopy,
      ],
    }),
    'GET',
  );
}

// A new version waits until the person chooses Reload (the page's update prompt), so a page never
// runs half of one version and half of another.
self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === SKIP_WAITING) void self.skipWaiting();
});
// The first worker takes the open page at once (there is no older version to mix with).
clientsClaim();
