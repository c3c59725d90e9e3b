import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Tier } from '../config.ts';
import { requireKeyPermits } from '../domain/access/access.ts';
import { authenticate } from '../domain/account/service.ts';
import { authenticateSession, csrfTokenMatches, type SessionPolicy } from '../domain/people/sessions.ts';
import type { Caller } from '../domain/shared/caller.ts';
import { ForbiddenError, UnauthorizedError } from '../domain/shared/errors.ts';
import { allowedOrigin, CSRF_HEADER, sessionTokenOf } from './session-cookie.ts';

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
  interface FastifyInstance {
    /** What sessions live by (idle and absolute lifetimes, the clock). */
    sessionPolicy: SessionPolicy;
  }
}

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/** The API key the request presents (a live stream authenticates it again at each heartbeat). */
export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw new UnauthorizedError('Missing Authorization: Bearer <API key> (or a session cookie)', false);
  const token = BEARER.exec(header)?.[1];
  if (!token) throw new UnauthorizedError('Authorization must be "Bearer <API key>"', true);
  return token;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Authenticates the request again as it was at the start, by its key or by its session: what a
 * live stream calls at each heartbeat.
 */
export function reauthenticator(request: FastifyRequest): () => Caller | Promise<Caller> {
  const app = request.server;
  const session = request.caller?.apiKeyId === null ? sessionTokenOf(request) : undefined;
  if (session) return () => authenticateSession(app.services, app.sessionPolicy, session);
  const token = bearerToken(request);
  return () => authenticate(app.services, token, request.ip);
}

/**
 * Authenticates every non-public route in onRequest, before the body is read, so a request without
 * a valid key or session costs nothing and never reaches a rate-limit bucket. A request with an
 * `Authorization` header is a key's, whatever cookies it carries; without one, the session cookie
 * (docs/people.md) authenticates, and a change must then carry the session's CSRF token and come
 * from an allowed origin.
 */
export default fp(
  async function authPlugin(app: FastifyInstance, opts: { clock?: SessionPolicy['clock'] }) {
    app.decorateRequest('caller', null as unknown as Caller);
    app.decorate('sessionPolicy', {
      idleMs: app.config.people.sessionIdleMs,
      absoluteMs: app.config.people.sessionAbsoluteMs,
      clock: opts.clock,
    });
    // A callback hook: a key the cache knows is answered without a promise.
    app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
      if (request.routeOptions.config.public || !request.routeOptions.url) return done();
      let caller: Caller | Promise<Caller>;
      try {
        const session = request.headers.authorization === undefined ? sessionTokenOf(request) : undefined;
        caller = session ? authenticateSession(app.services, app.sessionPolicy, session) : authenticate(app.services, bearerToken(request), request.ip);
      } catch (error) {
        return done(error as Error);
      }
      if (!(caller instanceof Promise)) {
        try {
          admit(request, caller);
        } catch (error) {
          return done(error as Error);
        }
        return done();
      }
      caller.then((found) => {
        try {
          admit(request, found);
        } catch (error) {
          return done(error as Error);
        }
        done();
      }, done);
    });
  },
  { name: 'auth', dependencies: ['services'] },
);

function admit(request: FastifyRequest, caller: Caller): void {
  if (caller.session && !SAFE_METHODS.has(request.method)) refuseForgery(request, caller);
  requireKeyPermits(caller, request.method);
  const agent = request.headers['user-agent'];
  request.caller = { ...caller, requestId: request.id, client: { ip: request.ip, userAgent: typeof agent === 'string' ? agent : undefined } };
}

/** A cookie-authenticated change needs the session's CSRF token and an allowed Origin (OWASP's CSRF cheat sheet). */
function refuseForgery(request: FastifyRequest, caller: Caller): void {
  if (!allowedOrigin(request)) throw new ForbiddenError("Cross-site request refused: its Origin is not this service's");
  const presented = request.headers[CSRF_HEADER];
  if (!csrfTokenMatches(caller, typeof presented === 'string' ? presented : undefined)) {
    throw new ForbiddenError(`Missing or wrong ${CSRF_HEADER} header: send the csrfToken of your session (GET /api/v1/auth/session)`);
  }
}
