import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const INVALID_TOKEN = 'Bearer error="invalid_token"';
/** Well-formed but never issued. */
const UNKNOWN_TOKEN = `tb_${'A'.repeat(43)}`;

for (const engine of ENGINES) {
  describe(`authentication and API keys [${engine}]`, () => {
    let t: TestApp;
    let other: BootstrapResult;

    before(async () => {
      t = await buildTestApp(engine);
      other = await bootstrap(t.services, { company: 'Globex', team: 'Ops', email: 'hank@globex.test', fullName: 'Hank Scorpio' });
    });
    after(() => t.dispose());

    const me = (headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: '/api/v1/me', headers });

    async function createKey(token: string, name: string) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: bearer(token), payload: { name } });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as { message: string; apiKey: { _id: string; name: string; prefix: string; lastUsedAt: string | null }; token: string };
    }

    async function listKeys(token: string) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: bearer(token) });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { apiKeys: { _id: string; name: string; prefix: string; createdAt: string; lastUsedAt: string | null }[] }).apiKeys;
    }

    function assertInvalidToken(res: Awaited<ReturnType<typeof me>>) {
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.headers['www-authenticate'], INVALID_TOKEN);
      const body = res.json();
      assert.equal(body.code, 'unauthorized');
      assert.equal(typeof body.message, 'string');
      assert.equal(body.requestId, res.headers['x-request-id']);
    }

    it('answers a request without Authorization with 401 and WWW-Authenticate: Bearer', async () => {
      const res = await me();
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer');
      const body = res.json();
      assert.equal(body.code, 'unauthorized');
      assert.equal(typeof body.message, 'string');
      assert.equal(body.requestId, res.headers['x-request-id']);
    });

    it('answers unknown, malformed and non-Bearer credentials with invalid_token', async () => {
      for (const authorization of [
        `Bearer ${UNKNOWN_TOKEN}`,
        'Bearer not-a-token',
        'Bearer ',
        'Bearer',
        `Bearer ${t.tenant.apiKey}x`,
        `Basic ${Buffer.from('user:pass').toString('base64')}`,
        `Token ${t.tenant.apiKey}`,
        t.tenant.apiKey,
      ]) {
        assertInvalidToken(await me({ authorization }));
      }
    });

    it('accepts the bearer scheme case-insensitively', async () => {
      const res = await me({ authorization: `bearer ${t.tenant.apiKey}` });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('serves public routes without a key, even with a bad one', async () => {
      for (const url of ['/healthz', '/openapi.json']) {
        assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 200);
        assert.equal((await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer junk' } })).statusCode, 200);
      }
    });

    it('documents the account operations in the OpenAPI document', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
      assert.ok(doc.paths['/api/v1/me']?.get);
      assert.ok(doc.paths['/api/v1/api-keys']?.get && doc.paths['/api/v1/api-keys']?.post);
      assert.ok(doc.paths['/api/v1/api-keys/{keyId}']?.delete);
      assert.ok(doc.paths['/api/v1/api-keys/{keyId}/rotate']?.post);
    });

    it('GET /api/v1/me answers the user, its companies with its role and its teams with members', async () => {
      const res = await me(bearer(t.tenant.apiKey));
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      assert.deepEqual(Object.keys(body).sort(), ['companies', 'message', 'teams', 'user']);
      assert.equal(body.user._id, t.tenant.userId);
      assert.equal(body.user.email, 'owner@acme.test');
      assert.equal(body.user.fullName, 'Olive Owner');
      assert.match(body.user.createdAt, ISO);
      assert.deepEqual(
        body.companies.map((c: { _id: string; name: string; role: string }) => [c._id, c.name, c.role]),
        [[t.tenant.companyId, 'Acme', 'owner']],
      );
      assert.equal(body.teams.length, 1);
      assert.equal(body.teams[0]._id, t.tenant.teamId);
      assert.equal(body.teams[0].company, t.tenant.companyId);
      assert.deepEqual(body.teams[0].members, [{ _id: t.tenant.userId, fullName: 'Olive Owner', photoUrl: '' }]);

      const theirs = (await me(bearer(other.apiKey))).json();
      assert.deepEqual(
        theirs.companies.map((c: { _id: string }) => c._id),
        [other.companyId],
      );
      assert.deepEqual(
        theirs.teams.map((c: { _id: string }) => c._id),
        [other.teamId],
      );
    });

    it('creates a key (201, token once), lists it without the token, and the token authenticates', async () => {
      const created = await createKey(t.tenant.apiKey, 'laptop');
      assert.equal(typeof created.message, 'string');
      assert.equal(created.apiKey.name, 'laptop');
      assert.match(created.token, /^tb_/);
      assert.equal(created.apiKey.prefix, created.token.slice(0, created.apiKey.prefix.length));
      assert.ok(created.apiKey.prefix.length < created.token.length);

      const res = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: bearer(t.tenant.apiKey) });
      assert.equal(res.statusCode, 200);
      assert.equal(typeof res.json().message, 'string');
      assert.ok(!res.body.includes(created.token));
      const listed = (await listKeys(t.tenant.apiKey)).find((k) => k._id === created.apiKey._id);
      assert.deepEqual(Object.keys(listed ?? {}).sort(), ['_id', 'access', 'createdAt', 'expiresAt', 'lastUsedAt', 'lastUsedIp', 'name', 'prefix', 'teams']);
      assert.equal((await me(bearer(created.token))).json().user._id, t.tenant.userId);

      // Another user's listing does not show it.
      assert.ok(!(await listKeys(other.apiKey)).some((k) => k._id === created.apiKey._id));
    });

    it('stores tokens only as SHA-256 hashes', async () => {
      const created = await createKey(t.tenant.apiKey, 'hash check');
      const rows = await t.storage.db.selectFrom('api_keys').selectAll().execute();
      for (const token of [created.token, t.tenant.apiKey, other.apiKey]) {
        assert.ok(!rows.some((row) => JSON.stringify(row).includes(token)), 'a row contains a token');
      }
      const row = rows.find((r) => r.id === created.apiKey._id);
      assert.equal(row?.token_hash, createHash('sha256').update(created.token).digest('hex'));
    });

    it('sets lastUsedAt when a key is used', async () => {
      const created = await createKey(t.tenant.apiKey, 'usage');
      assert.equal(created.apiKey.lastUsedAt, null);
      assert.equal((await listKeys(t.tenant.apiKey)).find((k) => k._id === created.apiKey._id)?.lastUsedAt, null);
      assert.equal((await me(bearer(created.token))).statusCode, 200);
      assert.match((await listKeys(t.tenant.apiKey)).find((k) => k._id === created.apiKey._id)?.lastUsedAt ?? '', ISO);
    });

    it('rejects bad create bodies with 400', async () => {
      for (const payload of [{}, { name: '' }, { name: '   ' }, { name: 7 }, { name: 'x'.repeat(101) }, { name: 'ok', scopes: ['all'] }]) {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: bearer(t.tenant.apiKey), payload });
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.equal(res.json().code, 'validation_failed');
        assert.equal(typeof res.json().message, 'string');
      }
      const unknownField = await t.app.inject({
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: bearer(t.tenant.apiKey),
        payload: { name: 'ok', scopes: ['all'] },
      });
      assert.deepEqual(unknownField.json().details, [{ field: 'body.scopes', message: 'unknown field' }]);
    });

    it('revokes a key: 200 with the key, then its token gets 401 invalid_token at once', async () => {
      const created = await createKey(t.tenant.apiKey, 'to revoke');
      const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${created.apiKey._id}`, headers: bearer(t.tenant.apiKey) });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');
      assert.equal(res.json().apiKey._id, created.apiKey._id);
      assert.equal(res.json().apiKey.name, 'to revoke');
      assert.equal(res.json().token, undefined);
      assertInvalidToken(await me(bearer(created.token)));
      assert.ok(!(await listKeys(t.tenant.apiKey)).some((k) => k._id === created.apiKey._id));
      const again = await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${created.apiKey._id}`, headers: bearer(t.tenant.apiKey) });
      assert.equal(again.statusCode, 404);
      assert.equal(again.json().code, 'not_found');
    });

    it('lets a caller revoke the key it is calling with', async () => {
      const created = await createKey(t.tenant.apiKey, 'self');
      const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${created.apiKey._id}`, headers: bearer(created.token) });
      assert.equal(res.statusCode, 200, res.body);
      assertInvalidToken(await me(bearer(created.token)));
    });

    it('rotates a key: same id and name, new token and prefix; the old token stops at once', async () => {
      const created = await createKey(t.tenant.apiKey, 'rotating');
      const res = await t.app.inject({ method: 'POST', url: `/api/v1/api-keys/${created.apiKey._id}/rotate`, headers: bearer(t.tenant.apiKey) });
      assert.equal(res.statusCode, 200, res.body);
      const rotated = res.json();
      assert.equal(typeof rotated.message, 'string');
      assert.equal(rotated.apiKey._id, created.apiKey._id);
      assert.equal(rotated.apiKey.name, 'rotating');
      assert.notEqual(rotated.token, created.token);
      assert.equal(rotated.apiKey.prefix, rotated.token.slice(0, rotated.apiKey.prefix.length));
      assertInvalidToken(await me(bearer(created.token)));
      assert.equal((await me(bearer(rotated.token))).statusCode, 200);
      const listed = (await listKeys(t.tenant.apiKey)).filter((k) => k._id === created.apiKey._id);
      assert.equal(listed.length, 1);
      assert.equal(listed[0]?.prefix, rotated.apiKey.prefix);
    });

    it('answers 404 for another user’s key id and changes nothing', async () => {
      const theirs = await createKey(other.apiKey, 'theirs');
      for (const [method, url] of [
        ['DELETE', `/api/v1/api-keys/${theirs.apiKey._id}`],
        ['POST', `/api/v1/api-keys/${theirs.apiKey._id}/rotate`],
      ] as const) {
        const res = await t.app.inject({ method, url, headers: bearer(t.tenant.apiKey) });
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().code, 'not_found');
      }
      assert.equal((await me(bearer(theirs.token))).json().user._id, other.userId);
      assert.equal((await listKeys(other.apiKey)).find((k) => k._id === theirs.apiKey._id)?.prefix, theirs.apiKey.prefix);
    });

    it('rejects a malformed key id with 400 and an unknown one with 404', async () => {
      const bad = await t.app.inject({ method: 'DELETE', url: '/api/v1/api-keys/not-an-id', headers: bearer(t.tenant.apiKey) });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().code, 'validation_failed');
      const unknown = await t.app.inject({ method: 'POST', url: `/api/v1/api-keys/${'0'.repeat(24)}/rotate`, headers: bearer(t.tenant.apiKey) });
      assert.equal(unknown.statusCode, 404);
    });
  });
}
