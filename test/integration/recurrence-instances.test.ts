/**
 * Recurring cards with two server instances on one PostgreSQL schema and one clock: both makers
 * race for the same twenty owed occurrences (missed while "down", made on start) and each is made
 * exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { manualClock } from '../support/clock.ts';
import { seedBoard } from '../support/fixtures.ts';
import { bearer, needsPostgres, openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';

const OCCURRENCES = 20;

describe('recurring cards with two instances on one PostgreSQL', needsPostgres, () => {
  let shared: TestStorage;
  let second: StorageConnection;
  let apps: App[];
  let tenant: BootstrapResult;
  const clock = manualClock(Date.parse('2031-03-20T00:00:00.000Z'));

  before(async () => {
    shared = await openTestStorage('postgres');
    second = openStorage(shared.url);
    apps = await Promise.all(
      [shared.storage, second].map(async (storage) => {
        const app = await buildApp({ config: testConfig(), storage, rateLimiter: null, logger: false, clock });
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

  it(`makes each of ${OCCURRENCES} owed occurrences once, whichever instance gets it`, async () => {
    const [a, b] = apps as [App, App];
    const board = await seedBoard(a.services, tenant);
    const res = await a.inject({
      method: 'POST',
      url: `/api/v1/boards/${board.boardId}/recurrences`,
      headers: bearer(tenant.apiKey),
      payload: {
        list: board.listIds[0],
        name: 'Daily',
        card: { name: 'Daily card' },
        rule: 'FREQ=DAILY',
        startsAt: '2031-03-20T09:00',
        timeZone: 'Europe/Berlin',
        missed: 'create',
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().recurrence._id as string;
    // twenty days pass (across the change to summer time) with no server running
    clock.at = Date.parse('2031-04-08T12:00:00.000Z');
    for (let round = 0; round < 10; round++) await Promise.all([a.recurrences.tick(), b.recurrences.tick(), a.recurrences.tick(), b.recurrences.tick()]);
    const made = await a.services.db
      .selectFrom('recurrence_occurrences')
      .select(['occurs_at', 'card_id'])
      .where('recurrence_id', '=', id)
      .orderBy('occurs_at')
      .execute();
    assert.equal(made.length, OCCURRENCES);
    assert.equal(made[0]?.occurs_at, '2031-03-20T08:00:00.000Z');
    assert.equal(made.at(-1)?.occurs_at, '2031-04-08T07:00:00.000Z');
    const cards = await a.services.db.selectFrom('cards').select('id').where('name', '=', 'Daily card').execute();
    assert.equal(cards.length, OCCURRENCES, 'one card per occurrence, none twice');
  });
});
