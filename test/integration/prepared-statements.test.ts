/**
 * Hot statements are prepared once. SQLite re-prepares a statement on every run when its plan
 * depends on a bound value (see src/storage/sqlite-parameters.ts), which costs more than running
 * the statement. better-sqlite3 rebuilds a statement's row function (with `Function`) exactly when
 * SQLite's re-prepare counter (SQLITE_STMTSTATUS_REPREPARE) moved since its last row, so counting
 * those builds per statement counts re-prepares, without timing anything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { type App, buildApp } from '../../src/app.ts';
import { DEFAULT_TIER_LIMITS } from '../../src/config.ts';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { SqlRateLimiter } from '../../src/ratelimit/index.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { bearer, openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';

type Method = 'GET' | 'POST' | 'PATCH';

/** Counts, per SQL text, the row functions better-sqlite3 builds while the statement runs. */
function watchRowFunctionBuilds() {
  const builds = new Map<string, number>();
  let running: string | undefined;
  const statementPrototype = Object.getPrototypeOf(new SqliteDatabase(':memory:').prepare('select 1'));
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = statementPrototype[method] as (...args: unknown[]) => unknown;
    originals.set(method, original);
    statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
      running = this.source;
      try {
        return original.apply(this, args);
      } finally {
        running = undefined;
      }
    };
  }
  const OriginalFunction = globalThis.Function;
  globalThis.Function = new Proxy(OriginalFunction, {
    apply(target, self, args) {
      if (running !== undefined) builds.set(running, (builds.get(running) ?? 0) + 1);
      return Reflect.apply(target, self, args);
    },
  });
  return {
    builds,
    stop() {
      globalThis.Function = OriginalFunction;
      for (const [method, original] of originals) statementPrototype[method] = original;
    },
  };
}

describe('the re-preparation watch', () => {
  it('sees a statement SQLite prepares again on every run (so its silence below means something)', () => {
    const sqlite = new SqliteDatabase(':memory:');
    sqlite.exec("create table lists (board_id text, position real); create index lists_board on lists (board_id, position); insert into lists values ('b', 1)");
    // A bound value ahead of the ORDER BY's column: the plan depends on it (see sqlite-parameters.ts).
    const statement = sqlite.prepare('select * from lists where board_id = ? order by position');
    statement.all('b');
    const watch = watchRowFunctionBuilds();
    try {
      for (let run = 0; run < 3; run++) statement.all('b');
    } finally {
      watch.stop();
      sqlite.close();
    }
    assert.equal(watch.builds.get(statement.source), 3);
  });
});

