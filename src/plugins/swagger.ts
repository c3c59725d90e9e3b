import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** The OpenAPI 3.1 document, generated from the route schemas that also validate and serialize. */
export default fp(
  async function swaggerPlugin(app: FastifyInstance) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Taskboard API',
          version: '1.0.0',
          description:
            'Companies → teams → boards → lists → cards. Authenticate with `Authorization: Bearer <API key>`. ' +
            'Every API-key request counts against a per-key, per-route rate-limit bucket.',
        },
        components: {
          securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'an API key (tb_…)' } },
        },
        security: [{ bearer: [] }],
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
    app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'swagger' },
);
