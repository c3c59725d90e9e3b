import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { authenticate } from '../domain/account/service.ts';
import type { Caller } from '../domain/shared/caller.ts';
import { UnauthorizedError } from '../domain/shared/errors.ts';
import type { Tier } from '../config.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Routes that need no API key (health, docs). */
    public?: boolean;
    /** The route's rate-limit tier from the contract; every authenticated route has one. */
    tier?: Tier;
  }
  interface FastifyRequest {
    caller: Caller;
  }
}

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/** The API key the request presents (a live stream authenticates it again at each heartbeat). */
export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw new UnauthorizedError('Missing Authorization: Bearer <API key>', false);
  const token = BEARER.exec(header)?.[1];
  if (!token) throw new UnauthorizedError('Authorization must be "Bearer <API key>"', true);
  return token;
}

/**
 * Authenticates every non-public route in onRequest, before the body is read, so a request without
 * a valid key costs nothing and never reaches a rate-limit bucket.
 */
export default fp(
  async function authPlugin(app: FastifyInstance) {
    app.decorateRequest('caller', null as unknown as Caller);
    // A callback hook: a key the cache knows is answered without a promise.
    app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
      if (request.routeOptions.config.public || !request.routeOptions.url) return done();
      let caller: Caller | Promise<Caller>;
      try {
        caller = authenticate(app.services, bearerToken(request));
      } catch (error) {
        return done(error as Error);
      }
      if (!(caller instanceof Promise)) {
        request.caller = { ...caller, requestId: request.id };
        return done();
      }
      caller.then((found) => {
        request.caller = { ...found, requestId: request.id };
        done();
      }, done);
    });
  },
  { name: 'auth', dependencies: ['services'] },
);
