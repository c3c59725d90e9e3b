/**
 * The overdue notice, with an injected clock (no sleeps): a card's members and watchers are told once
 * when its due date passes while it is incomplete; a new due date re-arms it; a completed card, or a
 * date passed more than a day before any pass, tells nobody; two instances on one PostgreSQL send it once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { toggleMembers } from '../../src/domain/cards/members.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { manualClock } from '../support/clock.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINES, needsPostgres, openTestStorage, type TestApp, type TestStorage, testConfig } from '../support/harness.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2031-03-01T08:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

for (const engine of ENGINES) {
  describe(`overdue notices [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let ann: { userId: string; api: Api };
    let cy: { userId: string; api: Api };
    let listId: string;
    const clock = manualClock(T0);

    before(async () => {
      t = await buildTestApp(engine, { clock });
      api = apiClient(t, t.tenant.apiKey);
      const a = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ann@acme.test', fullName: 'Ann' });
      const c = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'cy@acme.test', fullName: 'Cy' });
      ann = { userId: a.userId, api: apiClient(t, a.apiKey) };
      cy = { userId: c.userId, api: apiClient(t, c.apiKey) };
      listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    });
    after(() => t.dispose());

    async function newCard(dueDate: string, members: string[] = []): Promise<string> {
      const res = await api('POST', '/api/v1/cards', { list: listId, name: 'Card', dueDate });
      assert.equal(res.statusCode, 201, res.body);
      const id = res.json().card._id as string;
      if (members.length) assert.equal((await api('POST', `/v2/cards/${id}/members`, { members })).statusCode, 200);
      return id;
    }
    async function at(ms: number): Promise<number> {
      clock.at = ms;
      return t.app.overdue.tick();
    }
    async function told(cardId: string): Promise<[string, string | null][]> {
      const rows = await t.services.db
        .selectFrom('notifications')
        .select(['user_id', 'actor_user_id'])
        .where('card_id', '=', cardId)
        .where('type', '=', 'card.overdue')
        .orderBy('user_id')
        .execute();
      return rows.map((row) => [row.user_id, row.actor_user_id]);
    }
    const version = async (id: string) =>
      Number((await t.services.db.selectFrom('cards').select('version').where('id', '=', id).executeTakeFirstOrThrow()).version);

    it('tells the members and watchers once, as the system, when the due date passes', async () => {
      clock.at = T0;
      const due = T0 + 2 * DAY;
      const id = await newCard(iso(due), [ann.userId]);
      assert.equal((await cy.api('POST', `/api/v1/cards/${id}/watch`)).statusCode, 200);
      const v0 = await version(id);
      assert.equal(await at(due - 1), 0, 'not yet due');
      assert.deepEqual(await told(id), []);
      assert.equal(await at(due), 1, 'due now: overdue');
      assert.deepEqual(
        await told(id),
        [
          [ann.userId, null],
          [cy.userId, null],
        ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      );
      assert.equal(await version(id), v0 + 1, 'one change of the card');
      assert.equal(await at(due + HOUR), 0, 'once');
      assert.equal(await at(due + 2 * DAY), 0);
      assert.equal((await told(id)).length, 2);
      const events = await t.services.db.selectFrom('events').select('data').where('card_id', '=', id).where('type', '=', 'card.overdue').execute();
      assert.deepEqual(
        events.map((e) => JSON.parse(e.data)),
        [{ date: iso(due) }],
      );
      const [first] = (await ann.api('GET', '/api/v1/notifications')).json().notifications;
      assert.deepEqual([first.type, first.card, first.actor, first.cardName], ['card.overdue', id, null, 'Card']);
    });

    it('a new due date re-arms it; a completed card and a date long past tell nobody', async () => {
      clock.at = T0 + 10 * DAY;
      const moved = await newCard(iso(clock.at + HOUR), [ann.userId]);
      assert.equal(await at(clock.at + 2 * HOUR), 1);
      assert.equal((await api('PATCH', `/api/v1/cards/${moved}`, { dueDate: iso(clock.at + DAY) })).statusCode, 200);
      assert.equal(await at(clock.at + DAY - 1), 0);
      assert.equal(await at(clock.at + 2), 1, 'the new date passed: told again');
      assert.equal((await told(moved)).length, 2);

      clock.at = T0 + 20 * DAY;
      const done = await newCard(iso(clock.at + HOUR), [ann.userId]);
      assert.equal((await api('PATCH', `/api/v1/cards/${done}`, { complete: { status: true } })).statusCode, 200);
      const late = await newCard(iso(clock.at + HOUR), [ann.userId]);
      assert.equal(await at(clock.at + DAY + 2 * HOUR), 0, 'completed; and the other passed more than a day ago');
      assert.deepEqual(await told(done), []);
      assert.deepEqual(await told(late), []);
    });

    it('a card without members or watchers tells its creator', async () => {
      clock.at = T0 + 30 * DAY;
      const id = await newCard(iso(clock.at + HOUR));
      assert.equal(await at(clock.at + 2 * HOUR), 1);
      assert.deepEqual(await told(id), [[t.tenant.userId, null]]);
    });
  });
}

describe('overdue notices: two instances on one PostgreSQL', needsPostgres, () => {
  let test: TestStorage;
  let second: StorageConnection;
  const apps: App[] = [];
  const clock = manualClock(T0);
  before(async () => {
    test = await openTestStorage('postgres');
    second = openStorage(test.url);
    for (const storage of [test.storage, second]) {
      const app = await buildApp({ config: testConfig(), storage, rateLimiter: null, logger: false, clock });
      await app.ready();
      apps.push(app);
    }
  });
  after(async () => {
    for (const app of apps) await app.close();
    await second.close();
    await test.dispose();
  });

  it('each notice is sent exactly once', async () => {
    const [a, b] = apps as [App, App];
    const tenant = await bootstrap(a.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    const member = await addMember(a.services, { companyId: tenant.companyId, teamIds: [tenant.teamId], email: 'ann@acme.test' });
    const listId = (await seedBoard(a.services, tenant, { lists: 1 })).listIds[0] as string;
    const owner = await authenticate(a.services, tenant.apiKey);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const made = await createCard(a.services, owner, {}, { list: listId, name: `Card ${i}`, dueDate: iso(T0 + DAY + i * 60_000) });
      await toggleMembers(a.services, owner, made._id, {}, [member.userId]);
      ids.push(made._id);
    }
    clock.at = T0 + DAY + HOUR;
    const sent = await Promise.all([a.overdue.tick(), b.overdue.tick(), a.overdue.tick(), b.overdue.tick()]);
    assert.equal(
      sent.reduce((x, y) => x + y, 0),
      20,
      `sent ${sent.join(' + ')}`,
    );
    const told = await a.services.db.selectFrom('notifications').select(['card_id', 'user_id']).where('type', '=', 'card.overdue').execute();
    assert.deepEqual(told.map((n) => n.card_id).sort(), [...ids].sort());
    assert.ok(told.every((n) => n.user_id === member.userId));
    const flags = await a.services.db.selectFrom('cards').select('notified_overdue').where('id', 'in', ids).execute();
    assert.ok(flags.every((f) => Number(f.notified_overdue) === 1));
  });
});
