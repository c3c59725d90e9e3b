import { API_CACHE_PREFIX } from './policy.ts';

/**
 * Drops every API answer the service worker kept: on sign-in, sign-out and a 401, so that what one
 * person read is never shown to the next one in this browser, offline or not.
 */
export async function forgetOfflineCopies(): Promise<void> {
  if (typeof caches === 'undefined') return;
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name.startsWith(API_CACHE_PREFIX)).map((name) => caches.delete(name)));
}
