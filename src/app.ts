import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import auth from './plugins/auth.ts';
import type { AppConfig } from './plugins/config.ts';
import errors from './plugins/errors.ts';
import rateLimit, { type RateLimiter } from './plugins/rate-limit.ts';
import services from './plugins/services.ts';
import storagePlugin from './plugins/storage.ts';
import swagger from './plugins/swagger.ts';
import validation from './plugins/validation.ts';
import { createRateLimiter } from './ratelimit/index.ts';
import routes from './routes/index.ts';
import type { StorageConnection } from './storage/dialect.ts';

export interface BuildOptions {
  config: AppConfig;
  /** An open storage to use instead of opening `config.databaseUrl` (tests share one). */
  storage?: StorageConnection;
  /** The rate limiter behind the rate-limit hook; default: from the configuration; null: none. */
  rateLimiter?: RateLimiter | null;
  logger?: FastifyServerOptions['logger'];
}

/** Builds the whole application; the server and the tests both start from here. */
export async function buildApp(options: BuildOptions) {
  const { config } = options;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Starting waits on the database (connect, then migrations); its own bounds end that wait with an
    // error naming the database, so Fastify's plugin timeout must not fire first.
    pluginTimeout: Math.max(10_000, config.database.connectTimeoutMs + 3 * (config.database.statementTimeoutMs + 1000)),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // JSON (and multipart where a route reads files) only: any other body type is a 415.
  app.removeContentTypeParser('text/plain');
  // Many clients send `Content-Type: application/json` with no body on DELETE or rotate: read that as
  // no body (a route that needs one still answers 400) instead of a parse error.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, undefined) : parseJson(request, body as string, done),
  );
  await app.register(errors);
  await app.register(validation);
  await app.register(cors, {
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    exposedHeaders: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'Content-Disposition'],
  });
  await app.register(multipart, { limits: { fileSize: config.maxUploadBytes, files: 1, fields: 10, parts: 12 } });
  await app.register(storagePlugin, { config, ...(options.storage ? { storage: options.storage } : {}) });
  await app.register(services, { config });
  await app.register(auth);
  // `undefined`: the limiter the configuration asks for; `null`: none (tests that do not test limits).
  const limiter =
    options.rateLimiter !== undefined
      ? options.rateLimiter
      : await createRateLimiter({ config, storage: app.storage, log: app.log });
  await app.register(rateLimit, { config, limiter });
  await app.register(swagger);
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  await app.register(routes);
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
