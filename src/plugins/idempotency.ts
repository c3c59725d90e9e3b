import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { methodsOf, prependRouteHook } from './route-hooks.ts';
import { ValidationError } from '../domain/shared/errors.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyKey,
  type IdempotencyClaim,
  type IdempotencyKeyRow,
  reclaimIdempotencyKey,
  releaseIdempotencyKey,
} from '../storage/repositories/idempotency.ts';
import { sendError } from './errors.ts';

/**
 * Safe retries of POST and PATCH (Stripe's semantics). A request sent with `Idempotency-Key` claims
 * the key for its caller (the API key's user) in the database; its answer (status, body and the
 * headers below) is kept 24 hours and replayed, marked `Idempotent-Replayed: true`, to a repeat with
 * the same method, URL and body. The same key on another request answers 422; a repeat while the
 * first still runs, 409. An answer the server failed (5xx) is not kept: the key is let go and a
 * retry runs again. A first request lost with its instance holds the key until `LEASE_MS` has passed.
 * Expired keys are pruned by one of the app's jobs (src/plugins/jobs.ts).
 *
 * Hand-written: no maintained Fastify plugin keeps keys in a shared SQL database on both engines.
 */

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** How long a running first request holds its key before a repeat may take it over (its instance is gone). */
export const LEASE_MS = 5 * 60_000;
export const MAX_KEY_LENGTH = 255;
/** The answer's headers a replay repeats; rate-limit and request-id headers are the repeat's own. */
const KEPT_HEADERS = ['content-type', 'location', 'etag', 'cache-control'];
const METHODS = new Set(['POST', 'PATCH']);
const KEY = /^[\x21-\x7e]+$/;

declare module 'fastify' {
  interface FastifyRequest {
    /** The key this request claimed, when it is the first with it. */
    idempotencyKey: IdempotencyClaim | undefined;
  }
}

function badKey(message: string): ValidationError {
  return new ValidationError(`Invalid request: headers.idempotency-key ${message}`, [{ field: 'headers.idempotency-key', message }]);
}

/** The key of a request, checked: 1 to 255 visible ASCII characters (a UUID fits). */
function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (Array.isArray(header) || header.length === 0 || header.length > MAX_KEY_LENGTH || !KEY.test(header)) {
    throw badKey(`must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters (a UUID, say)`);
  }
  return header;
}

/**
 * What makes two requests the same: method, URL (with its query) and body. A multipart upload's
 * body is not read twice: its type (less the boundary, which clients draw anew) and length stand for it.
 */
function fingerprintOf(request: FastifyRequest): string {
  const type = String(request.headers['content-type'] ?? '');
  const body = type.startsWith('multipart/')
    ? `multipart ${request.headers['content-length'] ?? ''}`
    : JSON.stringify(request.body ?? null);
  return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex');
}

function replay(reply: FastifyReply, row: IdempotencyKeyRow) {
  const headers = JSON.parse(row.headers ?? '{}') as Record<string, string>;
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  reply.header('Idempotent-Replayed', 'true');
  return reply.code(Number(row.status)).send(row.body ?? '');
}

export default fp(
  async function idempotencyPlugin(app: FastifyInstance) {
    // the services plugin registers after this one: its clock is read when a request comes
    const now = () => app.services.clock.now();
    // the storage plugin registers after this one (compression must come after this plugin's onSend)
    const database = () => app.storage.db;
    app.decorateRequest('idempotencyKey', undefined);

    /** Claims the key for this request, or answers the repeat from what the key holds. */
    async function claimOrAnswer(request: FastifyRequest, reply: FastifyReply, key: string) {
      const userId = request.caller.userId;
      const fingerprint = fingerprintOf(request);
      for (let attempt = 0; attempt < 3; attempt++) {
        const at = now();
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
        if ((await claimIdempotencyKey(database(), row)) || (await reclaimIdempotencyKey(database(), row, row.created_at))) {
          request.idempotencyKey = { userId, key, claimedAt: row.created_at };
          return;
        }
        const held = await findIdempotencyKey(database(), userId, key);
        // let go (or expired) between the claim and the read: claim again
        if (!held || held.expires_at <= row.created_at) continue;
        if (held.fingerprint !== fingerprint) {
          return sendError(request, reply, 422, 'idempotency_key_reused', 'This Idempotency-Key was used with another request (method, URL or body); use a new key for a new request', [
            { field: 'headers.idempotency-key', message: 'was used with another request' },
          ]);
        }
        if (held.state === 'running') {
          reply.header('Retry-After', '1');
          return sendError(request, reply, 409, 'conflict', 'A request with this Idempotency-Key is still running; retry once it has answered', [
            { field: 'headers.idempotency-key', message: 'a request with this key is still running' },
          ]);
        }
        return replay(reply, held);
      }
      throw new Error('idempotency key: could not claim or read the key');
    }

    // After authentication and the body's parse, before validation: an invalid body is an answer
    // (a 400) that a repeat gets again, as Stripe does. Only on the POST and PATCH routes.
    const claimIfKeyed = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!request.caller) return;
      const key = keyOf(request);
      if (key !== undefined) return claimOrAnswer(request, reply, key);
    };
    app.addHook('onRoute', (route) => {
      if (methodsOf(route).some((method) => METHODS.has(method))) prependRouteHook(route, 'preValidation', claimIfKeyed);
    });

    /** Keeps the answer for the key's repeats, or lets the key go when the answer is not to be kept. */
    async function keep(request: FastifyRequest, reply: FastifyReply, payload: unknown, claimed: IdempotencyClaim) {
      try {
        if (reply.statusCode >= 500 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
          await releaseIdempotencyKey(database(), claimed);
          return;
        }
        const headers: Record<string, string> = {};
        for (const name of KEPT_HEADERS) {
          const value = reply.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        await completeIdempotencyKey(database(), claimed, { status: reply.statusCode, headers: JSON.stringify(headers), body: payload.toString() });
      } catch (error) {
        // The answer still goes out; the key stays held until its lease ends, then a repeat runs again.
        request.log.error({ err: error }, 'idempotency key: could not keep the answer');
      }
    }

    // Before compression (the body is still the JSON text). Synchronous for the answers of requests
    // that claimed no key (nearly all): they wait on nothing here.
    app.addHook('onSend', (request, reply, payload, done) => {
      const claimed = request.idempotencyKey;
      if (!claimed) return done(null, payload);
      request.idempotencyKey = undefined;
      void keep(request, reply, payload, claimed).then(() => done(null, payload));
    });
  },
  { name: 'idempotency' },
);
