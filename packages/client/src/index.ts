/**
 * @taskboard/client: the Taskboard API through openapi-fetch, typed by the generated src/schema.ts,
 * with a thin layer of ours in the fetch it calls:
 * - retries of 429 and 503 with exponential backoff and full jitter, never sooner than the server
 *   said (Retry-After, the RateLimit header's `t`), within a retry budget, cancelled by the
 *   request's AbortSignal; a write is retried only with an Idempotency-Key;
 * - an Idempotency-Key generated per POST/PATCH call and sent again on each of its retries;
 * - conditional reads: the ETag of each GET is kept with its answer and sent as If-None-Match; a 304
 *   is answered from the cache;
 * - the rate-limit state of the last answer (`remaining`, `resetIn`, `tier`).
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.ts';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export type Card = Schemas['Card'];
export type Label = Schemas['Label'];
export type ErrorBody = Schemas['Error'];
export type SearchHit = Schemas['SearchHit'];

/** What the last answer said about the caller's rate-limit bucket. */
export interface RateLimitState {
  /** The tier of the operation (`secure` … `very-low`). */
  tier: string;
  /** Requests left in the window. */
  remaining: number;
  /** Seconds until a request is free again. */
  resetIn: number;
  /** The bucket's size and window, from RateLimit-Policy when sent. */
  limit?: number;
  windowSeconds?: number;
}

export interface RetryOptions {
  /** Retries of one call at most (after the first attempt). Default 4. */
  maxRetries?: number;
  /** The first backoff's ceiling, doubled on each retry. Default 250 ms. */
  baseDelayMs?: number;
  /** The ceiling of the backoff (the server's own wait is honoured above it). Default 30 s. */
  maxDelayMs?: number;
  /**
   * The retry budget: every call earns `budgetRatio` of a retry, up to `budgetMax`, and each retry
   * spends one; a client starts with `budgetMax`. When the budget is spent the 429/503 is answered
   * as is, so a struggling server is not met with a retry storm. Defaults 0.2 and 10.
   */
  budgetRatio?: number;
  budgetMax?: number;
}

export interface TaskboardClientOptions {
  /** Where the server is, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /**
   * An API key (`tb_…`). Without one, requests carry the browser's session cookie instead
   * (a web app on the server's own origin) and `headers` adds what such writes need (CSRF proof).
   */
  apiKey?: string;
  /** Headers added to every request, read at each call (a session's CSRF token). */
  headers?: () => Record<string, string> | undefined;
  /** The fetch credentials mode (default: the Request default, `same-origin`). */
  credentials?: 'omit' | 'same-origin' | 'include';
  retry?: RetryOptions;
  /** Kept answers for conditional reads (least recently used dropped first). Default 500; 0: none. */
  cacheEntries?: number;
  /** The fetch underneath (default: globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Waits `ms`, rejecting with the signal's reason when it aborts (tests inject a clock). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter (tests inject it). */
  random?: () => number;
  /** A new idempotency key (default: a random UUID). */
  idempotencyKey?: () => string;
}

export type TaskboardClient = Client<paths> & {
  /** The rate-limit state of the last answer that carried one. */
  readonly rateLimit: RateLimitState | undefined;
};

/** Waits `ms` unless `signal` aborts first. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `"medium";r=59;t=1` (and `"medium";q=60;w=60`) → the parameters by name. */
function structuredParams(header: string | null): { name?: string; params: Record<string, number> } | undefined {
  if (!header) return undefined;
  const [item, ...rest] = header.split(';').map((part) => part.trim());
  const params: Record<string, number> = {};
  for (const part of rest) {
    const [key, value] = part.split('=');
    if (key && value !== undefined && Number.isFinite(Number(value))) params[key] = Number(value);
  }
  return { name: item?.replace(/^"|"$/g, ''), params };
}

export function parseRateLimit(headers: Headers): RateLimitState | undefined {
  const state = structuredParams(headers.get('RateLimit'));
  if (!state?.name || state.params.r === undefined || state.params.t === undefined) return undefined;
  const policy = structuredParams(headers.get('RateLimit-Policy'));
  return {
    tier: state.name,
    remaining: state.params.r,
    resetIn: state.params.t,
    ...(policy?.params.q !== undefined ? { limit: policy.params.q } : {}),
    ...(policy?.params.w !== undefined ? { windowSeconds: policy.params.w } : {}),
  };
}

