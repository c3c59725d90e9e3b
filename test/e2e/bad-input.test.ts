/**
 * Bad input is a 4xx in the contract's form, on both engines: malformed multipart forms, control
 * characters and lone surrogates in every text field (PostgreSQL cannot store U+0000), the caps on
 * free text, what the router and the HTTP parser refuse, wrong methods, unknown query parameters.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { TEXT_CAPS } from '../../src/schemas/common.ts';
import { type ApiWorld, apiWorld } from '../support/api-world.ts';
import { multipart, storedFiles } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, openTestStorage, type TestApp, testConfig } from '../support/harness.ts';
import { requiredQuery } from '../support/openapi-query.ts';

/** Every control character the text fields refuse, one of each kind, and both halves of a surrogate pair alone. */
const FORBIDDEN = [
  ['NUL', '\u0000'],
  ['BEL', '\u0007'],
  ['CR', '\r'],
  ['ESC', '\u001b'],
  ['DEL', '\u007f'],
  ['C1 NEL', '\u0085'],
  ['lone high surrogate', '\ud83c'],
  ['lone low surrogate', '\udf89'],
] as const;

function assertError(res: LightMyRequestResponse | { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, code: string) {
  const where = `${res.statusCode} ${res.body.slice(0, 300)}`;
  assert.equal(res.statusCode, status, where);
  const body = JSON.parse(res.body) as { message: string; code: string; requestId: string; details?: { field?: string; message: string }[] };
  assert.equal(body.code, code, where);
  assert.equal(typeof body.message, 'string', where);
  assert.equal(typeof body.requestId, 'string', where);
  assert.ok(body.requestId.length > 0, where);
  assert.deepEqual(
    Object.keys(body).filter((k) => !['message', 'code', 'requestId', 'details'].includes(k)),
    [],
    where,
  );
  return body;
}

for (const engine of ENGINES) {
  describe(`bad input [${engine}]`, () => {
    let t: TestApp;
    let w: ApiWorld;
    let auth: Record<string, string>;
    before(async () => {
      t = await buildTestApp(engine);
      w = await apiWorld(t);
      auth = bearer(t.tenant.apiKey);
    });
    after(() => t?.dispose());

    const send = (method: 'POST' | 'PATCH', url: string, payload: unknown) =>
      t.app.inject({ method, url, headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

    /** Every text field of every request body: where it goes, and the body around a value for it. */
    const textFields = (): [string, 'POST' | 'PATCH', string, (v: string) => Record<string, unknown>][] => [
      ['body.name', 'POST', '/api/v1/companies', (v) => ({ name: v })],
      ['body.name', 'POST', `/api/v1/teams?companyId=${w.companyId}`, (v) => ({ name: v })],
      [
        'body.fullName',
        'POST',
        `/api/v1/companies/${w.companyId}/members`,
        (v) => ({ email: `x${Math.random()}@acme.test`.replace('0.', ''), fullName: v, role: 'member' }),
      ],
      ['body.name', 'POST', '/api/v1/api-keys', (v) => ({ name: v })],
      ['body.name', 'POST', `/api/v1/boards?teamId=${w.teamId}`, (v) => ({ name: v })],
      ['body.name', 'POST', '/api/v1/lists', (v) => ({ board: w.boardId, name: v })],
      ['body.name', 'PATCH', `/api/v1/lists/${w.listId}`, (v) => ({ name: v })],
      ['body.name', 'POST', `/api/v1/boards/${w.boardId}/labels`, (v) => ({ name: v, color: '000000000000000000000002' })],
      ['body.name', 'PATCH', `/api/v1/labels/${w.labelId}`, (v) => ({ name: v })],
      ['body.name', 'POST', '/api/v1/cards', (v) => ({ list: w.listId, name: v })],
      ['body.description', 'POST', '/api/v1/cards', (v) => ({ list: w.listId, name: 'ok', description: v })],
      ['body.name', 'PATCH', `/api/v1/cards/${w.cardId}`, (v) => ({ name: v })],
      ['body.description', 'PATCH', `/api/v1/cards/${w.cardId}`, (v) => ({ description: v })],
      ['body.cover', 'PATCH', `/api/v1/cards/${w.cardId}`, (v) => ({ cover: v })],
      ['body.complete.type', 'PATCH', `/api/v1/cards/${w.cardId}`, (v) => ({ complete: { status: true, type: v } })],
      ['body.name', 'POST', `/api/v1/cards/${w.cardId}/copy`, (v) => ({ list: w.listId, name: v })],
      ['body.name', 'POST', `/api/v1/cards/${w.cardId}/checklists`, (v) => ({ name: v })],
      ['body.name', 'PATCH', `/api/v1/checklists/${w.checklistId}`, (v) => ({ name: v })],
      ['body.name', 'POST', `/api/v1/checklists/${w.checklistId}/items`, (v) => ({ name: v })],
      ['body.name', 'PATCH', `/api/v1/checklist-items/${w.itemId}`, (v) => ({ name: v })],
      ['body.content', 'POST', `/api/v1/cards/${w.cardId}/comments`, (v) => ({ content: v })],
      ['body.content', 'PATCH', `/api/v1/comments/${w.commentId}`, (v) => ({ content: v })],
      ['body.content', 'POST', `/api/v1/comments/${w.commentId}/discussions`, (v) => ({ content: v })],
      ['body.content', 'PATCH', `/api/v1/discussions/${w.discussionId}`, (v) => ({ content: v })],
      ['body.content', 'POST', `/api/v1/cards/${w.cardId}/cheers`, (v) => ({ content: v })],
      ['body.name', 'PATCH', `/api/v1/cards/${w.cardId}/attachments/${w.attachmentId}`, (v) => ({ name: v })],
      ['body.name', 'PATCH', `/api/v1/checklist-items/${w.itemId}/attachments/${w.itemAttachmentId}`, (v) => ({ name: v })],
      ['body.name', 'POST', `/api/v1/cards/${w.cardId}/attachments`, (v) => ({ url: 'https://example.test/a', name: v })],
    ];

    it('refuses control characters (but tab and newline) and lone surrogates in every text field with 400 naming it', async () => {
      for (const [field, method, url, body] of textFields()) {
        for (const [what, char] of FORBIDDEN) {
          const res = await send(method, url, body(`a${char}b`));
          const error = assertError(res, 400, 'validation_failed');
          assert.deepEqual(
            error.details?.map((d) => d.field),
            [field],
            `${method} ${url} with ${what}: ${res.body.slice(0, 300)}`,
          );
          assert.match(error.details?.[0]?.message ?? '', /control characters|surrogates/, res.body.slice(0, 300));
        }
      }
    });

    it('accepts tab, newline and emoji in text fields (the cheer excepted: one line)', async () => {
      for (const [field, method, url, body] of textFields()) {
        const value = field === 'body.content' && url.endsWith('/cheers') ? 'ok 🎉' : 'tab\there\nnew line 🎉';
        const res = await send(method, url, body(value));
        assert.ok(res.statusCode === 200 || res.statusCode === 201, `${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
    });

    it(`caps a card's description at ${TEXT_CAPS.description} characters (a 70,000-character one is a 400)`, async () => {
      for (const length of [TEXT_CAPS.description + 1, 70_000]) {
        const error = assertError(await send('PATCH', `/api/v1/cards/${w.cardId}`, { description: 'd'.repeat(length) }), 400, 'validation_failed');
        assert.deepEqual(error.details, [{ field: 'body.description', message: `must have at most ${TEXT_CAPS.description} characters` }]);
        assertError(await send('POST', '/api/v1/cards', { list: w.listId, name: 'x', description: 'd'.repeat(length) }), 400, 'validation_failed');
      }
      const res = await send('PATCH', `/api/v1/cards/${w.cardId}`, { description: '🎉'.repeat(TEXT_CAPS.description) });
      assert.equal(res.statusCode, 200, 'the cap counts characters, not UTF-16 units');
    });

    it('refuses a malformed multipart form on both upload routes with 400, storing nothing', async () => {
      const before = storedFiles(t.config.uploadDir).length;
      const cardBefore = (await t.app.inject({ method: 'GET', url: `/api/v1/cards/${w.cardId}`, headers: auth })).json().card.attachments.length;
      const filePart = (b: string) => `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`;
      for (const url of [`/api/v1/cards/${w.cardId}/attachments`, `/api/v1/checklist-items/${w.itemId}/attachments`]) {
        for (const [what, contentType, payload] of [
          ['no boundary', 'multipart/form-data', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n'],
          ['ends inside the file', 'multipart/form-data; boundary=b', `${filePart('b')}abc`],
          ['ends before any part', 'multipart/form-data; boundary=b', '--b\r\nContent-Disposi'],
          ['ends after a field', 'multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nNotes'],
          ['garbage', 'multipart/form-data; boundary=b', 'not a form at all'],
        ] as const) {
          const res = await t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': contentType }, payload });
          const error = assertError(res, 400, 'validation_failed');
          assert.ok(error.details?.length, `${what}: details name what is wrong: ${res.body}`);
        }
      }
      assert.equal(storedFiles(t.config.uploadDir).length, before, 'no file left behind');
      const card = (await t.app.inject({ method: 'GET', url: `/api/v1/cards/${w.cardId}`, headers: auth })).json().card;
      assert.equal(card.attachments.length, cardBefore, 'no attachment recorded');
    });

    it("holds the form's name and the file name to the text rules", async () => {
      const url = `/api/v1/cards/${w.cardId}/attachments`;
      const upload = (fields: Record<string, string>, filename: string) => {
        const form = multipart(fields, { filename, contentType: 'text/plain', content: Buffer.from('x') });
        return t.app.inject({ method: 'POST', url, headers: { ...auth, ...form.headers }, payload: form.payload });
      };
      // a form carries UTF-8, which cannot hold a lone surrogate; CR is the form's own line end
      for (const [what, char] of FORBIDDEN.filter(([what, c]) => c !== '\r' && !what.includes('surrogate'))) {
        const byName = assertError(await upload({ name: `a${char}b` }, 'a.txt'), 400, 'validation_failed');
        assert.deepEqual(
          byName.details?.map((d) => d.field),
          ['body.name'],
          what,
        );
        const byFile = assertError(await upload({}, `a${char}b.txt`), 400, 'validation_failed');
        assert.deepEqual(
          byFile.details?.map((d) => d.field),
          ['body.file'],
          what,
        );
      }
      assertError(await upload({ name: 'n'.repeat(TEXT_CAPS.name + 1) }, 'a.txt'), 400, 'validation_failed');
      assertError(await upload({}, `${'f'.repeat(TEXT_CAPS.name)}.txt`), 400, 'validation_failed');
      assert.equal((await upload({ name: 'Tab\there' }, 'ok.txt')).statusCode, 201);
    });

    it('refuses unknown query parameters on every documented operation', async () => {
      for (const url of ['/api/v1/me', '/api/v1/companies', '/api/v1/api-keys', '/api/v1/label-colors']) {
        const error = assertError(await t.app.inject({ method: 'GET', url: `${url}?colour=red`, headers: auth }), 400, 'validation_failed');
        assert.deepEqual(
          error.details?.map((d) => d.field),
          ['querystring.colour'],
          url,
        );
      }
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
      let swept = 0;
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const method of Object.keys(item).filter((m) => ['get', 'post', 'patch', 'delete'].includes(m))) {
          // the provider's redirect back admits the parameters a provider may add (RFC 6749, 4.1.2)
          if ((item[method] as { operationId?: string }).operationId === 'finishSingleSignOn') continue;
          const url = path.replace(/\{([^}]+)\}/g, '0123456789abcdef01234567');
          // a body is validated before the query: give the body routes none, and expect only a 400
          const hasBody = Boolean((item[method] as { requestBody?: unknown }).requestBody);
          const query = requiredQuery(item[method] as Parameters<typeof requiredQuery>[0]);
          const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url: `${url}?${query ? `${query}&` : ''}unknownProbe=1`, headers: auth });
          const error = assertError(res, 400, 'validation_failed');
          if (!hasBody)
            assert.deepEqual(
              error.details?.map((d) => d.field),
              ['querystring.unknownProbe'],
              `${method} ${path}: ${res.body.slice(0, 300)}`,
            );
          swept++;
        }
      }
      assert.ok(swept > 70, `every operation swept (${swept})`);
    });

    it('answers what the router refuses in the contract form: bad percent-encoding, an over-long parameter', async () => {
      for (const url of ['/api/v1/cards/%zz', '/api/v1/cards/%E0%A4%A', `/api/v1/boards/${'%'.repeat(3)}`]) {
        const res = await t.app.inject({ method: 'GET', url, headers: auth });
        const error = assertError(res, 400, 'validation_failed');
        assert.ok(!error.message.includes(url), 'the URL is not echoed');
        assert.equal(res.headers['x-request-id'], error.requestId);
      }
      const long = 'a'.repeat(5000);
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/cards/${long}`, headers: auth });
      const error = assertError(res, 400, 'validation_failed');
      assert.deepEqual(
        error.details?.map((d) => d.field),
        ['params.cardId'],
      );
      assert.ok(!res.body.includes(long.slice(0, 300)), 'the parameter is not echoed');
      const nested = await t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${w.cardId}/attachments/${long}`, headers: auth });
      assert.deepEqual(
        assertError(nested, 400, 'validation_failed').details?.map((d) => d.field),
        ['params.attachmentId'],
      );
    });

    it('answers a wrong method on a known path with 405 and Allow, an unknown path with 404', async () => {
      for (const [method, url, allow] of [
        ['PUT', '/api/v1/api-keys', 'GET, HEAD, POST'],
        ['POST', '/healthz', 'GET, HEAD'],
        ['DELETE', `/api/v1/cards/${w.cardId}/comments`, 'POST, GET, HEAD'],
        ['GET', '/api/v1/cards/copy-multi-team', 'PATCH'],
      ] as const) {
        const res = await t.app.inject({ method, url, headers: auth });
        if (method === 'GET') {
          // GET /cards/:cardId matches that path too: a malformed id, not a wrong method
          assertError(res, 400, 'validation_failed');
          continue;
        }
        assertError(res, 405, 'method_not_allowed');
        assert.deepEqual(String(res.headers.allow).split(', ').sort(), allow.split(', ').sort(), `${method} ${url}`);
      }
      assertError(await t.app.inject({ method: 'GET', url: '/api/v1/nope', headers: auth }), 404, 'not_found');
    });
  });
}

