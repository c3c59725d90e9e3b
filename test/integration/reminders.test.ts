/**
 * The reminder scheduler, with an injected clock (no sleeps): each reminder fires at its moment and
 * only then, once; a new date re-arms; completion and archiving stop; a restart sends what came due
 * while down (never for a past date); two instances on one PostgreSQL send each reminder once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { toggleMembers } from '../../src/domain/cards/members.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import type { Notification } from '../../src/schemas/notifications.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { manualClock } from '../support/clock.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINES, openTestStorage, type TestApp, type TestStorage, testConfig } from '../support/harness.ts';
import { assertDerivedFlagsMatchSources } from '../support/notifications.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2031-03-01T08:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** A clock the test sets. */
interface Flags {
  startOneHour: boolean;
  startOneDay: boolean;
  dueOneHour: boolean;
  dueOneDay: boolean;
}
const NONE: Flags = { startOneHour: false, startOneDay: false, dueOneHour: false, dueOneDay: false };

for (const engine of ENGINES) {
  describe(`reminders [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let ann: { userId: string; api: Api };
    let listId: string;
    const clock = manualClock(T0);

    before(async () => {
      t = await buildTestApp(engine, { clock });
      api = apiClient(t, t.tenant.apiKey);
      const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ann@acme.test' });
      ann = { userId: member.userId, api: apiClient(t, member.apiKey) };
      listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    });
    after(() => t.dispose());

    async function newCard(dates: { startDate?: string; dueDate?: string }, members: string[] = []): Promise<string> {
      const res = await api('POST', '/api/v1/cards', { list: listId, name: 'Card', ...dates });
      assert.equal(res.statusCode, 201, res.body);
      const id = res.json().card._id as string;
      if (members.length) assert.equal((await api('POST', `/v2/cards/${id}/members`, { members })).statusCode, 200);
      return id;
    }
    async function card(id: string): Promise<{ isNotified: Flags; __v: number }> {
      const res = await api('GET', `/api/v1/cards/${id}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().card;
    }
    async function reminders(cardId: string): Promise<[string, string | null][]> {
      const rows = await t.services.db
        .selectFrom('notifications')
        .select(['user_id', 'reminder'])
        .where('card_id', '=', cardId)
        .where('type', '=', 'card.reminder')
        .orderBy('created_at')
        .orderBy('reminder')
        .execute();
      return rows.map((r) => [r.user_id, r.reminder]);
    }
    async function reminderEvents(cardId: string): Promise<string[]> {
      const rows = await t.services.db
        .selectFrom('events')
        .select('data')
        .where('card_id', '=', cardId)
        .where('type', '=', 'card.reminder')
        .orderBy('seq')
        .execute();
      return rows.map((r) => (JSON.parse(r.data) as { reminder: string }).reminder);
    }
    /** Sets the clock and runs a pass; answers how many reminders it sent. */
    async function at(ms: number): Promise<number> {
      clock.at = ms;
      return t.app.reminders.tick();
    }

    it('fires the four reminders of a card at their moments and only then, once each, to its members', async () => {
      clock.at = T0;
      const start = T0 + 3 * DAY;
      const due = T0 + 5 * DAY;
      const id = await newCard({ startDate: iso(start), dueDate: iso(due) }, [ann.userId]);
      const v0 = (await card(id)).__v;
      const steps: [number, Partial<Flags>, number][] = [
        [T0, {}, 0],
        [start - DAY - 1, {}, 0],
        [start - DAY, { startOneDay: true }, 1],
        [start - DAY + 1, { startOneDay: true }, 0],
        [start - HOUR - 1, { startOneDay: true }, 0],
        [start - HOUR, { startOneDay: true, startOneHour: true }, 1],
        [start, { startOneDay: true, startOneHour: true }, 0],
        [due - DAY - 1, { startOneDay: true, startOneHour: true }, 0],
        [due - DAY, { startOneDay: true, startOneHour: true, dueOneDay: true }, 1],
        [due - HOUR - 1, { startOneDay: true, startOneHour: true, dueOneDay: true }, 0],
        [due - HOUR, { startOneDay: true, startOneHour: true, dueOneDay: true, dueOneHour: true }, 1],
        [due - 1, { startOneDay: true, startOneHour: true, dueOneDay: true, dueOneHour: true }, 0],
        [due + HOUR, { startOneDay: true, startOneHour: true, dueOneDay: true, dueOneHour: true }, 0],
      ];
      let sent = 0;
      for (const [moment, flags, count] of steps) {
        assert.equal(await at(moment), count, `sent at ${iso(moment)}`);
        sent += count;
        const now = await card(id);
        assert.deepEqual(now.isNotified, { ...NONE, ...flags }, `flags at ${iso(moment)}`);
        assert.equal(now.__v, v0 + sent, '__v moves once per reminder sent');
      }
      const order = ['startOneDay', 'startOneHour', 'dueOneDay', 'dueOneHour'];
      assert.deepEqual(
        await reminders(id),
        order.map((key) => [ann.userId, key]).sort((a, b) => order.indexOf(a[1]!) - order.indexOf(b[1]!)),
      );
      assert.deepEqual(await reminderEvents(id), order);
      await assertDerivedFlagsMatchSources(t.services.db);
    });

    it('a card without members reminds its creator, as the system (actor null)', async () => {
      clock.at = T0;
      const id = await newCard({ dueDate: iso(T0 + 10 * DAY) });
      assert.equal(await at(T0 + 10 * DAY - HOUR), 1);
      const [told] = (await api('GET', '/api/v1/notifications')).json().notifications as Notification[];
      assert.deepEqual([told?.type, told?.card, told?.reminder, told?.actor, told?.user], ['card.reminder', id, 'dueOneHour', null, t.tenant.userId]);
    });

    it('a date set inside the last hour sends the one-hour reminder at once and never the one-day one', async () => {
      clock.at = T0 + 20 * DAY;
      const id = await newCard({ dueDate: iso(clock.at + 30 * 60_000) }, [ann.userId]);
      assert.equal(await at(clock.at), 1);
      assert.equal(await at(clock.at + 10 * 60_000), 0);
      assert.deepEqual((await card(id)).isNotified, { ...NONE, dueOneHour: true });
      assert.deepEqual(await reminders(id), [[ann.userId, 'dueOneHour']]);
    });

    it('a new date clears its two flags and reschedules; the other date keeps its own', async () => {
      clock.at = T0 + 30 * DAY;
      const start = clock.at + 2 * HOUR;
      const due = clock.at + 3 * HOUR;
      const id = await newCard({ startDate: iso(start), dueDate: iso(due) }, [ann.userId]);
      assert.equal(await at(clock.at), 2, 'both one-day reminders');
      const later = due + 5 * DAY;
      assert.equal((await api('PATCH', `/api/v1/cards/${id}`, { dueDate: iso(later) })).statusCode, 200);
      assert.deepEqual((await card(id)).isNotified, { ...NONE, startOneDay: true });
      assert.equal(await at(clock.at), 0, 'the new due date is not a day away yet');
      assert.equal(await at(start - HOUR), 1, 'the start date still reminds');
      assert.equal(await at(later - DAY), 1, 'the new due date reminds again');
      assert.deepEqual((await card(id)).isNotified, { ...NONE, startOneDay: true, startOneHour: true, dueOneDay: true });
      assert.deepEqual(await reminderEvents(id), ['startOneDay', 'dueOneDay', 'startOneHour', 'dueOneDay']);
      await assertDerivedFlagsMatchSources(t.services.db);
    });

    it('completing or archiving a card stops its reminders; reopened inside the window, it is reminded', async () => {
      clock.at = T0 + 40 * DAY;
      const due = clock.at + 5 * DAY;
      const done = await newCard({ dueDate: iso(due) }, [ann.userId]);
      const archived = await newCard({ dueDate: iso(due) }, [ann.userId]);
      assert.equal((await api('PATCH', `/api/v1/cards/${done}`, { complete: { status: true } })).statusCode, 200);
      assert.equal((await api('PATCH', `/api/v1/cards/${archived}/archive`)).statusCode, 200);
      assert.equal(await at(due - DAY), 0);
      assert.equal(await at(due - HOUR), 0);
      assert.deepEqual([(await card(done)).isNotified, (await card(archived)).isNotified], [NONE, NONE]);
      assert.equal((await api('PATCH', `/api/v1/cards/${done}`, { complete: { status: false } })).statusCode, 200);
      assert.equal(await at(due - HOUR + 1), 1, 'reopened: the one-hour reminder, not the passed one-day');
      assert.deepEqual([(await card(done)).isNotified, (await card(archived)).isNotified], [{ ...NONE, dueOneHour: true }, NONE]);
      assert.equal(await at(due + HOUR), 0);
    });

    it('a card marked deleted (its list deleted, not yet swept) is never reminded, and its flags stay false', async () => {
      clock.at = T0 + 50 * DAY;
      const due = clock.at + 5 * DAY;
      const doomed = (
        await api('POST', '/api/v1/lists', {
          board: (await t.services.db.selectFrom('lists').select('board_id').where('id', '=', listId).executeTakeFirstOrThrow()).board_id,
          name: 'Doomed',
        })
      ).json().list._id as string;
      const res = await api('POST', '/api/v1/cards', { list: doomed, name: 'Card', dueDate: iso(due) });
      assert.equal(res.statusCode, 201, res.body);
      const id = res.json().card._id as string;
      assert.equal((await api('POST', `/v2/cards/${id}/members`, { members: [ann.userId] })).statusCode, 200);
      assert.equal((await api('DELETE', `/api/v1/lists/${doomed}?cascade=true`)).statusCode, 200);
      assert.equal(await at(due - HOUR), 0);
      const row = await t.services.db
        .selectFrom('cards')
        .select(['notified_due_one_hour', 'notified_due_one_day'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([Number(row.notified_due_one_hour), Number(row.notified_due_one_day)], [0, 0], 'no flag claims a reminder nobody was sent');
      assert.deepEqual(await reminders(id), []);
      assert.deepEqual(await reminderEvents(id), []);
      await assertDerivedFlagsMatchSources(t.services.db);
    });

    it('a restart sends what came due while no scheduler ran if the date is still ahead, never for a date already past', async () => {
      clock.at = T0 + 50 * DAY;
      const soon = await newCard({ dueDate: iso(clock.at + 3 * DAY) }, [ann.userId]); // both moments pass while down
      const tomorrow = await newCard({ dueDate: iso(clock.at + 3 * DAY + 5 * HOUR) }, [ann.userId]); // one-day moment passes
      const past = await newCard({ dueDate: iso(clock.at + 2 * DAY) }, [ann.userId]); // its date passes while down
      await t.app.close(); // the server goes down, no pass having run
      const downUntil = clock.at + 3 * DAY - 30 * 60_000;
      const restarted = await buildApp({
        config: testConfig({ reminders: { intervalMs: 3_600_000 } }),
        storage: t.storage,
        rateLimiter: null,
        logger: false,
        clock: manualClock(downUntil),
      });
      try {
        await restarted.ready(); // its first pass starts now, unasked
        assert.equal(await restarted.reminders.tick(), 0, 'the start-up pass had sent them all');
        const flags = async (id: string) => await t.services.db.selectFrom('cards').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        const pick = (row: Awaited<ReturnType<typeof flags>>) => [row.notified_due_one_day, row.notified_due_one_hour].map(Number);
        assert.deepEqual(pick(await flags(soon)), [0, 1], 'the one-hour reminder; the one-day one is superseded');
        assert.deepEqual(pick(await flags(tomorrow)), [1, 0], 'the one-day reminder, its hour not come');
        assert.deepEqual(pick(await flags(past)), [0, 0], 'nothing for a past date');
        assert.deepEqual(await reminders(past), []);
      } finally {
        await restarted.close();
      }
      await assertDerivedFlagsMatchSources(t.services.db);
    });
  });
}