/** The least the server asked to wait, in ms: Retry-After (seconds or a date) and RateLimit's `t`. */
export function serverWaitMs(headers: Headers, now: number = Date.now()): number {
  let seconds = 0;
  const retryAfter = headers.get('Retry-After');
  if (retryAfter) {
    const asNumber = Number(retryAfter);
    if (Number.isFinite(asNumber)) seconds = Math.max(seconds, asNumber);
    else if (!Number.isNaN(Date.parse(retryAfter))) seconds = Math.max(seconds, (Date.parse(retryAfter) - now) / 1000);
  }
  const reset = parseRateLimit(headers)?.resetIn;
  if (reset !== undefined) seconds = Math.max(seconds, reset);
  return Math.max(0, seconds * 1000);
}

/** Full jitter (a uniform wait up to the exponential ceiling), never below what the server said. */
export function backoffMs(retry: number, serverMs: number, random: () => number, base: number, max: number): number {
  const ceiling = Math.min(max, base * 2 ** retry);
  return Math.max(serverMs, random() * ceiling);
}

const RETRIED_STATUSES = new Set([429, 503]);
/** The writes the API keeps idempotency keys for (Stripe's semantics). */
const KEYED_WRITES = new Set(['POST', 'PATCH']);

interface Kept {
  etag: string;
  status: number;
  headers: [string, string][];
  body: ArrayBuffer;
}

/** Builds the fetch with our layer: idempotency keys, conditional reads, retries, rate-limit state. */
function layeredFetch(options: TaskboardClientOptions, onRateLimit: (state: RateLimitState) => void) {
  const underlying = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const newKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  const { maxRetries = 4, baseDelayMs = 250, maxDelayMs = 30_000, budgetRatio = 0.2, budgetMax = 10 } = options.retry ?? {};
  const capacity = options.cacheEntries ?? 500;
  const cache = new Map<string, Kept>();
  let budget = budgetMax;

  return async function taskboardFetch(input: Request): Promise<Response> {
    budget = Math.min(budgetMax, budget + budgetRatio);
    const method = input.method.toUpperCase();
    const headers = new Headers(input.headers);
    if (options.apiKey) headers.set('Authorization', `Bearer ${options.apiKey}`);
    for (const [name, value] of Object.entries(options.headers?.() ?? {})) headers.set(name, value);
    if (KEYED_WRITES.has(method) && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', newKey());
    const isRead = method === 'GET' || method === 'HEAD';
    // A write is repeated only when the server can tell the repeat from a new call.
    const retryable = isRead || headers.has('Idempotency-Key');
    const kept = method === 'GET' ? cache.get(input.url) : undefined;
    if (kept && !headers.has('If-None-Match')) headers.set('If-None-Match', kept.etag);
    // The body is read once, so that every attempt sends the same bytes.
    const body = isRead ? undefined : await input.arrayBuffer();

    for (let retry = 0; ; retry++) {
      const request = new Request(input.url, {
        method,
        headers,
        body: body?.byteLength ? body : null,
        signal: input.signal,
        ...(options.credentials ? { credentials: options.credentials } : {}),
      });
      const response = await underlying(request);
      const state = parseRateLimit(response.headers);
      if (state) onRateLimit(state);

      if (response.status === 304 && kept) {
        cache.delete(input.url);
        cache.set(input.url, kept); // most recently used
        const answered = new Headers(kept.headers);
        for (const name of ['RateLimit', 'RateLimit-Policy', 'X-Request-Id', 'ETag']) {
          const value = response.headers.get(name);
          if (value) answered.set(name, value);
        }
        return new Response(kept.body.slice(0), { status: kept.status, headers: answered });
      }
      const etag = response.headers.get('ETag');
      if (method === 'GET' && capacity > 0 && response.ok && etag) {
        const copy = await response.clone().arrayBuffer();
        cache.delete(input.url);
        cache.set(input.url, { etag, status: response.status, headers: [...response.headers], body: copy });
        if (cache.size > capacity) cache.delete(cache.keys().next().value as string);
      }

      if (!RETRIED_STATUSES.has(response.status) || !retryable || retry >= maxRetries || budget < 1) return response;
      budget -= 1;
      const wait = backoffMs(retry, serverWaitMs(response.headers), random, baseDelayMs, maxDelayMs);
      await response.body?.cancel();
      await sleep(wait, input.signal ?? undefined);
    }
  };
}

/** A typed client of the Taskboard API (see docs/api.md, The typed client). */
export function createTaskboardClient(options: TaskboardClientOptions): TaskboardClient {
  let last: RateLimitState | undefined;
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: layeredFetch(options, (state) => {
      last = state;
    }),
  });
  return Object.defineProperty(client, 'rateLimit', { get: () => last, enumerable: true }) as TaskboardClient;
}
