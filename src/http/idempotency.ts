/**
 * Safe retries of POST and PATCH (Stripe's semantics). A request sent with `Idempotency-Key` claims
 * the key for its caller (the API key's user) in the database; its answer (status, body and the
 * headers below) is kept 24 hours and replayed, marked `Idempotent-Replayed: true`, to a repeat with
 * the same method, URL and body. The same key on another request answers 422; a repeat while the
 * first still runs, 409. An answer the server failed (5xx) is not kept: the key is let go and a
 * retry runs again. A first request lost with its instance holds the key until `LEASE_MS` has passed.
 * Expired keys are pruned by one of the app's jobs (src/plugins/jobs.ts).
 *
 * The protocol, without Fastify: src/plugins/idempotency.ts puts it on the POST and PATCH routes.
 * Hand-written: no maintained Fastify plugin keeps keys in a shared SQL database on both engines.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../domain/shared/clock.ts';
import { ValidationError } from '../domain/shared/errors.ts';
import type { Executor } from '../storage/database.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyKey,
  type IdempotencyClaim,
  type IdempotencyKeyRow,
  pruneIdempotencyKeys,
  reclaimIdempotencyKey,
  releaseIdempotencyKey,
} from '../storage/repositories/idempotency.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** How long a running first request holds its key before a repeat may take it over (its instance is gone). */
export const LEASE_MS = 5 * 60_000;
export const MAX_KEY_LENGTH = 255;
/** The answer's headers a replay repeats; rate-limit and request-id headers are the repeat's own. */
export const KEPT_HEADERS = ['content-type', 'location', 'etag', 'cache-control'];
/** The methods a key applies to. */
export const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH']);
const KEY = /^[\x21-\x7e]+$/;

function badKey(message: string): ValidationError {
  return new ValidationError(`Invalid request: headers.idempotency-key ${message}`, [{ field: 'headers.idempotency-key', message }]);
}

/** The key a request sent, checked: 1 to 255 visible ASCII characters (a UUID fits); undefined: none. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header) || header.length === 0 || header.length > MAX_KEY_LENGTH || !KEY.test(header)) {
    throw badKey(`must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters (a UUID, say)`);
  }
  return header;
}

/** What a request is made of, for telling a repeat from another request with the same key. */
export interface RequestParts {
  method: string;
  /** With its query. */
  url: string;
  contentType: string | undefined;
  contentLength: string | undefined;
  body: unknown;
}

/**
 * What makes two requests the same: method, URL (with its query) and body. A multipart upload's
 * body is not read twice: its type (less the boundary, which clients draw anew) and length stand for it.
 */
export function fingerprintOf(request: RequestParts): string {
  const type = request.contentType ?? '';
  const body = type.startsWith('multipart/') ? `multipart ${request.contentLength ?? ''}` : JSON.stringify(request.body ?? null);
  return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex');
}

/** What claiming a key comes to: this request is the first, or the answer for a repeat. */
export type ClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  /** The key was used with another request: 422. */
  | { kind: 'reused' }
  /** The first request with the key still runs: 409. */
  | { kind: 'running' }
  /** The kept answer, to replay. */
  | { kind: 'replay'; answer: IdempotencyKeyRow };

/** Claims `key` for the caller's request, or says how a repeat is to be answered. */
export async function claimKey(db: Executor, clock: Clock, userId: string, key: string, fingerprint: string): Promise<ClaimOutcome> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const at = clock.now();
    const row = {
      user_id: userId,
      key,
      fingerprint,
      state: 'running' as const,
      status: null,
      headers: null,
      body: null,
      created_at: new Date(at).toISOString(),
      locked_until: new Date(at + LEASE_MS).toISOString(),
      expires_at: new Date(at + IDEMPOTENCY_TTL_MS).toISOString(),
    };
    if ((await claimIdempotencyKey(db, row)) || (await reclaimIdempotencyKey(db, row, row.created_at))) {
      return { kind: 'claimed', claim: { userId, key, claimedAt: row.created_at } };
    }
    const held = await findIdempotencyKey(db, userId, key);
    // let go (or expired) between the claim and the read: claim again
    if (!held || held.expires_at <= row.created_at) continue;
    if (held.fingerprint !== fingerprint) return { kind: 'reused' };
    if (held.state === 'running') return { kind: 'running' };
    return { kind: 'replay', answer: held };
  }
  throw new Error('idempotency key: could not claim or read the key');
}

/** The headers a kept answer replays. */
export function keptHeadersOf(answer: IdempotencyKeyRow): Record<string, string> {
  return JSON.parse(answer.headers ?? '{}') as Record<string, string>;
}

/**
 * Keeps the answer for the key's repeats, or lets the key go when it is not to be kept: an answer
 * the server failed (5xx), or one that is not text.
 */
export async function keepAnswer(
  db: Executor,
  claim: IdempotencyClaim,
  answer: { status: number; headers: Record<string, string>; body: string | undefined },
): Promise<void> {
  if (answer.status >= 500 || answer.body === undefined) {
    await releaseIdempotencyKey(db, claim);
    return;
  }
  await completeIdempotencyKey(db, claim, { status: answer.status, headers: JSON.stringify(answer.headers), body: answer.body });
}

/** Removes the keys that expired by the clock's now; answers how many went. */
export function pruneExpiredKeys(db: Executor, clock: Clock): Promise<number> {
  return pruneIdempotencyKeys(db, new Date(clock.now()).toISOString());
}