describe('the HTTP parser refuses in the contract form', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t?.dispose());

  /** One request over a real socket (inject skips Node's HTTP parser, where these limits live). */
  function get(path: string, headers: Record<string, string> = {}) {
    return new Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk));
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('answers over-long headers, and an over-long URL, with 431 in the contract body', async () => {
    for (const res of [await get('/api/v1/me', { 'x-padding': 'p'.repeat(20_000) }), await get(`/api/v1/cards/${'a'.repeat(20_000)}`)]) {
      const error = assertError(res, 431, 'headers_too_large');
      assert.equal(res.headers['x-request-id'], error.requestId);
    }
  });

  it('still serves a normal request on the same server', async () => {
    const res = await get('/healthz');
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('the start-up checks', () => {
  it('refuses to start with a documented route that declares no querystring', async () => {
    const test = await openTestStorage('sqlite');
    const app = await buildApp({ config: testConfig(), storage: test.storage, rateLimiter: null, logger: false });
    app.get('/api/v1/probe', { config: { tier: 'low' }, schema: { summary: 'a probe with no query schema' } }, async () => ({}));
    await assert.rejects(async () => app.ready(), /routes without a closed querystring schema.*GET \/api\/v1\/probe/);
    await app.close().catch(() => {});
    await test.dispose();
  });
});