describe('hot statements are prepared once [sqlite]', () => {
  let test: TestStorage;
  let app: App;
  let limiter: SqlRateLimiter;
  let requests: [Method, string, unknown?][];
  let key: string;

  before(async () => {
    test = await openTestStorage('sqlite');
    // The SQLite limiter too: its decision runs on every authenticated request.
    limiter = new SqlRateLimiter({
      storage: test.storage,
      settings: { windowSeconds: 3600, tiers: { ...DEFAULT_TIER_LIMITS, low: 1e6, 'very-low': 1e6, medium: 1e6, high: 1e6, secure: 1e6 } },
    });
    app = await buildApp({ config: testConfig(), storage: test.storage, rateLimiter: limiter, logger: false });
    await app.ready();
    const tenant = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    key = tenant.apiKey;
    const call = async (method: Method, url: string, payload?: unknown) => {
      const res = await app.inject({ method, url, headers: bearer(key), ...(payload !== undefined ? { payload: payload as object } : {}) });
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return res.json();
    };
    const board = (await call('POST', `/api/v1/boards?teamId=${tenant.teamId}`, { name: 'Roadmap' })).board._id;
    const list = (await call('POST', '/api/v1/lists', { board, name: 'Doing' })).list._id;
    const label = (await call('POST', `/api/v1/boards/${board}/labels`, { name: 'Bug', color: '000000000000000000000004' })).label._id;
    const card = (await call('POST', '/api/v1/cards', { list, name: 'Fix login' })).card._id;
    await call('POST', '/api/v1/cards', { list, name: 'Second card' });
    await call('POST', `/v2/cards/${card}/members`, { members: [tenant.userId] });
    const comment = (await call('POST', `/api/v1/cards/${card}/comments`, { content: 'First' })).comment._id;
    await call('POST', `/api/v1/comments/${comment}/discussions`, { content: 'Reply' });
    requests = [
      ['GET', `/api/v1/cards/${card}`],
      ['POST', `/v2/cards/${card}/labels`, { labels: [label] }],
      ['GET', '/api/v1/label-colors'],
      ['GET', `/api/v1/lists/${list}/cards?limit=50`],
      ['GET', `/api/v1/boards/${board}`],
      ['GET', '/api/v1/my-tasks?limit=50'],
      ['GET', `/api/v1/cards/${card}/comments`],
      ['PATCH', `/api/v1/cards/${card}`, { description: 'Steps to reproduce' }],
      ['GET', '/api/v1/me'],
    ];
    // Two rounds first: every statement has run, and returned rows, at least once (a toggle's
    // statements see the label present in one round and absent in the other).
    for (let round = 0; round < 2; round++) for (const [method, url, payload] of requests) await call(method, url, payload);
  });

  after(async () => {
    await app?.close();
    await limiter?.close();
    await test?.dispose();
  });

  it('runs no statement of the hot routes through a second preparation', async () => {
    const watch = watchRowFunctionBuilds();
    try {
      for (let round = 0; round < 4; round++) {
        for (const [method, url, payload] of requests) {
          const res = await app.inject({ method, url, headers: bearer(key), ...(payload !== undefined ? { payload: payload as object } : {}) });
          assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode}`);
        }
      }
    } finally {
      watch.stop();
    }
    const reprepared = [...watch.builds].map(([source, count]) => `${count}× ${source.slice(0, 160)}`);
    assert.deepEqual(reprepared, [], `statements prepared again while the hot routes ran:\n${reprepared.join('\n')}`);
  });
});

describe('hot statements are named prepared statements [postgres]', () => {
  let test: TestStorage;
  let storage: StorageConnection;
  let app: App;

  before(async () => {
    test = await openTestStorage('postgres');
    // One connection: pg_prepared_statements shows the statements of the connection that reads it.
    storage = openStorage(test.url, { poolSize: 1 });
    app = await buildApp({ config: testConfig(), storage, rateLimiter: null, logger: false });
    await app.ready();
  });

  after(async () => {
    await app?.close();
    await storage?.close();
    await test?.dispose();
  });

  it('plans the authentication and card statements once per connection, whatever the page size, then reuses them', async () => {
    const tenant = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    const call = async (method: Method, url: string, payload?: unknown) => {
      const res = await app.inject({ method, url, headers: bearer(tenant.apiKey), ...(payload !== undefined ? { payload: payload as object } : {}) });
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return res.json();
    };
    const board = (await call('POST', `/api/v1/boards?teamId=${tenant.teamId}`, { name: 'Roadmap' })).board._id;
    const list = (await call('POST', '/api/v1/lists', { board, name: 'Doing' })).list._id;
    const card = (await call('POST', '/api/v1/cards', { list, name: 'Fix login' })).card._id;
    const second = (await call('POST', '/api/v1/cards', { list, name: 'Second card' })).card._id;
    const third = (await call('POST', '/api/v1/cards', { list, name: 'Third card' })).card._id;
    const prepared = async () =>
      (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(storage.db)).rows.map((row) => row.statement);
    await call('GET', `/api/v1/cards/${card}`);
    const afterOneRead = (await prepared()).length;
    for (let i = 0; i < 29; i++) await call('GET', `/api/v1/cards/${card}`);
    // prepared once: the reads after the first did not add a statement per read
    assert.equal((await prepared()).length, afterOneRead, 'the same prepared statements after thirty reads as after one');
    // pages of three and of two cards, each built from the tables (a rename before each page makes the
    // cards' stored views stale): the many-card statement's text does not depend on the count
    for (const limit of [3, 2, 3]) {
      for (const id of [card, second, third]) await call('PATCH', `/api/v1/cards/${id}`, { name: `Renamed for ${limit}` });
      await call('GET', `/api/v1/lists/${list}/cards?limit=${limit}`);
    }
    const statements = await prepared();
    assert.ok(
      statements.some((s) => s.includes('"api_keys"') && s.includes('"token_hash"')),
      `no prepared authentication statement among:\n${statements.join('\n')}`,
    );
    assert.ok(
      statements.some((s) => s.includes('"card_members"') && s.includes('"cheers"') && s.includes('"c"."id" = $')),
      'no prepared one-card statement',
    );
    assert.equal(statements.filter((s) => s.includes('"cheers"') && s.includes('any(')).length, 1, 'one prepared many-card statement');
    assert.equal(statements.filter((s) => s.startsWith('insert into "events"')).length, 1, "one prepared statement for a write's one event");
  });
});
