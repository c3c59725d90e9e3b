/**
 * Authentication reads the key on every request (one prepared statement, no cache), so a key
 * revoked or rotated through one server instance is refused by every other instance at once: two
 * apps, each with its own connection(s), on one database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp, type App } from '../../src/app.ts';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { openStorage, type StorageConnection } from '../../src/storage/dialect.ts';
import { bearer, ENGINES, openTestStorage, testConfig, type TestStorage } from '../support/harness.ts';

for (const engine of ENGINES) {
  describe(`a revoked or rotated key, on two instances [${engine}]`, () => {
    let test: TestStorage;
    let second: StorageConnection;
    let a: App;
    let b: App;
    let owner: string;

    before(async () => {
      test = await openTestStorage(engine);
      second = openStorage(test.url);
      a = await buildApp({ config: testConfig(), storage: test.storage, rateLimiter: null, logger: false });
      b = await buildApp({ config: testConfig(), storage: second, rateLimiter: null, logger: false });
      await Promise.all([a.ready(), b.ready()]);
      owner = (await bootstrap(a.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' })).apiKey;
    });

    after(async () => {
      await a?.close();
      await b?.close();
      await second?.close();
      await test?.dispose();
    });

    async function newKey(name: string): Promise<{ id: string; token: string }> {
      const res = await a.inject({ method: 'POST', url: '/api/v1/api-keys', headers: bearer(owner), payload: { name } });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json() as { apiKey: { _id: string }; token: string };
      return { id: body.apiKey._id, token: body.token };
    }

    const me = (app: App, token: string) => app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token) });

    it('is refused by the other instance as soon as the revoke answered', async () => {
      const key = await newKey('laptop');
      // both instances have served the key: anything they might keep of it is warm
      assert.equal((await me(a, key.token)).statusCode, 200);
      assert.equal((await me(b, key.token)).statusCode, 200);
      const revoke = await a.inject({ method: 'DELETE', url: `/api/v1/api-keys/${key.id}`, headers: bearer(owner) });
      assert.equal(revoke.statusCode, 200, revoke.body);
      const refused = await me(b, key.token);
      assert.equal(refused.statusCode, 401);
      assert.match(String(refused.headers['www-authenticate']), /invalid_token/);
      assert.equal((await me(a, key.token)).statusCode, 401);
    });

    it('refuses the old token and serves the new one on the other instance as soon as the rotate answered', async () => {
      const key = await newKey('ci');
      assert.equal((await me(b, key.token)).statusCode, 200);
      const rotate = await a.inject({ method: 'POST', url: `/api/v1/api-keys/${key.id}/rotate`, headers: bearer(owner) });
      assert.equal(rotate.statusCode, 200, rotate.body);
      const fresh = (rotate.json() as { token: string }).token;
      assert.equal((await me(b, key.token)).statusCode, 401);
      assert.equal((await me(b, fresh)).statusCode, 200);
    });
  });
}
