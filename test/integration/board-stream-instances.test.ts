/**
 * Two server instances on one PostgreSQL schema: a stream held by instance A hears the changes made
 * through instance B, by the database's LISTEN/NOTIFY and, with REDIS_URL, by Redis pub/sub. The
 * heartbeat (which also looks at the feed) is set far beyond the test's own time limit, so only the
 * bell can deliver the event. Also: closing the server ends its streams instead of waiting on them.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type App, buildApp } from '../../src/app.ts';
import type { AppConfig } from '../../src/config.ts';
import { LISTENER_NAME } from '../../src/storage/commit-listener.ts';
import { EVENTS_CHANNEL_SQL } from '../../src/storage/event-feed.ts';
import { apiClient, bearer, buildTestApp, REDIS_URL, type TestApp, testConfig } from '../support/harness.ts';
import { eventsOf, openSse } from '../support/sse.ts';

const NO_HEARTBEAT_WITHIN_TEST = 600_000;

async function listening(app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

const bells: Array<[string, Partial<AppConfig>]> = [
  ['PostgreSQL LISTEN/NOTIFY', {}],
  // A prefix of its own, so that no other suite's instances share the channel.
  ['Redis pub/sub', { redisUrl: REDIS_URL, redisKeyPrefix: `test-${randomBytes(4).toString('hex')}:` }],
];

for (const [bell, overrides] of bells) {
  describe(`a stream on one instance hears changes made through another, by ${bell}`, () => {
    let a: TestApp;
    let b: App;
    let baseA: string;
    let boardId: string;
    let cardId: string;

    before(async () => {
      const stream = { ...testConfig().stream, heartbeatMs: NO_HEARTBEAT_WITHIN_TEST };
      a = await buildTestApp('postgres', { config: { stream, ...overrides } });
      // Instance B: its own process state, pool and bell, on A's database.
      b = await buildApp({ config: { ...a.config, databaseUrl: a.url }, rateLimiter: null, logger: false });
      await b.ready();
      baseA = await listening(a.app);
      const api = apiClient(a, a.tenant.apiKey);
      boardId = (await api('POST', `/api/v1/boards?teamId=${a.tenant.teamId}`, { name: 'Shared' })).json().board._id;
      const listId = (await api('POST', '/api/v1/lists', { board: boardId, name: 'Todo' })).json().list._id;
      cardId = (await api('POST', '/api/v1/cards', { list: listId, name: 'Card' })).json().card._id;
    });
    after(async () => {
      await b.close();
      await a.dispose();
    });

    it('delivers an event committed through B to the stream held by A', { timeout: 20_000 }, async () => {
      const stream = await openSse(baseA, `/api/v1/boards/${boardId}/events`, bearer(a.tenant.apiKey));
      assert.equal(stream.status, 200, stream.body);
      for (const name of ['via B 1', 'via B 2']) {
        const res = await b.inject({ method: 'PATCH', url: `/api/v1/cards/${cardId}`, headers: bearer(a.tenant.apiKey), payload: { name } });
        assert.equal(res.statusCode, 200, res.body);
        await stream.until((s) => s.events.length >= (name.endsWith('1') ? 1 : 2), `the event of "${name}"`);
      }
      assert.deepEqual(
        eventsOf(stream).map((e) => [e.type, e.card]),
        [
          ['card.updated', cardId],
          ['card.updated', cardId],
        ],
      );
      stream.close();
    });

    if (!overrides.redisUrl) {
      it("hears B again after A's listening connection is cut", { timeout: 20_000 }, async () => {
        const stream = await openSse(baseA, `/api/v1/boards/${boardId}/events`, bearer(a.tenant.apiKey));
        assert.equal(stream.status, 200, stream.body);
        const { rows } = await sql<{ channel: string }>`select ${sql.raw(EVENTS_CHANNEL_SQL)} as channel`.execute(a.storage.db);
        const listener = `${LISTENER_NAME} ${rows[0]!.channel}`;
        // Both instances listen on the channel: cut every listening connection of it.
        const cut = await sql<{ pid: number }>`select pid from pg_stat_activity where application_name = ${listener}`.execute(a.storage.db);
        assert.ok(cut.rows.length >= 2, 'the listening connections are found');
        await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${listener}`.execute(a.storage.db);
        const res = await b.inject({ method: 'PATCH', url: `/api/v1/cards/${cardId}`, headers: bearer(a.tenant.apiKey), payload: { name: 'after the cut' } });
        assert.equal(res.statusCode, 200, res.body);
        await stream.until((s) => s.events.length >= 1, 'the event committed through B after the cut');
        stream.close();
      });
    }
  });
}

describe('closing the server ends its live streams', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp('sqlite');
  });
  after(() => t.dispose());

  it('does not wait for the streams to end on their own', { timeout: 20_000 }, async () => {
    const api = apiClient(t, t.tenant.apiKey);
    const boardId = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Closing' })).json().board._id;
    const stream = await openSse(await listening(t.app), `/api/v1/boards/${boardId}/events`, bearer(t.tenant.apiKey));
    assert.equal(stream.status, 200);
    await t.app.close();
    await stream.ended;
  });
});
