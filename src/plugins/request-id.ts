import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** Printable ASCII, no spaces, at most 128 characters: safe to echo in a header and a log line. */
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
/** W3C Trace Context: version-traceid-parentid-flags, ids not all zeros. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Logger levels at which the `info` completion line is not written. */
const ABOVE_INFO = new Set(['warn', 'error', 'fatal', 'silent']);

/** Unique per process start; a counter after it makes ids without a random draw per request. */
const PREFIX = randomBytes(6).toString('hex');
let sequence = 0;

/**
 * The id of a request: the caller's `X-Request-Id` when it is sane (so a gateway's id follows the
 * request through our logs), else a new one. Used as Fastify's `genReqId`.
 */
export function requestIdOf(raw: IncomingMessage): string {
  const inbound = raw.headers['x-request-id'];
  if (typeof inbound === 'string' && SANE_REQUEST_ID.test(inbound)) return inbound;
  sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
  return `${PREFIX}-${sequence.toString(36)}`;
}

/** The trace id of a valid `traceparent` header, else undefined. */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header.trim().toLowerCase());
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return undefined;
  return match[2];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The W3C trace id the caller sent in `traceparent`, if any. */
    traceId: string | undefined;
    /** The client went away before the answer was sent (logged once, at info). */
    clientAborted: boolean;
  }
}

/**
 * Echoes the request id (and a valid `traceparent`) on every answer, and writes one line per request
 * when it ends: route template, status, user and key, time. A client that goes away before the
 * answer is written is an `info` event, not an error: nothing failed on our side.
 */
export default fp(
  async function requestIdPlugin(app: FastifyInstance) {
    app.decorateRequest('traceId', undefined);
    app.decorateRequest('clientAborted', false);
    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      reply.header('X-Request-Id', request.id);
      const traceparent = request.headers.traceparent;
      const traceId = traceIdOf(traceparent);
      if (traceId) {
        request.traceId = traceId;
        reply.header('traceparent', (traceparent as string).trim().toLowerCase());
        request.log = request.log.child({ traceId });
      }
      done();
    });
    app.addHook('onRequestAbort', (request: FastifyRequest, done: () => void) => {
      request.clientAborted = true;
      request.log.info({ route: request.routeOptions.url, method: request.method }, 'client aborted the request');
      done();
    });
    app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      // Every request passes here: build the line only when it will be written.
      if (request.clientAborted || ABOVE_INFO.has(request.log.level)) return done();
      const line = {
        method: request.method,
        route: request.routeOptions.url,
        url: request.routeOptions.url ? undefined : request.url,
        status: reply.statusCode,
        userId: request.caller?.userId,
        apiKeyId: request.caller?.apiKeyId,
        ms: Math.round(reply.elapsedTime),
      };
      request.log.info(line, 'request completed');
      done();
    });
  },
  { name: 'request-id' },
);
