import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { type AppConfig, ConfigError, type Tier, tierOfRoute } from '../config.ts';
import type { RateLimitDecision, RateLimiter } from '../ratelimit/limiter.ts';
import { sendError } from './errors.ts';
import { methodsOf } from './route-hooks.ts';

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: RateLimiter | null;
  }
  interface FastifyRequest {
    /** What the limiter decided for this request (read by the metrics). */
    rateLimitOutcome: { tier: Tier; outcome: 'admitted' | 'refused' | 'unavailable' } | undefined;
  }
}

/**
 * The one place every API-key request passes with its key, route template and tier. With no limiter
 * configured it admits everything; the exact limiter (src/ratelimit/) plugs in through `opts.limiter`.
 * A limiter that cannot decide fails closed: 503 `unavailable` (it has fallbacks of its own first).
 */
export default fp(
  async function rateLimitPlugin(app: FastifyInstance, opts: { config: AppConfig; limiter?: RateLimiter | null }) {
    const limiter = opts.limiter ?? null;
    app.decorate('rateLimiter', limiter);

    // A route without a tier would escape the limits: refuse to start instead. Checked once every
    // route is in, since plugins may still set a route's config in their own onRoute hooks (the docs
    // UI's routes become public that way).
    const routes: RouteOptions[] = [];
    app.addHook('onRoute', (route) => {
      routes.push(route);
    });
    app.addHook('onReady', async () => {
      const untiered = routes.filter((route) => !route.config?.public && !route.config?.tier);
      if (untiered.length) {
        throw new Error(`routes without a rate-limit tier (config.tier): ${untiered.map((r) => `${r.method} ${r.url}`).join(', ')}`);
      }
      // An override naming no route (a typo such as :id for :cardId) would silently change nothing.
      const served = new Set(routes.flatMap((route) => methodsOf(route).map((method) => `${method} ${route.url}`)));
      const unknown = Object.keys(opts.config.rateLimit.routeTiers).filter((route) => !served.has(route));
      if (unknown.length) throw new ConfigError(`RATE_LIMIT_ROUTE_TIERS names routes the API does not serve: ${unknown.join(', ')}`);
      routes.length = 0;
    });

    if (!limiter) return;
    const sessionLimits = Object.fromEntries(
      Object.entries(opts.config.rateLimit.tiers).map(([tier, limit]) => [tier, limit * opts.config.people.sessionRateLimitFactor]),
    ) as Record<Tier, number>;
    app.decorateRequest('rateLimitOutcome', undefined);
    app.addHook('onClose', async () => limiter.close());
    /** Whether the limiter is failing: logged when that starts and ends, not per request. */
    let failing = false;
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (!request.caller) return;
      // HEAD is GET without the body: same work, so same bucket (else it would double the allowance).
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const route = `${method} ${request.routeOptions.url}`;
      const tier = tierOfRoute(opts.config.rateLimit, route, request.routeOptions.config.tier);
      if (!tier) throw new Error(`route ${route} has no rate-limit tier`);
      let decision: RateLimitDecision;
      try {
        // A signed-in person's requests count per user, apart from the user's keys, in larger buckets.
        const caller = request.caller;
        decision = await limiter.consume(
          caller.apiKeyId !== null
            ? { apiKeyId: caller.apiKeyId, route, tier }
            : { apiKeyId: `user:${caller.userId}`, route, tier, limit: sessionLimits[tier] },
        );
        if (failing) {
          failing = false;
          app.log.info('rate limiter: deciding again');
        }
      } catch (error) {
        // No store can decide (the database is down too): refuse rather than run unlimited.
        if (!failing) {
          failing = true;
          app.log.error({ err: error }, 'rate limiter: cannot decide, answering 503 until it can');
        }
        request.rateLimitOutcome = { tier, outcome: 'unavailable' };
        reply.header('Retry-After', '1');
        return sendError(request, reply, 503, 'unavailable', 'The service is temporarily unavailable, please try again shortly.');
      }
      request.rateLimitOutcome = { tier, outcome: decision.allowed ? 'admitted' : 'refused' };
      reply.header('RateLimit-Policy', `"${decision.tier}";q=${decision.limit};w=${decision.windowSeconds}`);
      reply.header('RateLimit', `"${decision.tier}";r=${decision.remaining};t=${decision.resetSeconds}`);
      if (!decision.allowed) {
        reply.header('Retry-After', String(Math.max(1, decision.resetSeconds)));
        return sendError(request, reply, 429, 'rate_limited', 'Too many requests, please try again later.');
      }
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