describe('reminders: the scheduler runs on its own once started [sqlite]', () => {
  let t: TestApp;
  const clock = manualClock(T0);
  before(async () => {
    t = await buildTestApp('sqlite', { clock, config: { reminders: { intervalMs: 20 } } });
  });
  after(() => t.dispose());

  it('sends a reminder at a later pass when the clock reaches its moment, and stops with the app', async () => {
    const api = apiClient(t, t.tenant.apiKey);
    const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0];
    const id = (await api('POST', '/api/v1/cards', { list: listId, name: 'Card', dueDate: iso(T0 + 2 * DAY) })).json().card._id;
    clock.at = T0 + 2 * DAY - HOUR;
    const sent = async () =>
      Number((await t.services.db.selectFrom('cards').select('notified_due_one_hour').where('id', '=', id).executeTakeFirstOrThrow()).notified_due_one_hour);
    // waits on the condition (bounded), not on a duration
    for (const deadline = Date.now() + 10_000; (await sent()) === 0; ) {
      assert.ok(Date.now() < deadline, 'the scheduler sent nothing within 10 s');
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(await sent(), 1);
  });
});

describe('reminders: two instances on one PostgreSQL race for the same reminders', () => {
  let test: TestStorage;
  let second: StorageConnection;
  const apps: App[] = [];
  const clock = manualClock(T0);
  before(async () => {
    test = await openTestStorage('postgres');
    second = openStorage(test.url); // the other instance's own connection pool
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

  it('each reminder is sent exactly once: one flag, one __v, one event, one notification per member', async () => {
    const [a, b] = apps as [App, App];
    const tenant = await bootstrap(a.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    const member = await addMember(a.services, { companyId: tenant.companyId, teamIds: [tenant.teamId], email: 'ann@acme.test' });
    const listId = (await seedBoard(a.services, tenant, { lists: 1 })).listIds[0];
    const owner = await authenticate(a.services, tenant.apiKey);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const made = await createCard(a.services, owner, {}, { list: listId as string, name: `Card ${i}`, dueDate: iso(T0 + 5 * DAY + i * 60_000) });
      await toggleMembers(a.services, owner, made._id, {}, [member.userId]);
      ids.push(made._id);
    }
    const db = a.services.db;
    const versions = async () => new Map((await db.selectFrom('cards').select(['id', 'version']).execute()).map((r) => [r.id, Number(r.version)]));
    const before = await versions();
    clock.at = T0 + 5 * DAY - HOUR + 45 * 60_000; // every card's one-hour window is open
    const sent = await Promise.all([a.reminders.tick(), b.reminders.tick(), a.reminders.tick(), b.reminders.tick()]);
    assert.equal(
      sent.reduce((x, y) => x + y, 0),
      30,
      `sent ${sent.join(' + ')}`,
    );
    const afterRace = await versions();
    for (const id of ids) assert.equal(afterRace.get(id), (before.get(id) ?? 0) + 1, 'one change per card');
    const flags = await db.selectFrom('cards').select('notified_due_one_hour').where('id', 'in', ids).execute();
    assert.ok(flags.every((f) => Number(f.notified_due_one_hour) === 1));
    const events = await db.selectFrom('events').select('card_id').where('type', '=', 'card.reminder').execute();
    assert.deepEqual(events.map((e) => e.card_id).sort(), [...ids].sort());
    const told = await db.selectFrom('notifications').select(['card_id', 'user_id']).where('type', '=', 'card.reminder').execute();
    assert.deepEqual(told.map((n) => n.card_id).sort(), [...ids].sort());
    assert.ok(told.every((n) => n.user_id === member.userId));
    await assertDerivedFlagsMatchSources(db);
  });
});
