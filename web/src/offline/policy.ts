/**
 * What the service worker keeps, shared by the worker and the page: the page clears these caches
 * when the person signs in or out, the worker when the server says the caller is not signed in.
 */

/** Every cache of API answers starts with this, so one sweep clears them all. */
export const API_CACHE_PREFIX = 'taskboard-api-';

/** Set by the worker on an API answer it served from its copy because the network failed. */
export const FROM_COPY_HEADER = 'X-Taskboard-Offline-Copy';

/** The page asks a waiting worker to take over with this message (the Reload of the update prompt). */
export const SKIP_WAITING = 'SKIP_WAITING';

/** The API's reads a board needs to open offline, each in a cache of its own with its own bound. */
export const BOARD_READS: readonly { cache: string; path: RegExp; keep: number }[] = [
  // the last boards opened: the board, its lists and the first page of each list's card faces
  { cache: `${API_CACHE_PREFIX}boards`, path: /^\/api\/v1\/boards\/[^/]+\/card-faces$/, keep: 10 },
  // the further pages of long lists of those boards
  { cache: `${API_CACHE_PREFIX}list-pages`, path: /^\/api\/v1\/lists\/[^/]+\/card-faces$/, keep: 300 },
  { cache: `${API_CACHE_PREFIX}labels`, path: /^\/api\/v1\/boards\/[^/]+\/labels$/, keep: 10 },
  // who is signed in: the header, the board's team members
  { cache: `${API_CACHE_PREFIX}me`, path: /^\/api\/v1\/me$/, keep: 1 },
];

/** How long a kept answer may be shown offline: a board not opened for a month is not worth showing. */
export const KEEP_SECONDS = 30 * 24 * 3600;

/** Navigations the app's page never answers: the API, its document and tools (as src/plugins/web-app.ts). */
export const SERVER_PATHS = /^\/(api|v2|openapi\.json|docs|healthz|readyz|metrics)(\/|$)/;
