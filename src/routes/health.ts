import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { checkReadiness } from '../http/readiness.ts';
import { ErrorBody, NoQuery } from '../schemas/common.ts';

const Health = Type.Object({ status: Type.String() });

const Check = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('failed')]),
  message: Type.Optional(Type.String({ description: 'Why the check failed, e.g. "timed out after 1000 ms"' })),
  durationMs: Type.Integer({ minimum: 0 }),
});

const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded'), Type.Literal('not ready')], {
    description: '`degraded`: serving, with the database standing in for an unavailable Redis',
  }),
  checks: Type.Object(
    {
      database: Check,
      uploadDir: Type.Optional(Check),
      bucket: Type.Optional(Check),
      databaseFile: Type.Optional(Check),
      redis: Type.Optional(Check),
    },
    { description: 'Each check runs in parallel and counts as failed when it takes longer than 1 s' },
  ),
});

/**
 * Liveness and readiness for orchestrators and load balancers; no API key needed. Their answers are
 * a few bytes: no compression hook (its check for a fetch Response loads Node's fetch implementation
 * into a server that has answered nothing else yet).
 */
const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    {
      config: { public: true },
      compress: false,
      schema: {
        tags: ['health'],
        operationId: 'getLiveness',
        summary: 'Liveness',
        security: [],
        querystring: NoQuery,
        response: { 200: Health, 400: ErrorBody },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      config: { public: true },
      compress: false,
      schema: {
        tags: ['health'],
        operationId: 'getReadiness',
        summary:
          'Readiness: the database answers, its file is there (SQLite), uploads can be stored (the folder is writable, or the bucket answers), Redis answers (if configured)',
        security: [],
        querystring: NoQuery,
        response: { 200: Readiness, 400: ErrorBody, 503: Readiness },
      },
    },
    async (_request, reply) => {
      const readiness = await checkReadiness({ storage: app.storage, attachments: app.services.files, rateLimiter: app.rateLimiter });
      return reply.status(readiness.status === 'not ready' ? 503 : 200).send(readiness);
    },
  );
};

export default health;
