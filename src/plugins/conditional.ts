import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { entityTag, revisionTag } from '../domain/shared/entity-tags.ts';
import { conditionalTarget, expectedVersionOf, noneMatch, WRITES } from '../http/conditional.ts';
import { methodsOf, prependRouteHook } from './route-hooks.ts';

declare module 'fastify' {
  interface FastifyReply {
    /**
     * The answer's entity tag when its route knows it without hashing the body (an answer made of
     * records kept rendered with their tags); null: the body is hashed.
     */
    contentTag: string | null;
    /** The `__v` of the one record a read answers, named by its tag (`revisionTag`); null: none. */
    recordRevision: number | null;
  }
}

/** Puts conditional requests (src/http/conditional.ts) on the routes: ETags and 304s on reads, If-Match on writes. */
export default fp(
  async function conditionalPlugin(app: FastifyInstance) {
    app.decorateReply('contentTag', null);
    app.decorateReply('recordRevision', null);
    // After validation (the path's ids are well-formed) and before the handler: the domain reads it
    // from the caller. Only on the writes (a read is never conditional on a revision: RFC 9110 lets a
    // server ignore If-Match there), with the route's target found once, when the route is declared.
    app.addHook('onRoute', (route) => {
      const methods = methodsOf(route).filter((method) => WRITES.has(method));
      if (methods.length === 0) return;
      const targets = new Map(methods.map((method) => [method, conditionalTarget(method, route.url)]));
      const readIfMatch = (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
        if (request.caller) {
          const expectedVersion = expectedVersionOf(request.headers['if-match'], request.params as Record<string, string>, targets.get(request.method));
          if (expectedVersion) request.caller = { ...request.caller, expectedVersion };
        }
        done();
      };
      prependRouteHook(route, 'preHandler', readIfMatch);
    });

    // Registered before compression, so that the hash is of the JSON itself, whatever the encoding.
    // Synchronous: it runs on every answer and waits on nothing.
    app.addHook('onSend', (request, reply, payload, done) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return done(null, payload);
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return done(null, payload);
      const hashed = reply.contentTag ?? entityTag(payload);
      const tag = reply.recordRevision === null ? hashed : revisionTag(reply.recordRevision, hashed);
      reply.header('ETag', tag);
      reply.header('Cache-Control', 'private, no-cache');
      if (!noneMatch(request.headers['if-none-match'], tag)) return done(null, payload);
      reply.code(304);
      reply.removeHeader('content-type');
      reply.removeHeader('content-length');
      done(null, '');
    });
  },
  { name: 'conditional' },
);
