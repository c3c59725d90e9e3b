/**
 * Board rules with two server instances on one PostgreSQL schema and one Redis (the event bell),
 * each running its own rule worker: 120 cards moved into Done through both instances, while both
 * workers run and are ticked on top at once, get the rule's comment and completion exactly once each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { seedBoard } from '../support/fixtures.ts';
import { bearer, needsPostgres, openTestStorage, REDIS_URL, type TestStorage, testConfig } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';

const CARDS = 120;

describe('board rules with two instances on one PostgreSQL and Redis', needsPostgres, () => {
  let shared: TestStorage;
  let second: StorageConnection;
  let apps: App[];
  let tenant: BootstrapResult;

  before(async () => {
    shared = await openTestStorage('postgres');
    second = openStorage(shared.url);
    const config = testConfig({ redisUrl: REDIS_URL, rules: { pollMs: 50, actionsPerHour: 100_000 } });
    apps = await Promise.all(
      [shared.storage, second].map(async (storage) => {
        const app = await buildApp({ config, storage, rateLimiter: null, logger: false });
        await app.ready();
        return app;
      }),
    );
    tenant = await bootstrap(apps[0]!.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
  });
  after(async () => {
    for (const app of apps) await app.close();
    await second.close();
    await shared.dispose();
  });

  it(`runs the rule once for each of ${CARDS} cards moved through both instances`, async () => {
    const [a, b] = apps as [App, App];
    const board = await seedBoard(a.services, tenant, { lists: 2 });
    const [todo, done] = board.listIds as [string, string];
    const call = async (app: App, method: 'POST' | 'PATCH', url: string, payload: object) => {
      const res = await app.inject({ method, url, headers: bearer(tenant.apiKey), payload });
      assert.ok(res.statusCode < 300, `${method} ${url} → ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const rule = (
      await call(a, 'POST', `/api/v1/boards/${board.boardId}/rules`, {
        name: 'Close done cards',
        trigger: { type: 'card.moved.into', list: done },
        actions: [
          { type: 'comment', text: 'Closed by the rule' },
          { type: 'complete', status: true },
        ],
      })
    ).rule;
    const cards: string[] = [];
    for (let i = 0; i < CARDS; i++) cards.push((await call(i % 2 ? b : a, 'POST', '/api/v1/cards', { list: todo, name: `Card ${i}` })).card._id);

    // moves through both instances, four at a time, while both workers also get extra passes
    let moving = true;
    const ticking = (async () => {
      while (moving) await Promise.all([a.rules.tick(), b.rules.tick()]);
    })();
    for (let i = 0; i < CARDS; i += 4) {
      await Promise.all(
        cards.slice(i, i + 4).map((card, j) => call(j % 2 ? a : b, 'PATCH', `/api/v1/cards/${card}/position`, { list: done, position: 'bottom' })),
      );
    }
    moving = false;
    await ticking;

    const db = a.services.db;
    const runs = await eventually(
      () => db.selectFrom('rule_runs').select(['card_id', 'status']).where('rule_id', '=', rule._id).execute(),
      (rows) => rows.length === CARDS && rows.every((row) => row.status === 'done'),
      60_000,
      'every run done',
    );
    assert.equal(new Set(runs.map((run) => run.card_id)).size, CARDS);
    const comments = await db
      .selectFrom('comments')
      .select((eb) => ['card_id', eb.fn.countAll<string>().as('count')])
      .where('card_id', 'in', cards)
      .groupBy('card_id')
      .execute();
    assert.equal(comments.length, CARDS, 'every card has the comment');
    assert.deepEqual([...new Set(comments.map((c) => Number(c.count)))], [1], 'and only once');
    const open = await db.selectFrom('cards').select('id').where('id', 'in', cards).where('complete_status', '=', 0).execute();
    assert.deepEqual(open, []);
    // the rule's events, once per card: one rule.run each
    const ran = await db.selectFrom('events').select('card_id').where('type', '=', 'rule.run').where('actor_rule_id', '=', rule._id).execute();
    assert.equal(ran.length, CARDS);
    assert.equal(new Set(ran.map((e) => e.card_id)).size, CARDS);
  });
});
