/**
 * Authentication keeps the callers of keys it served (src/domain/account/auth-cache.ts), and answers
 * them without a statement until a write to what it reads. A change
 * of a key or of a membership made through one instance counts there from the next request on; two
 * apps, each with its own connection(s) and its own clock, on one database, show that the other
 * instance refuses (or reaches) as the database says within 1 s: its clock is moved, no sleep.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate, issueApiKey } from '../../src/domain/account/service.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { bearer, ENGINES, openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';

/** The issue's bound: a revocation reaches every instance within this. */
const WITHIN_MS = 1000;

for (const engine of ENGINES) {
  describe(`a key or membership changed through one of two instances [${engine}]`, () => {
    let test: TestStorage;
    let second: StorageConnection;
    let a: App;
    let b: App;
    let owner: string;
    let companyId: string;
    let teamId: string;
    let boardId: string;
    let bNow = Date.now();
    /** Moves instance B's clock on by the bound: whatever B kept from before counts no more. */
    const passBound = () => (bNow += WITHIN_MS);

    before(async () => {
      test = await openTestStorage(engine);
      second = openStorage(test.url);
      a = await buildApp({ config: testConfig(), storage: test.storage, rateLimiter: null, logger: false });
      b = await buildApp({ config: testConfig(), storage: second, rateLimiter: null, logger: false, clock: { now: () => bNow } });
      await Promise.all([a.ready(), b.ready()]);
      const tenant = await bootstrap(a.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
      ({ apiKey: owner, companyId, teamId } = tenant);
      const board = await a.inject({ method: 'POST', url: `/api/v1/boards?teamId=${teamId}`, headers: bearer(owner), payload: { name: 'Roadmap' } });
      assert.equal(board.statusCode, 201, board.body);
      boardId = (board.json() as { board: { _id: string } }).board._id;
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
    const board = (app: App, token: string) => app.inject({ method: 'GET', url: `/api/v1/boards/${boardId}`, headers: bearer(token) });

    it('answers a key it served from the cache, without a statement, until a write to what authentication reads', async () => {
      const key = await newKey('script');
      assert.equal((await me(a, key.token)).statusCode, 200);
      // a statement would be a promise: the cache answers at once
      assert.ok(!(authenticate(a.services, key.token) instanceof Promise), 'served from the cache');
      const nobody = 'f'.repeat(24);
      // the key's lastUsedAt is written as keys are used: authentication does not read it
      await a.services.db.updateTable('api_keys').set({ last_used_at: new Date().toISOString() }).where('id', '=', key.id).execute();
      assert.ok(!(authenticate(a.services, key.token) instanceof Promise), 'kept across a lastUsedAt write');
      // any write to the membership tables empties the cache, whoever's rows it touched
      await a.services.db.deleteFrom('team_members').where('user_id', '=', nobody).execute();
      const read = authenticate(a.services, key.token);
      assert.ok(read instanceof Promise, 'read again after a membership write');
      assert.equal((await read).apiKeyId, key.id);
    });

    it('refuses a revoked key at once where it was revoked, and on the other instance within 1 s', async () => {
      const key = await newKey('laptop');
      // both instances have served the key: what they keep of it is warm
      assert.equal((await me(a, key.token)).statusCode, 200);
      assert.equal((await me(b, key.token)).statusCode, 200);
      const revoke = await a.inject({ method: 'DELETE', url: `/api/v1/api-keys/${key.id}`, headers: bearer(owner) });
      assert.equal(revoke.statusCode, 200, revoke.body);
      const here = await me(a, key.token);
      assert.equal(here.statusCode, 401);
      assert.match(String(here.headers['www-authenticate']), /invalid_token/);
      passBound();
      assert.equal((await me(b, key.token)).statusCode, 401);
    });

    it('refuses the old token of a rotated key within 1 s on the other instance, and serves the new one there at once', async () => {
      const key = await newKey('ci');
      assert.equal((await me(b, key.token)).statusCode, 200);
      const rotate = await a.inject({ method: 'POST', url: `/api/v1/api-keys/${key.id}/rotate`, headers: bearer(owner) });
      assert.equal(rotate.statusCode, 200, rotate.body);
      const fresh = (rotate.json() as { token: string }).token;
      assert.equal((await me(a, key.token)).statusCode, 401);
      assert.equal((await me(b, fresh)).statusCode, 200);
      passBound();
      assert.equal((await me(b, key.token)).statusCode, 401);
    });

    it('follows a team membership removed and given back: at once here, within 1 s on the other instance', async () => {
      const invite = await a.inject({
        method: 'POST',
        url: `/api/v1/companies/${companyId}/members`,
        headers: bearer(owner),
        payload: { email: 'mia@acme.test', fullName: 'Mia Member', role: 'member' },
      });
      assert.equal(invite.statusCode, 201, invite.body);
      const memberId = (invite.json() as { member: { _id: string } }).member._id;
      // a key for Mia, made as the administration command makes one
      const mia = (await issueApiKey(a.services, memberId, 'mia')).token;
      // not in the team yet: the board is out of reach on both (and that answer is not kept)
      assert.equal((await board(a, mia)).statusCode, 404);
      assert.equal((await board(b, mia)).statusCode, 404);
      const add = await a.inject({ method: 'POST', url: `/api/v1/teams/${teamId}/members`, headers: bearer(owner), payload: { userId: memberId } });
      assert.equal(add.statusCode, 200, add.body);
      assert.equal((await board(a, mia)).statusCode, 200, 'a member added here reaches the board at once');
      passBound();
      assert.equal((await board(b, mia)).statusCode, 200);

      const remove = await a.inject({ method: 'DELETE', url: `/api/v1/teams/${teamId}/members/${memberId}`, headers: bearer(owner) });
      assert.equal(remove.statusCode, 200, remove.body);
      assert.equal((await board(a, mia)).statusCode, 404, 'a member removed here loses the board at once');
      passBound();
      assert.equal((await board(b, mia)).statusCode, 404);
    });

    it('follows a company role changed on the other instance within 1 s', async () => {
      const invite = await a.inject({
        method: 'POST',
        url: `/api/v1/companies/${companyId}/members`,
        headers: bearer(owner),
        payload: { email: 'ada@acme.test', fullName: 'Ada Admin', role: 'member' },
      });
      assert.equal(invite.statusCode, 201, invite.body);
      const adaId = (invite.json() as { member: { _id: string } }).member._id;
      const ada = (await issueApiKey(a.services, adaId, 'ada')).token;
      const role = (app: App, value: 'admin' | 'member') =>
        app.inject({ method: 'PATCH', url: `/api/v1/companies/${companyId}/members/${adaId}`, headers: bearer(owner), payload: { role: value } });
      assert.equal((await role(b, 'admin')).statusCode, 200);
      // an admin of the company reaches every board of it, member of the team or not
      assert.equal((await board(b, ada)).statusCode, 200, 'made admin here: reaches at once');
      assert.equal((await board(a, ada)).statusCode, 200);
      assert.equal((await role(a, 'member')).statusCode, 200);
      assert.equal((await board(a, ada)).statusCode, 404, 'made a member here: out of reach at once');
      passBound();
      assert.equal((await board(b, ada)).statusCode, 404);
    });
  });
}
