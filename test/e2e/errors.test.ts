/**
 * The contract's error forms for bad input: every failure is `{ message, code, requestId, details? }`
 * with the right status, never a 5xx, never internals. Named cases use two real JSON-body routes;
 * a sweep then holds every documented operation to the same rules, whatever routes exist.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { requiredQuery } from '../support/openapi-query.ts';

/** Operations only a signed-in person may call (their passkeys and second factors): an API key gets a 403. */
const SIGNED_IN_ONLY = /^\/api\/v1\/me\/(passkeys|second-factors)\b/;

const UNKNOWN_ID = '0123456789abcdef01234567';
const BODY_LIMIT = 2048;

interface ErrorBody {
  message: string;
  code: string;
  requestId: string;
  details?: { field?: string; index?: number; message: string }[];
}

/** Internals that must never reach a client: stack frames, file paths, SQL, driver names. */
const INTERNALS =
  /\n\s+at |node_modules|\.ts:\d+|\b(select|insert|update|delete)\b[^"]*\b(from|into|set|where)\b|sqlite|postgres|kysely|relation "|syntax error at/i;

function assertErrorForm(res: LightMyRequestResponse, status: number, code: string, secret?: string): ErrorBody {
  const where = `${res.statusCode} ${res.body}`;
  assert.equal(res.statusCode, status, where);
  assert.match(String(res.headers['content-type']), /^application\/json/, where);
  const body = res.json() as ErrorBody & Record<string, unknown>;
  assert.equal(body.code, code, where);
  assert.equal(typeof body.message, 'string', where);
  assert.ok(body.message.length > 0, where);
  assert.equal(typeof body.requestId, 'string', where);
  assert.ok(body.requestId.length > 0, where);
  assert.equal(body.requestId, res.headers['x-request-id'], 'requestId is the X-Request-Id header');
  assert.deepEqual(
    Object.keys(body).filter((k) => !['message', 'code', 'requestId', 'details'].includes(k)),
    [],
    `only the contract's fields: ${where}`,
  );
  assert.doesNotMatch(res.body, INTERNALS, `no internals in ${where}`);
  if (secret) assert.ok(!res.body.includes(secret), 'no secret in the error body');
  if (body.details !== undefined) {
    assert.ok(Array.isArray(body.details) && body.details.length > 0, where);
    for (const d of body.details) assert.equal(typeof d.message, 'string', where);
  }
  return body;
}

function fields(body: ErrorBody): string[] {
  return (body.details ?? []).map((d) => d.field ?? '');
}

interface Operation {
  method: string;
  /** OpenAPI form with `{param}`. */
  path: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean; schema?: { type?: string; format?: string } }[];
  requestBody?: { content?: Record<string, unknown> };
}

