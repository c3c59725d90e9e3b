/**
 * @taskboard/client against a real server listening on a port, driven only through the client: the
 * README's walk-through, conditional reads answered from the cache on 304, a create retried after
 * its answer was lost (one card, thanks to the Idempotency-Key), and a burst that meets 429 and
 * completes after waiting (the client's injected sleep moves the rate limiter's injected clock, so
 * the wait is real to the server and takes no time); and examples/quickstart.ts run as a process
 * against a server with its default limits.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTaskboardClient, type TaskboardClient } from '../../packages/client/src/index.ts';
import { type App, buildApp } from '../../src/app.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { SqlRateLimiter } from '../../src/ratelimit/sql.ts';
import { runCommand } from '../support/cli.ts';
import { openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';

describe('@taskboard/client against a real server', () => {
  let storage: TestStorage;
  let app: App;
  let baseUrl: string;
  let tenant: BootstrapResult;
  /** The limiter's clock (epoch ms), moved by the clients' sleep. */
  let now = Date.parse('2026-11-23T10:00:00.000Z');
  const statuses: number[] = [];
  const waits: number[] = [];

  function client(apiKey: string): TaskboardClient {
    return createTaskboardClient({
      baseUrl,
      apiKey,
      // Counts what the server really answered, under the client's layer.
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    });
  }

  before(async () => {
    storage = await openTestStorage('sqlite');
    const config = testConfig();
    const rateLimit = { ...config.rateLimit, enabled: true, windowSeconds: 60, tiers: { ...config.rateLimit.tiers, medium: 3 } };
    app = await buildApp({
      config: { ...config, rateLimit },
      storage: storage.storage,
      rateLimiter: new SqlRateLimiter({ storage: storage.storage, settings: rateLimit, now: () => now }),
      logger: false,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    tenant = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
  });
  after(async () => {
    await app?.close();
    await storage?.dispose();
  });

  /** A board with one list, through the client. */
  async function boardWithList(api: TaskboardClient) {
    const board = await api.POST('/api/v1/boards', { params: { query: { teamId: tenant.teamId } }, body: { name: 'Launch' } });
    assert.equal(board.response.status, 201, JSON.stringify(board.error));
    const list = await api.POST('/api/v1/lists', { body: { board: board.data!.board._id, name: 'To do' } });
    assert.equal(list.response.status, 201, JSON.stringify(list.error));
    return { boardId: board.data!.board._id, listId: list.data!.list._id };
  }

  it('walks through the README: create a card, toggle labels, read it back, a 404 as a typed error', async () => {
    const api = client(tenant.apiKey);
    const me = await api.GET('/api/v1/me');
    assert.equal(me.response.status, 200);
    assert.equal(me.data?.user.email, 'owner@acme.test');
    assert.equal(api.rateLimit?.tier, 'very-low');

    const { boardId, listId } = await boardWithList(api);
    const created = await api.POST('/api/v1/cards', { body: { list: listId, name: 'Write the launch post' } });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const cardId = created.data!.card._id;
    assert.equal(api.rateLimit?.tier, 'medium');

    const colors = await api.GET('/api/v1/label-colors');
    const [red, blue] = colors.data!.colors;
    const labels = await Promise.all(
      [
        ['urgent', red!._id],
        ['blog', blue!._id],
      ].map(([name, color]) => api.POST('/api/v1/boards/{boardId}/labels', { params: { path: { boardId } }, body: { name: name!, color: color! } })),
    );
    const labelIds = labels.map((l) => l.data!.label._id);
    const toggled = await api.POST('/v2/cards/{cardId}/labels', { params: { path: { cardId } }, body: { labels: labelIds } });
    assert.equal(toggled.response.status, 200, JSON.stringify(toggled.error));
    assert.deepEqual(toggled.data!.card.labels.map((l) => l.name).sort(), ['blog', 'urgent']);

    const read = await api.GET('/api/v1/cards/{cardId}', { params: { path: { cardId } } });
    assert.equal(read.response.status, 200);
    assert.equal(read.data!.card.labels.length, 2);
    assert.equal(read.data!.card.name, 'Write the launch post');

    const missing = await api.GET('/api/v1/cards/{cardId}', { params: { path: { cardId: 'f'.repeat(24) } } });
    assert.equal(missing.response.status, 404);
    assert.equal(missing.error?.code, 'not_found');
  });

  it('keeps the ETag of a read and is answered 304 from its cache until the card changes', async () => {
    const api = client(tenant.apiKey);
    const { listId } = await boardWithList(api);
    const created = await api.POST('/api/v1/cards', { body: { list: listId, name: 'Cached' } });
    const cardId = created.data!.card._id;
    const first = await api.GET('/api/v1/cards/{cardId}', { params: { path: { cardId } } });
    assert.equal(first.response.status, 200);
    statuses.length = 0;
    const again = await api.GET('/api/v1/cards/{cardId}', { params: { path: { cardId } } });
    assert.deepEqual(statuses, [304], 'the server answered 304');
    assert.equal(again.response.status, 200, 'the client answered from its cache');
    assert.deepEqual(again.data, first.data);

    const renamed = await api.PATCH('/api/v1/cards/{cardId}', { params: { path: { cardId } }, body: { name: 'Renamed' } });
    assert.equal(renamed.response.status, 200, JSON.stringify(renamed.error));
    statuses.length = 0;
    const changed = await api.GET('/api/v1/cards/{cardId}', { params: { path: { cardId } } });
    assert.deepEqual(statuses, [200], 'a changed card is sent again');
    assert.equal(changed.data!.card.name, 'Renamed');
  });

  it('retries a create whose answer was lost with the same Idempotency-Key: one card, the first answer replayed', async () => {
    const keys: string[] = [];
    let lost = false;
    const api = createTaskboardClient({
      baseUrl,
      apiKey: tenant.apiKey,
      // The first answer reaches the server's side and is lost on the way back, as a gateway that
      // times out answers 503 after the upstream did the work.
      fetch: async (request) => {
        keys.push(request.headers.get('Idempotency-Key') ?? '');
        const response = await fetch(request);
        if (request.method === 'POST' && !lost) {
          lost = true;
          await response.arrayBuffer();
          return new Response(JSON.stringify({ message: 'upstream timed out', code: 'unavailable', requestId: 'gateway' }), {
            status: 503,
            headers: { 'Retry-After': '1' },
          });
        }
        return response;
      },
      sleep: async (ms) => {
        now += ms;
      },
    });
    const { listId } = await boardWithList(client(tenant.apiKey));
    const created = await api.POST('/api/v1/cards', { body: { list: listId, name: 'Exactly once' } });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    // (the retry may itself meet a 429 of this suite's small tier, and wait again)
    assert.ok(keys.length >= 2, 'retried');
    assert.ok(keys[0] && keys.every((key) => key === keys[0]), `the same key on every retry: ${keys.join(', ')}`);
    assert.equal(created.response.headers.get('Idempotent-Replayed'), 'true', 'the retry got the first answer');

    const cards = await api.GET('/api/v1/lists/{listId}/cards', { params: { path: { listId } } });
    assert.deepEqual(
      cards.data!.cards.map((c) => c._id),
      [created.data!.card._id],
      'one card',
    );
  });

  it('meets 429 in a burst of creates and completes every one after waiting what the server said', async () => {
    const api = client(tenant.apiKey);
    const { listId } = await boardWithList(api);
    // The medium tier allows 3 a minute, and the walk-through spent this minute's already.
    statuses.length = 0;
    waits.length = 0;
    const names = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'];
    const answers = await Promise.all(names.map((name) => api.POST('/api/v1/cards', { body: { list: listId, name } })));
    assert.deepEqual(
      answers.map((a) => a.response.status),
      names.map(() => 201),
      'every create completed',
    );
    assert.ok(statuses.includes(429), `the burst met 429: ${statuses.join(',')}`);
    assert.ok(waits.length > 0 && waits.every((ms) => ms >= 1000), `each wait honours Retry-After (≥ 1 s): ${waits.join(',')}`);

    const list = await api.GET('/api/v1/lists/{listId}/cards', { params: { path: { listId } } });
    assert.equal(list.response.status, 200, JSON.stringify(list.error));
    assert.deepEqual(list.data!.cards.map((c) => c.name).sort(), [...names].sort(), 'one card per call: a 429 was never a card');
  });
});

describe('examples/quickstart.ts', () => {
  let storage: TestStorage;
  let app: App;

  before(async () => {
    storage = await openTestStorage('sqlite');
    // The limiter the configuration builds, with the default tiers: the example meets real limits.
    app = await buildApp({ config: testConfig(), storage: storage.storage, logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await app?.close();
    await storage?.dispose();
  });

  it('runs: creates a card, toggles two labels on it and reports the rate-limit state', { timeout: 60_000 }, async () => {
    const tenant = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const run = await runCommand(process.execPath, ['--import', 'tsx', 'examples/quickstart.ts'], { TASKBOARD_URL: url, TASKBOARD_API_KEY: tenant.apiKey });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /created card [0-9a-f]{24} "Try the client"/);
    assert.match(run.stdout, /labels now: (client, docs|docs, client)/);
    assert.match(run.stdout, /rate limit: tier low, \d+ left/);
  });
});
