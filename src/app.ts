import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import type { AppConfig } from './config.ts';
import type { NotificationSender } from './domain/notifications/sender.ts';
import type { Clock } from './domain/shared/clock.ts';
import auth from './plugins/auth.ts';
import conditional from './plugins/conditional.ts';
import errors, { clientErrorHandler, frameworkErrors } from './plugins/errors.ts';
import events from './plugins/events.ts';
import idempotency from './plugins/idempotency.ts';
import jobs from './plugins/jobs.ts';
import { buildSerializerOnFirstUse } from './plugins/lazy-compilers.ts';
import metrics from './plugins/metrics.ts';
import people from './plugins/people.ts';
import rateLimit from './plugins/rate-limit.ts';
import requestId, { requestIdOf } from './plugins/request-id.ts';
import security from './plugins/security.ts';
import services from './plugins/services.ts';
import storagePlugin from './plugins/storage.ts';
import swagger from './plugins/swagger.ts';
import validation from './plugins/validation.ts';
import webApp from './plugins/web-app.ts';
import webhooks, { type WebhooksPluginOptions } from './plugins/webhooks.ts';
import { createRateLimiter } from './ratelimit/index.ts';
import type { RateLimiter } from './ratelimit/limiter.ts';
import routes from './routes/index.ts';
import { Event } from './schemas/events.ts';
import type { StorageConnection } from './storage/open.ts';
import { startupBoundMs } from './storage/postgres-pool.ts';

export interface BuildOptions {
  config: AppConfig;
  /** An open storage to use instead of opening `config.databaseUrl` (tests share one). */
  storage?: StorageConnection;
  /** The rate limiter behind the rate-limit hook; default: from the configuration; null: none. */
  rateLimiter?: RateLimiter | null;
  logger?: FastifyServerOptions['logger'];
  /** The webhook dispatcher's test overrides (retry schedule, jitter), or false for none. */
  webhookDispatcher?: WebhooksPluginOptions['dispatcher'];
  /** The one clock of the app (`ServiceContext.clock`: jobs, expiries, the authentication cache); tests set it. Default: the system's. */
  clock?: Clock;
  /** Where notifications go besides the API (email...); default: nowhere. */
  notificationSender?: NotificationSender;
  /** `false`: write no events (see `ServiceContext.recordEvents`; `npm run bench` only). */
  recordEvents?: false;
  /** The built web app to serve at `/` (default web/dist; none there: the API alone); false: none. */
  webDir?: string | false;
}

/** Builds the whole application; the server and the tests both start from here. */
export async function buildApp(options: BuildOptions) {
  const { config } = options;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    genReqId: requestIdOf,
    requestIdHeader: false,
    // One line per request, written by the request-id plugin with the route template and caller.
    logController: new LogController({ disableRequestLogging: true }),
    // Bounds on a slow or stalled client (see docs/operations.md).
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    maxRequestsPerSocket: config.http.maxRequestsPerSocket,
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      // Node checks the two bounds above this often (default 30 s, which would stretch them).
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(config.http.headersTimeoutMs / 4))),
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // What the router and Node's HTTP parser refuse is answered in the contract's error body too.
    frameworkErrors,
    clientErrorHandler,
    // Starting waits on the database (connect, then migrations); its own bounds end that wait with an
    // error naming the database, so Fastify's plugin timeout must not fire first.
    pluginTimeout: startupBoundMs(config.database),
    // Each route's serializers are built when it first answers (src/plugins/lazy-compilers.ts).
    schemaController: { compilersFactory: { buildSerializer: buildSerializerOnFirstUse } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // JSON only (the upload routes add multipart in their own context): any other body type is a 415.
  app.removeContentTypeParser('text/plain');
  // Many clients send `Content-Type: application/json` with no body on DELETE or rotate: read that as
  // no body (a route that needs one still answers 400) instead of a parse error.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, undefined) : parseJson(request, body as string, done),
  );
  // A start that fails part way (a plugin throws) closes what the plugins before it opened (the
  // database, the event bell's connections, the dispatcher): nobody else holds the app to close it.
  try {
    await app.register(requestId);
    await app.register(errors);
    await app.register(validation);
    // Their onSend hooks read the JSON text, so they come before compression (security); their other
    // hooks run after authentication whatever the order of registration.
    await app.register(conditional);
    await app.register(idempotency);
    await app.register(security, { config });
    await app.register(storagePlugin, { config, ...(options.storage ? { storage: options.storage } : {}) });
    await app.register(services, { config, clock: options.clock, recordEvents: options.recordEvents });
    await app.register(events, { config });
    await app.register(webhooks, { config, dispatcher: options.webhookDispatcher });
    await app.register(auth, { clock: options.clock });
    await app.register(people);
    await app.register(jobs, { config, sender: options.notificationSender });
    // `undefined`: the limiter the configuration asks for; `null`: none (tests that do not test limits).
    const limiter = options.rateLimiter !== undefined ? options.rateLimiter : await createRateLimiter({ config, storage: app.storage, log: app.log });
    await app.register(rateLimit, { config, limiter });
    await app.register(metrics, { config, limiter });
    await app.register(swagger);
    // shared schemas, named in /openapi.json (components.schemas) and referenced by routes as `Name#`
    app.addSchema(Event);
    await app.register(routes);
    if (options.webDir !== false) await app.register(webApp, options.webDir ? { dir: options.webDir } : {});
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
