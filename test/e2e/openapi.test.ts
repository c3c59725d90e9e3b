/**
 * The OpenAPI document is generated from the route schemas; these tests hold it to what the app
 * really serves, whatever routes exist. The served routes are recorded the exact way Fastify
 * announces them (an onRoute hook), attached through Fastify's `fastify.initialization` diagnostics
 * channel, so the app is built by the same code as in production.
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { TIERS, type Tier, tierOfRoute } from '../../src/config.ts';
import { seedBoard } from '../support/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';

interface ServedRoute {
  method: string;
  /** Fastify form: `/api/v1/cards/:cardId`. */
  url: string;
  /** OpenAPI form: `/api/v1/cards/{cardId}`. */
  path: string;
  config: { public?: boolean; tier?: string };
  schema: Record<string, unknown> | undefined;
}

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean; schema?: unknown }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
  'x-rate-limit-tier'?: string;
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  security?: Record<string, string[]>[];
  components?: {
    securitySchemes?: Record<string, { type: string; scheme?: string }>;
    schemas?: Record<string, JsonSchema>;
    responses?: Record<string, NonNullable<Operation['responses']>[string]>;
  };
  paths: Record<string, Record<string, Operation>>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function toOpenApiPath(url: string): string {
  const path = url.length > 1 ? url.replace(/\/+$/, '') : url;
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Routes that are not API operations: the docs UI, the document itself, CORS preflight, auto HEAD. */
function isApiOperation(route: ServedRoute, all: ServedRoute[]): boolean {
  if (route.url === '/docs' || route.url.startsWith('/docs/')) return false;
  if (route.url === '/openapi.json') return false;
  // The web app's page and its files (src/plugins/web-app.ts), served when a build exists.
  if (route.url === '/' || route.url === '/*' || route.url.startsWith('/assets/')) return false;
  if (route.method === 'OPTIONS' && route.url === '*') return false; // @fastify/cors preflight
  if (route.method === 'HEAD' && all.some((r) => r.method === 'GET' && r.path === route.path)) return false;
  return true;
}

function key(method: string, path: string) {
  return `${method.toUpperCase()} ${path}`;
}

/** Resolves a local `$ref` so the checks below see the schema itself. */
function deref(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  let current = schema;
  for (let hops = 0; current?.$ref && hops < 10; hops++) {
    const name = current.$ref.replace('#/components/schemas/', '');
    current = doc.components?.schemas?.[name];
  }
  return current;
}

type ResponseObject = NonNullable<Operation['responses']>[string] & { $ref?: string };

/** Resolves a shared response (`#/components/responses/…`). */
function derefResponse(doc: OpenApiDocument, response: ResponseObject | undefined): ResponseObject | undefined {
  const name = response?.$ref?.replace('#/components/responses/', '');
  return name ? doc.components?.responses?.[name] : response;
}

/** Object bodies must be closed: an unknown field is a 400, never silently stored. */
function openObjects(doc: OpenApiDocument, schema: JsonSchema | undefined, where: string): string[] {
  const s = deref(doc, schema);
  if (!s) return [`${where}: no schema`];
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
  if (branches.length) return branches.flatMap((b, i) => openObjects(doc, b, `${where} branch ${i}`));
  const isObject = s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object')) || s.properties;
  if (isObject && s.additionalProperties !== false) return [`${where}: object without additionalProperties: false`];
  return [];
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let served: ServedRoute[];
  let doc: OpenApiDocument;
  let operations: { method: string; path: string; op: Operation }[];

  before(async () => {
    served = [];
    const record = (message: unknown) => {
      const { fastify } = message as { fastify: FastifyInstance };
      fastify.addHook('onRoute', (route: RouteOptions) => {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        for (const method of methods) {
          served.push({
            method: String(method).toUpperCase(),
            url: route.url,
            path: toOpenApiPath(route.url),
            config: (route.config ?? {}) as ServedRoute['config'],
            schema: route.schema as Record<string, unknown> | undefined,
          });
        }
      });
    };
    diagnostics.subscribe('fastify.initialization', record);
    try {
      t = await buildTestApp('sqlite');
    } finally {
      diagnostics.unsubscribe('fastify.initialization', record);
    }
    doc = t.app.swagger() as unknown as OpenApiDocument;
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
  });
  after(() => t?.dispose());

  it('is OpenAPI 3.1, served at GET /openapi.json without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json() as OpenApiDocument;
    assert.match(body.openapi, /^3\.1\.\d+$/);
    assert.ok(body.info.title && body.info.version, 'info.title and info.version are set');
    assert.deepEqual(body, JSON.parse(JSON.stringify(doc)), 'the served document is the generated one');
    assert.equal(doc.components?.securitySchemes?.bearer?.type, 'http');
    assert.equal(doc.components?.securitySchemes?.bearer?.scheme, 'bearer');
  });

  it('documents exactly the operations the app serves', () => {
    assert.ok(
      served.some((r) => r.method === 'GET' && r.url === '/healthz'),
      'the route recorder saw the app being built',
    );
    const api = served.filter((r) => isApiOperation(r, served));
    const servedKeys = new Set(api.map((r) => key(r.method, r.path)));
    const documentedKeys = new Set(operations.map((o) => key(o.method, o.path)));
    const undocumented = [...servedKeys].filter((k) => !documentedKeys.has(k)).sort();
    const phantom = [...documentedKeys].filter((k) => !servedKeys.has(k)).sort();
    assert.deepEqual(undocumented, [], `served but missing from the document (schema.hide or registered before swagger?): ${undocumented.join(', ')}`);
    assert.deepEqual(phantom, [], `documented but not served: ${phantom.join(', ')}`);
    // and the router agrees: every documented operation is a route Fastify would dispatch to
    for (const { method, path } of operations) {
      const url = path.replace(/\{([^}]+)\}/g, ':$1');
      assert.ok(t.app.hasRoute({ method: method as 'GET', url }), `router has no ${method} ${url}`);
    }
  });

  it('gives every operation a summary and tags, and declares its path parameters', () => {
    for (const { method, path, op } of operations) {
      const where = key(method, path);
      assert.ok(op.summary?.trim(), `${where} has a summary`);
      assert.ok(op.tags?.length, `${where} has tags`);
      for (const name of [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) {
        const param = op.parameters?.find((p) => p.in === 'path' && p.name === name);
        assert.ok(param, `${where} declares path parameter ${name}`);
        assert.equal(param.required, true, `${where} path parameter ${name} is required`);
        assert.ok(param.schema, `${where} path parameter ${name} has a schema`);
      }
    }
  });

  it('states who may call each operation: bearer security and tier, or public', () => {
    const api = served.filter((r) => isApiOperation(r, served));
    assert.ok(api.length > 0);
    for (const route of api) {
      const where = key(route.method, route.path);
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      assert.ok(op, `${where} is documented`);
      const security = op.security ?? doc.security ?? [];
      if (route.config.public) {
        assert.deepEqual(security, [], `${where} is public and says so (security: [])`);
        continue;
      }
      assert.ok(
        security.some((requirement) => 'bearer' in requirement),
        `${where} requires the bearer API key`,
      );
      const tier = tierOfRoute(t.config.rateLimit, `${route.method} ${route.url}`, route.config.tier as Tier | undefined);
      assert.ok(tier && (TIERS as readonly string[]).includes(tier), `${where} has a contract tier`);
      assert.equal(op['x-rate-limit-tier'], tier, `${where} documents its rate-limit tier`);
      for (const status of ['401', '429']) {
        const response = derefResponse(doc, op.responses?.[status]);
        const schema = deref(doc, response?.content?.['application/json']?.schema);
        assert.ok(schema?.properties?.message && schema.properties.code && schema.properties.requestId, `${where} documents its ${status} error body`);
      }
    }
  });

  it('documents the 403 of every change a cookie may make (a refused CSRF or Origin check, a read-only key)', () => {
    const missing = operations
      .filter(({ method }) => !['get', 'head', 'options'].includes(method.toLowerCase()))
      .filter(({ op }) => !op.responses?.['403'])
      .map(({ method, path }) => key(method, path));
    assert.deepEqual(missing, []);
    // the one a validating proxy found undocumented
    assert.ok(doc.paths['/api/v1/me']?.patch?.responses?.['403']);
  });

  it('gives every operation a 2xx response with a schema', () => {
    for (const { method, path, op } of operations) {
      const where = key(method, path);
      // a page a browser navigates to (single sign-on) answers a redirect instead
      if ((op as { 'x-browser-redirect'?: boolean })['x-browser-redirect']) {
        assert.ok(op.responses?.['303'], `${where} documents its 303`);
        continue;
      }
      const successes = Object.entries(op.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
      assert.ok(successes.length > 0, `${where} documents a 2xx response`);
      for (const [status, response] of successes) {
        if (status === '204') continue;
        const contents = Object.values(response.content ?? {});
        assert.ok(contents.length > 0 && contents.every((c) => c.schema), `${where} ${status} has a response schema`);
      }
    }
  });

  it('documents the request body of every operation that takes one, as a closed JSON object', () => {
    const api = served.filter((r) => isApiOperation(r, served));
    const withBody = api.filter((r) => r.schema?.body);
    for (const route of api) {
      const where = key(route.method, route.path);
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      assert.ok(op, `${where} is documented`);
      if (!route.schema?.body) {
        assert.equal(op.requestBody, undefined, `${where} takes no body and documents none`);
        continue;
      }
      // an import takes a file only: its form is its body
      const schema = op.requestBody?.content?.['application/json']?.schema ?? op.requestBody?.content?.['multipart/form-data']?.schema;
      assert.ok(schema, `${where} documents its JSON request body`);
      assert.deepEqual(openObjects(doc, schema, `${where} body`), []);
    }
    // The app has JSON-body routes once any writing operation exists; none is a valid state only
    // for an app without writes.
    if (api.some((r) => ['POST', 'PATCH', 'PUT'].includes(r.method))) assert.ok(withBody.length > 0);
  });

  it('marks a body the server takes or not as optional (Archive Card, Unarchive Card), and every other as required', async () => {
    const optional = ['PATCH /api/v1/cards/{cardId}/archive', 'PATCH /api/v1/cards/{cardId}/unarchive'];
    for (const where of optional) {
      const [method, path] = where.split(' ') as [string, string];
      assert.equal(doc.paths[path]?.[method.toLowerCase()]?.requestBody?.required, false, where);
    }
    for (const { method, path, op } of operations) {
      if (op.requestBody && op.requestBody.required !== false) assert.equal(op.requestBody.required, true, `${method} ${path}`);
    }
    // as the server takes them: no body, an empty one, and {}
    const served = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(served.json().paths['/api/v1/cards/{cardId}/archive'].patch.requestBody.required, false);
    assert.doesNotMatch(served.body, /x-optional-body/);
    const headers = { authorization: `Bearer ${t.tenant.apiKey}` };
    const list = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    const card = (await t.app.inject({ method: 'POST', url: '/api/v1/cards', headers, payload: { list, name: 'Archived and back' } })).json().card
      ._id as string;
    for (const action of ['archive', 'unarchive', 'archive', 'unarchive']) {
      for (const body of [{}, { payload: '', headers: { 'content-type': 'application/json' } }, { payload: {} }]) {
        const res = await t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${card}/${action}`, ...body, headers: { ...headers, ...(body.headers ?? {}) } });
        assert.equal(res.statusCode, 200, `${action} ${JSON.stringify(body)}: ${res.body}`);
      }
    }
  });

  it('serves the docs UI at /docs, and its assets load', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<div id="swagger-ui">/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1] as string, 'http://host/docs/').pathname);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), `the page links scripts and styles: ${assets.join(', ')}`);
    for (const asset of assets) {
      const res = await t.app.inject({ method: 'GET', url: asset });
      assert.equal(res.statusCode, 200, `${asset} loads`);
      assert.ok(res.rawPayload.length > 0, `${asset} is not empty`);
    }
    // the UI reads the document from ./json next to itself
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    assert.match(initializer.body, /\.\/json/);
    const json = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(json.statusCode, 200);
    assert.equal((json.json() as OpenApiDocument).openapi, doc.openapi);
  });
});
