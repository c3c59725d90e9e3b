import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';

/**
 * What every answer carries, whatever the route: security headers, compression, and CORS for the
 * browsers the configuration names (none unless `CORS_ORIGINS` says so).
 */
export default fp(
  async function securityPlugin(app: FastifyInstance, opts: { config: AppConfig }) {
    // Helmet's default CSP ('self' scripts, inline styles, data: images) is what the /docs UI needs:
    // its page loads its own scripts and styles from /docs/static. The API answers JSON, which a
    // CSP does not restrict.
    await app.register(helmet, { global: true });
    // A board view is ~7x smaller gzipped; brotli at quality 4 is smaller still and about as fast
    // as gzip (its default, 11, costs far more CPU than it saves bytes).
    await app.register(compress, {
      global: true,
      threshold: 1024,
      encodings: ['br', 'gzip', 'deflate'],
      brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    });
    const { origins, maxAgeSeconds } = opts.config.cors;
    await app.register(cors, {
      origin: origins === '*' ? '*' : origins.length ? origins : false,
      methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
      exposedHeaders: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'traceparent', 'Content-Disposition'],
      maxAge: maxAgeSeconds,
    });
  },
  { name: 'security' },
);
