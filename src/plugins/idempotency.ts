import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { claimKey, fingerprintOf, IDEMPOTENT_METHODS, idempotencyKeyOf, KEPT_HEADERS, keepAnswer, keptHeadersOf } from '../http/idempotency.ts';
import type { IdempotencyClaim } from '../storage/repositories/idempotency.ts';
import { sendError } from './errors.ts';
import { methodsOf, prependRouteHook } from './route-hooks.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key this request claimed, when it is the first with it. */
    idempotencyKey: IdempotencyClaim | undefined;
  }
}

/** Puts the idempotency protocol (src/http/idempotency.ts) on the POST and PATCH routes. */
export default fp(
  async function idempotencyPlugin(app: FastifyInstance) {
    // the storage and services plugins register after this one (compression must come after this
    // plugin's onSend): read when a request comes
    const database = () => app.storage.db;
    app.decorateRequest('idempotencyKey', undefined);

    /** Claims the key for this request, or answers the repeat from what the key holds. */
    async function claimOrAnswer(request: FastifyRequest, reply: FastifyReply, key: string) {
      const fingerprint = fingerprintOf({
        method: request.method,
        url: request.url,
        contentType: request.headers['content-type'],
        contentLength: request.headers['content-length'],
        body: request.body,
      });
      const outcome = await claimKey(database(), app.services.clock, request.caller.userId, key, fingerprint);
      switch (outcome.kind) {
        case 'claimed':
          request.idempotencyKey = outcome.claim;
          return;
        case 'reused':
          return sendError(
            request,
            reply,
            422,
            'idempotency_key_reused',
            'This Idempotency-Key was used with another request (method, URL or body); use a new key for a new request',
            [{ field: 'headers.idempotency-key', message: 'was used with another request' }],
          );
        case 'running':
          reply.header('Retry-After', '1');
          return sendError(request, reply, 409, 'conflict', 'A request with this Idempotency-Key is still running; retry once it has answered', [
            { field: 'headers.idempotency-key', message: 'a request with this key is still running' },
          ]);
        case 'replay':
          for (const [name, value] of Object.entries(keptHeadersOf(outcome.answer))) reply.header(name, value);
          reply.header('Idempotent-Replayed', 'true');
          return reply.code(Number(outcome.answer.status)).send(outcome.answer.body ?? '');
      }
    }

    // After authentication and the body's parse, before validation: an invalid body is an answer
    // (a 400) that a repeat gets again, as Stripe does. Only on the POST and PATCH routes.
    const claimIfKeyed = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!request.caller) return;
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      if (key !== undefined) return claimOrAnswer(request, reply, key);
    };
    app.addHook('onRoute', (route) => {
      if (methodsOf(route).some((method) => IDEMPOTENT_METHODS.has(method))) prependRouteHook(route, 'preValidation', claimIfKeyed);
    });

    async function keep(request: FastifyRequest, reply: FastifyReply, payload: unknown, claimed: IdempotencyClaim) {
      try {
        const headers: Record<string, string> = {};
        for (const name of KEPT_HEADERS) {
          const value = reply.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload.toString() : undefined;
        await keepAnswer(database(), claimed, { status: reply.statusCode, headers, body });
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