for (const engine of ENGINES) {
  describe(`error forms [${engine}]`, () => {
    let t: TestApp;
    let auth: Record<string, string>;

    before(async () => {
      t = await buildTestApp(engine, { config: { bodyLimitBytes: BODY_LIMIT } });
      auth = bearer(t.tenant.apiKey);
    });
    after(() => t?.dispose());

    /** The named cases need these routes; say which one is missing instead of failing obscurely. */
    function requireRoute(method: 'GET' | 'POST' | 'DELETE', url: string) {
      assert.ok(t.app.hasRoute({ method, url }), `route ${method} ${url} is not registered: this suite needs it`);
    }

    const createKey = '/api/v1/api-keys';
    const createBoard = () => `/api/v1/boards?teamId=${t.tenant.teamId}`;

    async function count(table: 'api_keys' | 'boards'): Promise<number> {
      const row = await t.services.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }

    function post(url: string, payload: string | Buffer | undefined, contentType?: string) {
      return t.app.inject({
        method: 'POST',
        url,
        headers: { ...auth, ...(contentType ? { 'content-type': contentType } : {}) },
        ...(payload !== undefined ? { payload } : {}),
      });
    }

    it('the named routes exist', () => {
      requireRoute('POST', '/api/v1/api-keys');
      requireRoute('POST', '/api/v1/boards');
      requireRoute('GET', '/api/v1/boards/:boardId');
      requireRoute('DELETE', '/api/v1/api-keys/:keyId');
    });

    it('answers malformed JSON with 400 validation_failed, not 500', async () => {
      for (const url of [createKey, createBoard()]) {
        for (const payload of ['{"name": "x"', '{name: "x"}', "{'name': 'x'}", '{"name": "x"}}', 'nul']) {
          const body = assertErrorForm(await post(url, payload, 'application/json'), 400, 'validation_failed');
          assert.match(body.message, /JSON/, body.message);
        }
      }
    });

    it('answers a body that is not JSON with 415 unsupported_media_type', async () => {
      const keysBefore = await count('api_keys');
      for (const url of [createKey, createBoard()]) {
        for (const [contentType, payload] of [
          ['text/plain', '{"name":"x"}'],
          ['application/x-www-form-urlencoded', 'name=x'],
          ['application/xml', '<name>x</name>'],
          ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n'],
        ] as const) {
          const body = assertErrorForm(await post(url, payload, contentType), 415, 'unsupported_media_type');
          assert.ok(body.message.includes(contentType.split(';')[0] as string), body.message);
        }
        // a body with no Content-Type at all is not JSON either
        assertErrorForm(await post(url, Buffer.from('{"name":"x"}')), 415, 'unsupported_media_type');
      }
      assert.equal(await count('api_keys'), keysBefore, 'nothing stored');
    });

    it('answers an empty or missing JSON body with 400', async () => {
      for (const url of [createKey, createBoard()]) {
        assertErrorForm(await post(url, '', 'application/json'), 400, 'validation_failed');
        assertErrorForm(await post(url, undefined), 400, 'validation_failed');
      }
    });

    it(`answers a body over the limit (${BODY_LIMIT} bytes) with 413 payload_too_large`, async () => {
      const keysBefore = await count('api_keys');
      const payload = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) });
      for (const url of [createKey, createBoard()]) {
        const body = assertErrorForm(await post(url, payload, 'application/json'), 413, 'payload_too_large');
        assert.ok(!body.message.includes('xxxx'), 'the body is not echoed');
      }
      assert.equal(await count('api_keys'), keysBefore, 'nothing stored');
      // just under the limit still parses (and then fails the name's own length rule, not the size)
      const near = JSON.stringify({ name: 'y'.repeat(BODY_LIMIT - 20) });
      const res = await post(createKey, near, 'application/json');
      assert.notEqual(res.statusCode, 413, res.body);
    });

    it('does not coerce body types: a wrong type is a 400 naming the field', async () => {
      for (const url of [createKey, createBoard()]) {
        for (const name of [123, true, null, ['x'], { a: 1 }]) {
          const body = assertErrorForm(await post(url, JSON.stringify({ name }), 'application/json'), 400, 'validation_failed');
          assert.deepEqual(fields(body), ['body.name'], JSON.stringify(body));
        }
        for (const payload of ['[]', '"name"', '42', 'null']) {
          assertErrorForm(await post(url, payload, 'application/json'), 400, 'validation_failed');
        }
        const missing = assertErrorForm(await post(url, '{}', 'application/json'), 400, 'validation_failed');
        assert.deepEqual(fields(missing), ['body.name']);
      }
    });

    it('rejects unknown body fields with a 400 naming the field, and stores nothing', async () => {
      const keysBefore = await count('api_keys');
      const boardsBefore = await count('boards');
      for (const url of [createKey, createBoard()]) {
        const res = await post(url, JSON.stringify({ name: 'ok', color: 'red' }), 'application/json');
        const body = assertErrorForm(res, 400, 'validation_failed');
        assert.deepEqual(fields(body), ['body.color']);
        assert.match(body.message, /body\.color/);
        // prototype keys are refused too, not merged into anything
        const proto = await post(url, '{"name":"ok","__proto__":{"admin":true}}', 'application/json');
        assertErrorForm(proto, 400, 'validation_failed');
      }
      assert.equal(await count('api_keys'), keysBefore);
      assert.equal(await count('boards'), boardsBefore);
    });

    it('answers a malformed id in a path or query with 400, a well-formed unknown one with 404', async () => {
      for (const bad of ['nope', '0123456789ABCDEF01234567', '0123456789abcdef0123456', `${UNKNOWN_ID}0`, '%27%20or%201%3D1--']) {
        const board = assertErrorForm(await t.app.inject({ method: 'GET', url: `/api/v1/boards/${bad}`, headers: auth }), 400, 'validation_failed');
        assert.deepEqual(fields(board), ['params.boardId']);
        const key = assertErrorForm(await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${bad}`, headers: auth }), 400, 'validation_failed');
        assert.deepEqual(fields(key), ['params.keyId']);
      }
      const query = assertErrorForm(await t.app.inject({ method: 'GET', url: '/api/v1/boards?teamId=nope', headers: auth }), 400, 'validation_failed');
      assert.deepEqual(fields(query), ['querystring.teamId']);
      const unknownQuery = assertErrorForm(await t.app.inject({ method: 'GET', url: '/api/v1/boards?colour=red', headers: auth }), 400, 'validation_failed');
      assert.deepEqual(fields(unknownQuery), ['querystring.colour']);
      assertErrorForm(await t.app.inject({ method: 'GET', url: `/api/v1/boards/${UNKNOWN_ID}`, headers: auth }), 404, 'not_found');
      assertErrorForm(await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${UNKNOWN_ID}`, headers: auth }), 404, 'not_found');
    });

    it('answers unknown routes with 404 not_found, a wrong method on a known path with 405 and Allow', async () => {
      for (const [method, url] of [
        ['GET', '/api/v1/nope'],
        ['GET', '/api/v2/boards'],
      ] as const) {
        const body = assertErrorForm(await t.app.inject({ method, url, headers: auth }), 404, 'not_found');
        assert.match(body.message, /not found/);
      }
      for (const [method, url, allow] of [
        ['POST', '/healthz', 'GET, HEAD'],
        ['PUT', '/api/v1/api-keys', 'GET, HEAD, POST'],
      ] as const) {
        const res = await t.app.inject({ method, url, headers: auth });
        assertErrorForm(res, 405, 'method_not_allowed');
        assert.equal(res.headers.allow, allow);
      }
    });

    it('answers a missing or bad key with 401 in the same form', async () => {
      const missing = await t.app.inject({ method: 'GET', url: '/api/v1/boards' });
      assertErrorForm(missing, 401, 'unauthorized');
      assert.equal(missing.headers['www-authenticate'], 'Bearer');
      const bad = await t.app.inject({ method: 'GET', url: '/api/v1/boards', headers: bearer('tb_not_a_real_key') });
      assertErrorForm(bad, 401, 'unauthorized', 'tb_not_a_real_key');
      assert.equal(bad.headers['www-authenticate'], 'Bearer error="invalid_token"');
    });

    it('holds every documented operation to the error forms, never a 5xx', async () => {
      const doc = t.app.swagger() as unknown as { security?: unknown[]; paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>> };
      const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
          .map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })),
      );
      const authenticated = operations.filter((op) => (op.security ?? doc.security ?? []).length > 0);
      assert.ok(authenticated.length > 0, 'the document lists authenticated operations');
      const keysBefore = await count('api_keys');
      const boardsBefore = await count('boards');

      let probedBodies = 0;
      for (const op of authenticated) {
        const method = op.method as InjectOptions['method'];
        const params = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
        const query = requiredQuery(op);
        const url = (values: Record<string, string> = {}) =>
          op.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? UNKNOWN_ID) + (query ? `?${query}` : '');
        const where = `${op.method} ${op.path}`;
        const check = async (status: number, code: string, request: InjectOptions, what: string) => {
          const res = await t.app.inject(request);
          try {
            return assertErrorForm(res, status, code);
          } catch (error) {
            throw new Error(`${where}, ${what}: ${(error as Error).message}`, { cause: error });
          }
        };

        await check(401, 'unauthorized', { method, url: url() }, 'no key');
        await check(401, 'unauthorized', { method, url: url(), headers: bearer('tb_0000') }, 'a bad key');

        for (const name of params) {
          const body = await check(400, 'validation_failed', { method, url: url({ [name]: 'not-an-id' }), headers: auth }, `malformed ${name}`);
          assert.deepEqual(fields(body), [`params.${name}`], `${where}: the malformed ${name} is named`);
        }

        const json = op.requestBody?.content?.['application/json'];
        if (json) {
          const send = (payload: string, contentType: string) => ({ method, url: url(), headers: { ...auth, 'content-type': contentType }, payload });
          await check(400, 'validation_failed', send('{"unterminated', 'application/json'), 'malformed JSON');
          await check(415, 'unsupported_media_type', send('{}', 'text/plain'), 'a text/plain body');
          const probe = await check(400, 'validation_failed', send('{"unknownProbeField":true}', 'application/json'), 'an unknown field');
          assert.ok(
            fields(probe).every((f) => f.startsWith('body')),
            `${where}: details name body fields: ${fields(probe)}`,
          );
          await check(400, 'validation_failed', send('[]', 'application/json'), 'a JSON array body');
          probedBodies++;
        } else if (params.length && (op.method === 'GET' || op.method === 'DELETE')) {
          // a person's own factors are theirs to manage, signed in: any API key is refused first (docs/people.md)
          if (SIGNED_IN_ONLY.test(op.path)) await check(403, 'forbidden', { method, url: url(), headers: auth }, 'an API key');
          else await check(404, 'not_found', { method, url: url(), headers: auth }, 'well-formed unknown ids');
        }

        const scopeParams = (op.parameters ?? []).filter((p) => p.in === 'query' && (p.name === 'companyId' || p.name === 'teamId'));
        if (!json && (op.method === 'GET' || op.method === 'DELETE')) {
          for (const p of scopeParams) {
            const body = await check(
              400,
              'validation_failed',
              { method, url: `${url()}${query ? '&' : '?'}${p.name}=nope`, headers: auth },
              `malformed ${p.name}`,
            );
            assert.deepEqual(fields(body), [`querystring.${p.name}`]);
          }
        }
      }
      assert.ok(probedBodies > 0, 'the sweep reached operations with JSON bodies');
      assert.equal(await count('api_keys'), keysBefore, 'bad input stored nothing');
      assert.equal(await count('boards'), boardsBefore, 'bad input stored nothing');
    });
  });

  describe(`internal errors [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(engine);
    });
    after(() => t?.dispose());

    it('answers a failure inside the app with 500 internal and nothing else', async () => {
      // The database goes away under the running app: authentication itself now fails.
      await t.storage.close();
      for (const [method, url] of [
        ['GET', '/api/v1/me'],
        ['GET', '/api/v1/api-keys'],
        ['POST', '/api/v1/api-keys'],
      ] as const) {
        const res = await t.app.inject({
          method,
          url,
          headers: bearer(t.tenant.apiKey),
          ...(method === 'POST' ? { payload: { name: 'ci' } } : {}),
        });
        const body = assertErrorForm(res, 500, 'internal', t.tenant.apiKey);
        assert.deepEqual(body, { message: 'Internal server error', code: 'internal', requestId: res.headers['x-request-id'] });
      }
      // the public readiness probe reports it without failing
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
    });
  });
}
