import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { NoQuery } from '../schemas/common.ts';

const Health = Type.Object({ status: Type.String() });

/** Liveness and readiness for orchestrators and load balancers; no API key needed. */
const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: { tags: ['health'], summary: 'Liveness', security: [], querystring: NoQuery, response: { 200: Health } },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: { tags: ['health'], summary: 'Readiness: the database answers', security: [], querystring: NoQuery, response: { 200: Health, 503: Health } },
    },
    async (_request, reply) => {
      try {
        await sql`select 1`.execute(app.storage.db);
        return { status: 'ready' };
      } catch {
        return reply.status(503).send({ status: 'database unavailable' });
      }
    },
  );
};

export default health;
