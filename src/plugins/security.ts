import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import type { AppConfig } from '../config.ts';
import { methodsOf } from './route-hooks.ts';

/**
 * Helmet's headers for `options`, computed once. Helmet decides them (the maintained list of what
 * browsers need); with no per-request nonce they are the same on every answer, so they are captured
 * from its middleware once. @fastify/helmet instead built a new helmet middleware (parsing every CSP
 * directive) in two hooks per request, one of them async.
 */
export function securityHeaders(options?: Parameters<typeof helmet>[0]): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => {
      headers[name.toLowerCase()] = value;
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as never, response as never, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

/**
 * The API's answers (JSON, never a page a browser renders): the headers OWASP's REST Security Cheat
 * Sheet asks of an API. Nothing may load from or frame an answer (`default-src 'none'`,
 * `frame-ancestors 'none'`, `X-Frame-Options: DENY`), no sniffing, HSTS, no referrer, and no
 * cross-origin embedding. Helmet's headers for HTML documents (opener policy, origin-agent cluster,
 * DNS prefetch, download options, Flash's cross-domain policy, the XSS auditor) say nothing to a
 * JSON client: each header costs every answer its bytes and its checks in Node's `writeHead`.
 */
const API_SECURITY_HEADERS = securityHeaders({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  xFrameOptions: { action: 'deny' },
});

/**
 * The pages of the docs UI (/docs): Helmet's whole default set. Its CSP ('self' scripts, inline
 * styles, data: images) is what the UI needs: its page loads its own scripts and styles from
 * /docs/static.
 */
const DOCUMENT_SECURITY_HEADERS = securityHeaders();

/** An onRequest hook for routes that serve pages: their headers replace the API's. */
export function sendsDocumentSecurityHeaders(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.headers(DOCUMENT_SECURITY_HEADERS);
  done();
}

/**
 * What every answer carries, whatever the route: security headers, compression, and CORS for the
 * browsers the configuration names (none unless `CORS_ORIGINS` says so).
 */
export default fp(
  async function securityPlugin(app: FastifyInstance, opts: { config: AppConfig }) {
    // the docs UI's routes add `sendsDocumentSecurityHeaders` (src/plugins/swagger.ts)
    app.addHook('onRequest', (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      reply.headers(API_SECURITY_HEADERS);
      done();
    });
    // A board view's JSON compresses well; brotli at quality 4 is smaller still and about as fast
    // as gzip (its default, 11, costs far more CPU than it saves bytes).
    await app.register(compress, {
      global: true,
      threshold: 1024,
      encodings: ['br', 'gzip', 'deflate'],
      brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    });
    const { origins, maxAgeSeconds } = opts.config.cors;
    // @fastify/cors answers a preflight in its onRequest hook, before authentication; what reaches
    // its catch-all route `OPTIONS *` (CORS off, or no preflight) is passed to the not-found handler:
    // a 405 with Allow. Public, so neither a key nor a rate-limit tier is asked of it (it had none:
    // an OPTIONS with a valid key was a 500, one without a 401).
    app.addHook('onRoute', (route) => {
      if (route.url === '*' && methodsOf(route).includes('OPTIONS')) route.config = { ...route.config, public: true };
    });
    await app.register(cors, {
      // an OPTIONS without Origin is no preflight a browser sends: answered as one, not as a text/plain 400
      strictPreflight: false,
      origin: origins === '*' ? '*' : origins.length ? origins : false,
      methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
      exposedHeaders: [
        'RateLimit',
        'RateLimit-Policy',
        'Retry-After',
        'X-Request-Id',
        'traceparent',
        'Content-Disposition',
        'ETag',
        'Location',
        'Idempotent-Replayed',
      ],
      maxAge: maxAgeSeconds,
    });
  },
  { name: 'security' },
);
