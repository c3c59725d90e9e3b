import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { frameworkErrors } from './errors.ts';
import { installableFiles, unchanged } from './installable-app.ts';
import { securityHeaders } from './security.ts';

/** Where `npm start` puts the built web app (web/dist, see scripts/build-web.sh). */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/**
 * Paths that belong to the API and its tools: never answered with the app's page, so a mistyped
 * API path keeps its JSON 404 (or 405) instead of an HTML document a client cannot parse.
 */
const API_PREFIXES = ['/api', '/v2', '/openapi.json', '/docs', '/healthz', '/readyz', '/metrics'];

export function isApiPath(path: string): boolean {
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`));
}

/**
 * The page's own headers: a strict CSP (scripts, styles, images and requests from this origin only;
 * no inline script), no framing, no referrer. Images may also be `data:` and `blob:` (previews).
 */
const PAGE_SECURITY_HEADERS = securityHeaders({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      connectSrc: ["'self'"],
      fontSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  xFrameOptions: { action: 'deny' },
});

/** What the web build writes beside index.html (web/build/page-preloads.ts): each page address's own files. */
const PAGE_PRELOADS_FILE = 'page-preloads.json';

/**
 * The `Link` header for each page address whose code is a chunk of its own (docs/decisions/0278),
 * as the build listed them: the browser fetches those chunks beside the entry chunk, not once the
 * entry has run and asked for them. Answers the header for a path, or undefined.
 */
export function pagePreloadLinks(dir: string): (path: string) => string | undefined {
  const file = join(dir, PAGE_PRELOADS_FILE);
  if (!existsSync(file)) return () => undefined;
  const pages = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { scripts: string[]; styles: string[] }>;
  const links = Object.entries(pages).map(([pattern, files]) => {
    const parts = pattern.split('/');
    const rest = parts.at(-1) === '*';
    return {
      fixed: rest ? parts.slice(0, -1) : parts,
      rest,
      header: [...files.scripts.map((url) => `<${url}>; rel=modulepreload`), ...files.styles.map((url) => `<${url}>; rel=preload; as=style`)].join(', '),
    };
  });
  // `:name` is one segment, a final `*` any rest
  const fits = (part: string, segment: string | undefined) => part === segment || (part.startsWith(':') && Boolean(segment));
  return (path) => {
    const segments = path.replace(/\/+$/, '').split('/');
    const link = links.find(
      ({ fixed, rest }) => (rest ? segments.length >= fixed.length : segments.length === fixed.length) && fixed.every((part, i) => fits(part, segments[i])),
    );
    return link?.header || undefined;
  };
}

/**
 * Serves the web app built into `dir`: the hashed assets under /assets with a year's immutable cache,
 * and `index.html` (never cached, so a new build is picked up at once) for every other GET that is
 * not an API path, so the app's own routes (/boards/…) load on a reload or a shared link. Without a
 * build (tests of the API alone) nothing is served and `/` stays the API's JSON 404.
 */
export default fp(
  async function webAppPlugin(app: FastifyInstance, opts: { dir?: string }) {
    const dir = opts.dir ?? DEFAULT_WEB_DIR;
    const indexFile = join(dir, 'index.html');
    if (!existsSync(indexFile)) {
      app.log.debug({ dir }, 'no web app build: serving the API only');
      return;
    }
    await app.register(async (web) => {
      web.addHook('onRoute', (route) => {
        route.config = { ...route.config, public: true };
        route.schema = { ...route.schema, hide: true };
      });
      await web.register(fastifyStatic, {
        root: join(dir, 'assets'),
        prefix: '/assets/',
        decorateReply: false,
        immutable: true,
        maxAge: '365d',
        cacheControl: true,
        index: false,
        // One route per built file (the build is made before the server starts): a missing file falls
        // through to the not-found handler as a 404, not a 405 from a matching wildcard route.
        wildcard: false,
      });
      const indexHtml = readFileSync(indexFile);
      const preloadsOf = pagePreloadLinks(dir);
      const sendPage = (request: FastifyRequest, reply: FastifyReply) => {
        const preloads = preloadsOf(request.url.split('?')[0] ?? '/');
        if (preloads) reply.header('Link', preloads);
        return reply.headers(PAGE_SECURITY_HEADERS).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
      };
      web.get('/', sendPage);
      // The manifest, the service worker and the icons; `/index.html` is the page (the worker precaches it by that name).
      const installable = installableFiles(dir, PAGE_SECURITY_HEADERS);
      const maxParamLength = (app.initialConfig as { routerOptions?: { maxParamLength?: number } }).routerOptions?.maxParamLength ?? 100;
      web.get('/*', (request, reply) => {
        const path = request.url.split('?')[0] ?? '/';
        if (isApiPath(path)) {
          // An API path reaches this catch-all instead of the router's refusal when one of its
          // parameters is over the router's limit: answered as the router's refusal is.
          if (path.split('/').some((segment) => segment.length > maxParamLength)) {
            return frameworkErrors(Object.assign(new Error('path parameter too long'), { code: 'FST_ERR_MAX_PARAM_LENGTH' }) as FastifyError, request, reply);
          }
          return reply.callNotFound();
        }
        const file = installable.get(path);
        if (file)
          return unchanged(request.headers['if-none-match'], file) ? reply.headers(file.headers).code(304).send() : reply.headers(file.headers).send(file.body);
        if (path === '/index.html') return sendPage(request, reply);
        // A path that names a file (favicon.ico, robots.txt) is no page of the app.
        if (/\.[a-z0-9]+$/i.test(path)) return reply.callNotFound();
        return sendPage(request, reply);
      });
    });
  },
  { name: 'web-app' },
);
