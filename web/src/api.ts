import { type components, createTaskboardClient } from '@taskboard/client';
import { forgetOfflineCopies } from './offline/caches.ts';
import { fetchOnline } from './offline/connection.ts';

export type Card = components['schemas']['Card'];
/** What the board shows of a card (Get Board Card Faces); the card dialog reads the whole Card. */
export type CardFace = components['schemas']['CardFace'];
export type Label = components['schemas']['Label'];
export type Member = components['schemas']['Member'];
export type Team = components['schemas']['Team'];
export type Company = components['schemas']['Company'];
export type User = components['schemas']['User'];
export type Board = components['schemas']['Board'];
export type BoardTemplate = components['schemas']['BoardTemplate'];
export type BoardEvent = components['schemas']['Event'];

/**
 * The session: a browser signs in and is then known by its session cookie; a cookie-authenticated
 * write proves it comes from this page with the session's CSRF token in a header. An API key kept
 * in localStorage (development, tests before a password exists) is sent instead when present.
 */
const CSRF_HEADER = 'X-CSRF-Token';
const CSRF_KEY = 'taskboard.csrf';
const API_KEY = 'taskboard.apiKey';

export const session = {
  get csrf(): string | null {
    return sessionStorage.getItem(CSRF_KEY);
  },
  set csrf(value: string | null) {
    if (value) sessionStorage.setItem(CSRF_KEY, value);
    else sessionStorage.removeItem(CSRF_KEY);
  },
  get apiKey(): string | null {
    return localStorage.getItem(API_KEY);
  },
};

/** The headers of a request from this page: the API key, or the CSRF proof of the cookie session. */
export function authHeaders(): Record<string, string> {
  const key = session.apiKey;
  if (key) return { Authorization: `Bearer ${key}` };
  const csrf = session.csrf;
  return csrf ? { [CSRF_HEADER]: csrf } : {};
}

/** Keeps the CSRF token an answer hands out (header or body), whichever the server uses. */
export function keepCsrf(response: Response, body?: unknown): void {
  const fromHeader = response.headers.get(CSRF_HEADER);
  const fromBody = body && typeof body === 'object' ? ((body as Record<string, unknown>).csrfToken as string | undefined) : undefined;
  const token = fromHeader ?? fromBody;
  if (token) session.csrf = token;
}

export const client = createTaskboardClient({
  baseUrl: window.location.origin,
  headers: authHeaders,
  credentials: 'same-origin',
  // TanStack Query keeps answers; the client's own cache would hold a second copy of large boards.
  cacheEntries: 0,
  fetch: async (request) => {
    const response = await fetchOnline(request);
    if (response.status === 401) unauthorized();
    keepCsrf(response);
    return response;
  },
});

let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(handler: () => void) {
  onUnauthorized = handler;
}
function unauthorized() {
  void forgetOfflineCopies();
  onUnauthorized();
}

/** A refused request, with the status and the server's own words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The error's `details`, as the server sent them (a field's problem, a reason). */
    readonly details: ReadonlyArray<Record<string, unknown>> = [],
  ) {
    super(message);
  }
}

/** The data of an answer, or an ApiError with the server's message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    const error = result.error as { message?: string; details?: Array<Record<string, unknown>> } | undefined;
    const message = error?.message ?? `${result.response.status} ${result.response.statusText}`;
    throw new ApiError(result.response.status, message, Array.isArray(error?.details) ? error.details : []);
  }
  return result.data;
}

/** Whether a company role administers the company: its members, teams, webhooks, and deleting its boards. */
export const administers = (role: string | undefined): boolean => role === 'owner' || role === 'admin';

/** `If-Match` for a write conditional on the record's revision `__v`. */
export const ifMatch = (version: number) => ({ 'If-Match': `"${version}"` });

/** One JSON request with the session's cookie (and CSRF token, or the development key): its answer parsed, or undefined. */
async function requestJson(path: string, init: RequestInit = {}): Promise<{ response: Response; body: unknown }> {
  const response = await fetchOnline(path, {
    ...init,
    credentials: 'same-origin',
    headers: { Accept: 'application/json', ...init.headers, ...authHeaders() },
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  keepCsrf(response, parsed);
  return { response, body: parsed };
}

export function postJson(path: string, body: unknown): Promise<{ response: Response; body: unknown }> {
  return requestJson(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body ?? {}) });
}

/** A form (a file) posted, its JSON answer read: what the typed client, which sends JSON, cannot send. */
export function postForm(path: string, form: FormData): Promise<{ response: Response; body: unknown }> {
  return requestJson(path, { method: 'POST', body: form });
}

export function getJson(path: string): Promise<{ response: Response; body: unknown }> {
  return requestJson(path);
}

/** A refused write's message, as the server put it. */
export const problem = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function messageOf(body: unknown, fallback: string): string {
  return body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : fallback;
}
