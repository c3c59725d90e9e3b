import { registerSW } from 'virtual:pwa-register';
import type { QueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { pageIdle } from '../idle.ts';

/**
 * The service worker's registration and its update prompt. The worker is registered once the page is
 * idle, so its downloads (the app's shell) never compete with the first load. A new version waits
 * until the person chooses Reload: then the waiting worker takes over and every open tab reloads
 * (vite-plugin-pwa's prompt mode), so no tab runs half of one version and half of another.
 */
let updateReady = false;
let applyUpdate: ((reloadPage?: boolean) => Promise<void>) | undefined;
const listeners = new Set<() => void>();

export function registerAppWorker(queryClient: QueryClient): void {
  if (!('serviceWorker' in navigator)) return;
  let controlled = navigator.serviceWorker.controller !== null;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (!controlled) {
      // The first worker takes the page after its reads were made: they are made again through it,
      // so that what is on screen is kept for offline from the first visit on.
      controlled = true;
      void queryClient.invalidateQueries({ refetchType: 'active' });
      return;
    }
    // A new version took over, by this tab's Reload or another's: this tab reloads into it too, even
    // if it never showed the prompt (opened, or still idle-waiting, when the version arrived), so
    // no tab runs the old page under the new worker.
    reloadOnce();
  });
  void pageIdle().then(() => {
    applyUpdate = registerSW({
      immediate: true,
      onNeedRefresh() {
        updateReady = true;
        for (const listener of listeners) listener();
      },
      onNeedReload: reloadOnce,
    });
  });
}

let reloading = false;
function reloadOnce() {
  if (reloading) return;
  reloading = true;
  window.location.reload();
}

/** Whether a new version is installed and waiting for the person's Reload. */
export function useUpdateReady(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => updateReady,
  );
}

/** Lets the waiting version take over; the page reloads once it controls it. */
export function reloadIntoUpdate(): void {
  void applyUpdate?.(true);
}
