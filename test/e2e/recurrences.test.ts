/**
 * Recurring cards over HTTP, on both engines, with an injected clock (no sleeps): each occurrence
 * made once at its moment in its zone across daylight-saving changes (Europe/Berlin,
 * America/New_York); missed occurrences made or skipped by the recurrence's choice; pause, edit
 * (future only), delete; the next three occurrences shown; bad schedules refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../support/clock.ts';
import { seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINES, otherCompany, type TestApp } from '../support/harness.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

for (const engine of ENGINES) {
  describe(`recurring cards [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let boardId: string;
    let listId: string;
    let labelId: string;
    const clock = manualClock(Date.parse('2031-03-27T12:00:00.000Z'));

    before(async () => {
      t = await buildTestApp(engine, { clock });
      api = apiClient(t, t.tenant.apiKey);
      const board = await seedBoard(t.services, t.tenant, { lists: 2, labels: 1 });
      boardId = board.boardId;
      listId = board.listIds[1] as string;
      labelId = board.labelIds[0] as string;
    });
    after(() => t.dispose());

    async function create(body: object) {
      const res = await api('POST', `/api/v1/boards/${boardId}/recurrences`, { list: listId, ...body });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().recurrence as { _id: string; nextOccurrences: string[]; made: number };
    }
    async function cardsNamed(name: string) {
      return t.services.db.selectFrom('cards').select(['id', 'due_date', 'list_id']).where('name', '=', name).orderBy('due_date').execute();
    }
    /** Passes until one makes nothing. */
    async function settle() {
      let made = 0;
      for (let i = 0; i < 100; i++) {
        const pass = await t.app.recurrences.tick();
        if (pass.made + pass.paused === 0) return made;
        made += pass.made;
      }
      throw new Error('the maker did not settle');
    }

    it('makes a daily 09:00 Europe/Berlin card once per occurrence across the spring change, due 8 hours later', async () => {
      const preview = await api('POST', `/api/v1/boards/${boardId}/recurrences/preview`, {
        rule: 'FREQ=DAILY',
        startsAt: '2031-03-28T09:00',
        timeZone: 'Europe/Berlin',
      });
      assert.deepEqual(preview.json().occurrences, ['2031-03-28T08:00:00.000Z', '2031-03-29T08:00:00.000Z', '2031-03-30T07:00:00.000Z']);
      const r = await create({
        name: 'Stand-up',
        card: {
          name: 'Berlin stand-up',
          labels: [labelId],
          checklists: [{ name: 'Agenda', items: ['Yesterday', 'Today'] }],
          dueOffset: { amount: 8, unit: 'hours' },
        },
        rule: 'FREQ=DAILY',
        startsAt: '2031-03-28T09:00',
        timeZone: 'Europe/Berlin',
      });
      assert.deepEqual(r.nextOccurrences, preview.json().occurrences);
      assert.equal(await settle(), 0, 'nothing before its time');
      for (const at of ['2031-03-28T08:00:00.000Z', '2031-03-29T08:00:00.000Z', '2031-03-30T07:00:00.000Z']) {
        clock.at = Date.parse(at) - 1;
        assert.equal(await settle(), 0, `nothing a millisecond before ${at}`);
        clock.at = Date.parse(at);
        assert.equal(await settle(), 1, `one card at ${at}`);
        assert.equal(await settle(), 0, 'and only one');
      }
      const made = await cardsNamed('Berlin stand-up');
      assert.deepEqual(
        made.map((c) => c.due_date),
        ['2031-03-28T16:00:00.000Z', '2031-03-29T16:00:00.000Z', '2031-03-30T15:00:00.000Z'],
      );
      const card = (await api('GET', `/api/v1/cards/${made[0]?.id}`)).json().card;
      assert.deepEqual(
        card.labels.map((l: { _id: string }) => l._id),
        [labelId],
      );
      const checklists = (await api('GET', `/api/v1/cards/${made[0]?.id}/checklists`)).json().checklists;
      assert.equal(checklists[0].name, 'Agenda');
      const after = (await api('GET', `/api/v1/recurrences/${r._id}`)).json().recurrence;
      assert.equal(after.made, 3);
      assert.deepEqual(after.nextOccurrences, ['2031-03-31T07:00:00.000Z', '2031-04-01T07:00:00.000Z', '2031-04-02T07:00:00.000Z']);
      await api('DELETE', `/api/v1/recurrences/${r._id}`);
    });

    it('makes a weekly America/New_York card at 09:00 on the wall across the autumn change', async () => {
      clock.at = Date.parse('2031-10-25T00:00:00.000Z');
      const r = await create({
        name: 'NY weekly',
        card: { name: 'NY review' },
        rule: 'FREQ=WEEKLY;BYDAY=SA,MO',
        startsAt: '2031-10-25T09:00',
        timeZone: 'America/New_York',
      });
      assert.deepEqual(r.nextOccurrences, ['2031-10-25T13:00:00.000Z', '2031-10-27T13:00:00.000Z', '2031-11-01T13:00:00.000Z']);
      clock.at = Date.parse('2031-11-03T14:00:00.000Z');
      assert.equal(await settle(), 4, 'the four owed by 3 November 09:00 EST, each once');
      const got = await t.services.db
        .selectFrom('recurrence_occurrences')
        .select('occurs_at')
        .where('recurrence_id', '=', r._id)
        .orderBy('occurs_at')
        .execute();
      assert.deepEqual(
        got.map((o) => o.occurs_at),
        ['2031-10-25T13:00:00.000Z', '2031-10-27T13:00:00.000Z', '2031-11-01T13:00:00.000Z', '2031-11-03T14:00:00.000Z'],
      );
      await api('DELETE', `/api/v1/recurrences/${r._id}`);
    });

    it('after downtime makes every missed occurrence (create) or only the latest (skip)', async () => {
      clock.at = Date.parse('2031-05-01T00:00:00.000Z');
      const all = await create({
        name: 'All',
        card: { name: 'Missed made' },
        rule: 'FREQ=DAILY',
        startsAt: '2031-05-01T06:00',
        timeZone: 'UTC',
        missed: 'create',
      });
      const latest = await create({
        name: 'Latest',
        card: { name: 'Missed skipped' },
        rule: 'FREQ=DAILY',
        startsAt: '2031-05-01T06:00',
        timeZone: 'UTC',
        missed: 'skip',
      });
      clock.at = Date.parse('2031-05-04T07:00:00.000Z'); // four occurrences passed while "down"
      await settle();
      assert.equal((await cardsNamed('Missed made')).length, 4);
      assert.equal((await cardsNamed('Missed skipped')).length, 1);
      const skipped = (await api('GET', `/api/v1/recurrences/${latest._id}`)).json().recurrence;
      assert.equal(skipped.nextOccurrences[0], '2031-05-05T06:00:00.000Z');
      await api('DELETE', `/api/v1/recurrences/${all._id}`);
      await api('DELETE', `/api/v1/recurrences/${latest._id}`);
    });

    it('pauses, edits future occurrences only, and deletes', async () => {
      clock.at = Date.parse('2031-06-01T00:00:00.000Z');
      const r = await create({ name: 'Edited', card: { name: 'Before edit' }, rule: 'FREQ=DAILY', startsAt: '2031-06-01T10:00', timeZone: 'Europe/Berlin' });
      clock.at = Date.parse('2031-06-01T08:00:00.000Z');
      assert.equal(await settle(), 1);
      const paused = (await api('PATCH', `/api/v1/recurrences/${r._id}`, { enabled: false })).json().recurrence;
      assert.deepEqual(paused.nextOccurrences, []);
      clock.at += 2 * DAY + HOUR;
      assert.equal(await settle(), 0, 'nothing while paused');
      const resumed = (await api('PATCH', `/api/v1/recurrences/${r._id}`, { enabled: true, card: { name: 'After edit' } })).json().recurrence;
      assert.equal(resumed.nextOccurrences[0], '2031-06-04T08:00:00.000Z', 'resumed from now: the paused days are not owed');
      clock.at = Date.parse('2031-06-04T08:00:00.000Z');
      assert.equal(await settle(), 1);
      assert.equal((await cardsNamed('Before edit')).length, 1, 'the card made before the edit stays');
      assert.equal((await cardsNamed('After edit')).length, 1);
      assert.equal((await api('DELETE', `/api/v1/recurrences/${r._id}`)).statusCode, 200);
      assert.equal((await api('GET', `/api/v1/recurrences/${r._id}`)).statusCode, 404);
      clock.at += DAY;
      assert.equal(await settle(), 0);
    });

    it('pauses a recurrence whose list was deleted, with the reason', async () => {
      clock.at = Date.parse('2031-07-01T00:00:00.000Z');
      const list = (await api('POST', '/api/v1/lists', { board: boardId, name: 'Short-lived' })).json().list._id;
      const res = await api('POST', `/api/v1/boards/${boardId}/recurrences`, {
        list,
        name: 'Orphan',
        card: { name: 'Orphan card' },
        rule: 'FREQ=DAILY',
        startsAt: '2031-07-01T10:00',
        timeZone: 'UTC',
      });
      assert.equal(res.statusCode, 201, res.body);
      await api('DELETE', `/api/v1/lists/${list}`);
      clock.at = Date.parse('2031-07-01T10:00:00.000Z');
      await settle();
      const paused = (await api('GET', `/api/v1/recurrences/${res.json().recurrence._id}`)).json().recurrence;
      assert.equal(paused.enabled, false);
      assert.match(paused.pausedReason, /could not be made/);
    });

    it('refuses bad schedules and hides recurrences from another company', async () => {
      const bad = await api('POST', `/api/v1/boards/${boardId}/recurrences`, {
        list: listId,
        name: 'Bad',
        card: { name: 'x' },
        rule: 'FREQ=DAILY',
        startsAt: '2031-03-01T09:00',
        timeZone: 'Mars/Olympus',
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().details[0].field, 'body.timeZone');
      const r = await create({ name: 'Private', card: { name: 'p' }, rule: 'FREQ=DAILY', startsAt: '2031-03-01T09:00', timeZone: 'UTC', enabled: false });
      const other = await otherCompany(t);
      assert.equal((await other.api('GET', `/api/v1/recurrences/${r._id}`)).statusCode, 404);
      assert.equal((await other.api('GET', `/api/v1/boards/${boardId}/recurrences`)).statusCode, 404);
    });
  });
}
