/**
 * API keys that can do less (docs/people.md, "API keys"): read-only keys are refused every write of
 * the served API (enumerated from the OpenAPI document, as the fuzz and OpenAPI tests do), keys
 * limited to teams reach nothing else, expired keys are refused, and keys made before keep full reach.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, addTeam, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface DocumentedOperation {
  security?: unknown[];
}

/** Every operation of the served document that a key may call and that writes: method, path with `{params}`. */
function writeOperations(t: TestApp): [string, string][] {
  const paths = (t.app.swagger() as unknown as { paths: Record<string, Record<string, DocumentedOperation>> }).paths;
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method, op]) => !['get', 'head', 'options'].includes(method) && !(Array.isArray(op.security) && op.security.length === 0))
      .map(([method]) => [method.toUpperCase(), path] as [string, string]),
  );
}

for (const engine of ENGINES) {
  describe(`API keys that can do less [${engine}]`, () => {
    let t: TestApp;
    const clock = { at: Date.now(), now: () => clock.at };
    let otherTeamId: string;
    let ownBoardId: string;
    let otherBoardId: string;

    before(async () => {
      t = await buildTestApp(engine, { clock });
      otherTeamId = await addTeam(t.services, t.tenant.companyId, 'Elsewhere', [t.tenant.userId]);
      ownBoardId = (await seedBoard(t.services, t.tenant)).boardId;
      otherBoardId = (await seedBoard(t.services, { ...t.tenant, teamId: otherTeamId })).boardId;
    });
    after(() => t.dispose());

    async function createKey(token: string, payload: Record<string, unknown>) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: bearer(token), payload });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as {
        apiKey: { _id: string; access: string; teams: string[] | null; expiresAt: string | null; lastUsedIp: string | null };
        token: string;
      };
    }

    const get = (token: string, url: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });

    it('lists a key made before limits with full reach: read-write, every team, no expiry', async () => {
      const res = await get(t.tenant.apiKey, '/api/v1/api-keys');
      const [key] = res.json().apiKeys;
      assert.equal(key.access, 'read-write');
      assert.equal(key.teams, null);
      assert.equal(key.expiresAt, null);
      assert.equal((await get(t.tenant.apiKey, `/api/v1/boards/${otherBoardId}`)).statusCode, 200);
    });

    it('refuses every write operation of the API to a read-only key with 403, and writes nothing', async () => {
      const { token, apiKey } = await createKey(t.tenant.apiKey, { name: 'reader', access: 'read-only' });
      assert.equal(apiKey.access, 'read-only');
      const operations = writeOperations(t);
      assert.ok(operations.length > 60, `only ${operations.length} write operations found`);
      const eventsBefore = await t.storage.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const allowed: string[] = [];
      for (const [method, path] of operations) {
        // real ids where the path names them, so that a 404 could not stand in for the refusal
        const url = path
          .replace('{boardId}', ownBoardId)
          .replace('{teamId}', t.tenant.teamId)
          .replace('{companyId}', t.tenant.companyId)
          .replace('{keyId}', apiKey._id)
          .replace('{userId}', t.tenant.userId)
          .replace(/\{[A-Za-z]+\}/g, 'aaaaaaaaaaaaaaaaaaaaaaaa');
        const res = await t.app.inject({ method: method as 'POST', url, headers: bearer(token), payload: {} });
        if (res.statusCode !== 403 || res.json().code !== 'forbidden') allowed.push(`${method} ${path}: ${res.statusCode}`);
      }
      assert.deepEqual(allowed, []);
      const eventsAfter = await t.storage.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(eventsAfter.n), Number(eventsBefore.n));
      // the key itself is still there: revoking it was refused too
      assert.ok((await get(t.tenant.apiKey, '/api/v1/api-keys')).json().apiKeys.some((k: { _id: string }) => k._id === apiKey._id));
      // and it reads
      assert.equal((await get(token, `/api/v1/boards/${ownBoardId}`)).statusCode, 200);
      assert.equal((await get(token, '/api/v1/boards')).statusCode, 200);
    });

    it('holds a team-limited key to its teams: 404 elsewhere, its teams only in listings', async () => {
      const { token, apiKey } = await createKey(t.tenant.apiKey, { name: 'core only', teams: [t.tenant.teamId] });
      assert.deepEqual(apiKey.teams, [t.tenant.teamId]);
      assert.equal((await get(token, `/api/v1/boards/${ownBoardId}`)).statusCode, 200);
      const outside = await get(token, `/api/v1/boards/${otherBoardId}`);
      assert.equal(outside.statusCode, 404, outside.body);
      assert.equal(outside.json().code, 'not_found');
      assert.equal((await get(token, `/api/v1/boards?teamId=${otherTeamId}`)).statusCode, 404);
      const boards = (await get(token, '/api/v1/boards')).json().boards as { _id: string }[];
      assert.deepEqual(
        boards.map((b) => b._id),
        [ownBoardId],
      );
      const teams = (await get(token, '/api/v1/teams')).json().teams as { _id: string }[];
      assert.deepEqual(
        teams.map((team) => team._id),
        [t.tenant.teamId],
      );
      assert.deepEqual(
        ((await get(token, '/api/v1/me')).json().teams as { _id: string }[]).map((team) => team._id),
        [t.tenant.teamId],
      );
      // it writes within its team
      const list = await t.app.inject({
        method: 'POST',
        url: '/api/v1/lists',
        headers: bearer(token),
        payload: { board: ownBoardId, name: 'From the limited key' },
      });
      assert.equal(list.statusCode, 201, list.body);
      const elsewhere = await t.app.inject({ method: 'POST', url: '/api/v1/lists', headers: bearer(token), payload: { board: otherBoardId, name: 'No' } });
      assert.equal(elsewhere.statusCode, 404, elsewhere.body);
    });

    it('gives a team-limited key of an owner no company-wide power and no way to widen itself', async () => {
      const { token } = await createKey(t.tenant.apiKey, { name: 'core, owner', teams: [t.tenant.teamId] });
      const members = await get(token, `/api/v1/companies/${t.tenant.companyId}/members`);
      assert.equal(members.statusCode, 403, members.body);
      assert.deepEqual((await get(token, '/api/v1/webhooks')).json().webhooks, []);
      for (const [url, payload] of [
        ['/api/v1/api-keys', { name: 'wider' }],
        ['/api/v1/companies', { name: 'Mine' }],
        [`/api/v1/teams?companyId=${t.tenant.companyId}`, { name: 'New' }],
      ] as const) {
        const res = await t.app.inject({ method: 'POST', url, headers: bearer(token), payload });
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
      }
      const rotate = await t.app.inject({
        method: 'POST',
        url: `/api/v1/api-keys/${(await get(t.tenant.apiKey, '/api/v1/api-keys')).json().apiKeys[0]._id}/rotate`,
        headers: bearer(token),
      });
      assert.equal(rotate.statusCode, 403, rotate.body);
    });

    it('limits a key only to teams its maker reaches (404 naming the field otherwise)', async () => {
      const other = await buildTestApp(engine);
      try {
        const stranger = other.tenant.teamId;
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/api-keys',
          headers: bearer(t.tenant.apiKey),
          payload: { name: 'x', teams: [stranger] },
        });
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().details[0].field, 'body.teams[0]');
        const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'mia@acme.test' });
        const notHers = await t.app.inject({
          method: 'POST',
          url: '/api/v1/api-keys',
          headers: bearer(member.apiKey),
          payload: { name: 'x', teams: [otherTeamId] },
        });
        assert.equal(notHers.statusCode, 404, notHers.body);
      } finally {
        await other.dispose();
      }
    });

    it('refuses a key past its expiry with 401, and an expiry in the past when made', async () => {
      const past = await t.app.inject({
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: bearer(t.tenant.apiKey),
        payload: { name: 'late', expiresAt: new Date(clock.at - 1000).toISOString() },
      });
      assert.equal(past.statusCode, 400, past.body);
      assert.equal(past.json().details[0].field, 'body.expiresAt');
      const expiresAt = new Date(clock.at + 3_600_000).toISOString();
      const { token, apiKey } = await createKey(t.tenant.apiKey, { name: 'an hour', expiresAt });
      assert.equal(apiKey.expiresAt, expiresAt);
      assert.equal((await get(token, '/api/v1/me')).statusCode, 200);
      clock.at += 3_600_000;
      try {
        const refused = await get(token, '/api/v1/me');
        assert.equal(refused.statusCode, 401, refused.body);
        assert.equal(refused.headers['www-authenticate'], 'Bearer error="invalid_token"');
      } finally {
        clock.at -= 3_600_000;
      }
    });

    it('shows when and from which address a key was last used', async () => {
      const { token, apiKey } = await createKey(t.tenant.apiKey, { name: 'seen' });
      assert.equal(apiKey.lastUsedIp, null);
      await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token), remoteAddress: '203.0.113.7' });
      const key = (await get(t.tenant.apiKey, '/api/v1/api-keys')).json().apiKeys.find((k: { _id: string }) => k._id === apiKey._id);
      assert.match(key.lastUsedAt, ISO);
      assert.equal(key.lastUsedIp, '203.0.113.7');
    });

    it('refuses unknown access values and empty team lists with 400', async () => {
      for (const payload of [
        { name: 'x', access: 'admin' },
        { name: 'x', teams: [] },
        { name: 'x', teams: ['nope'] },
        { name: 'x', expiresAt: 'tomorrow' },
      ]) {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: bearer(t.tenant.apiKey), payload });
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.equal(res.json().code, 'validation_failed');
      }
    });
  });
}
