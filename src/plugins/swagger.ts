import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type Tier, tierOfRoute } from '../config.ts';
import { completeDocument } from '../http/openapi-document.ts';
import { sendsDocumentSecurityHeaders } from './security.ts';

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
          license: { name: 'MIT', identifier: 'MIT' },
        },
        // Relative: the document is right wherever the server is reached (clients pass their base URL).
        servers: [{ url: '/', description: 'this server' }],
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'an API key (tb_…)' },
            session: {
              type: 'apiKey',
              in: 'cookie',
              name: 'taskboard_session',
              description:
                "a signed-in person's session (POST /api/v1/auth/sign-in; `__Host-taskboard_session` over HTTPS). " +
                'Changes (POST, PATCH, DELETE) also need the header `X-CSRF-Token: <csrfToken>` (from the sign-in answer or GET /api/v1/auth/session) and a same-origin or allowed Origin.',
            },
          },
        },
        security: [{ bearer: [] }, { session: [] }],
      },
      // A schema with an `$id` (src/schemas: Card, Label, Error …) is one named component, referenced
      // wherever a route uses it; validation and serialization read the same objects inline.
      refResolver: {
        buildLocalReference: (json: { $id?: unknown }, _baseUri: unknown, _fragment: unknown, i: number) =>
          typeof json.$id === 'string' ? json.$id : `def-${i}`,
      },
      transformObject: (document) =>
        completeDocument(('openapiObject' in document ? document.openapiObject : {}) as Parameters<typeof completeDocument>[0], {
          rateLimited: app.config.rateLimit.enabled,
        }) as never,
      // The document states what the hooks enforce: public routes need no key, the others name their tier.
      transform({ schema, url, route }) {
        const config = (route.config ?? {}) as { public?: boolean; tier?: Tier };
        if (!schema || schema.hide) return { schema, url };
        if (config.public) return { schema: { security: [], ...schema }, url };
        const method = Array.isArray(route.method) ? route.method[0] : route.method;
        const tier = tierOfRoute(app.config.rateLimit, `${method} ${route.url}`, config.tier);
        if (!tier) return { schema, url };
        const { enabled, tiers, windowSeconds } = app.config.rateLimit;
        const note = enabled ? `Rate limit: tier \`${tier}\`, ${tiers[tier]} requests per API key in any rolling ${windowSeconds} s.` : '';
        const description = [schema.description, note].filter(Boolean).join('\n\n');
        return { schema: { ...schema, ...(description ? { description } : {}), 'x-rate-limit-tier': tier }, url };
      },
    });
    // The docs UI and its assets are public: a browser opening /docs sends no API key. Its pages
    // are documents a browser renders, with the security headers of one.
    await app.register(async (docs) => {
      docs.addHook('onRequest', sendsDocumentSecurityHeaders);
      docs.addHook('onRoute', (route) => {
        route.config = { ...route.config, public: true };
      });
      await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
    });
    app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'swagger', dependencies: ['services'] },
);
