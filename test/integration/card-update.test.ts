import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import { applyCardUpdate } from '../../src/domain/cards/update.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { Card } from '../../src/schemas/records.ts';
import { recordCardChange } from '../../src/storage/repositories/cards.ts';
import { addMember, addTeam, seedBoard } from '../support/fixtures.ts';
import { apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { assertUpdatedAtMoved, backdate } from '../support/updated-at.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const engine of ENGINES) {
  describe(`Update Card [${engine}]`, () => {
    let t: TestApp;
    let caller: Caller;
    let listId: string;
    let rival: BootstrapResult;

    before(async () => {
      t = await buildTestApp(engine);
      caller = await authenticate(t.services, t.tenant.apiKey);
      listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      rival = await bootstrap(t.services, { company: 'Rival', team: 'T', email: 'r@rival.test', fullName: 'R' });
    });
    after(() => t.dispose());

    const newCard = async (extra: { startDate?: string; dueDate?: string } = {}) =>
      (await createCard(t.services, caller, {}, { list: listId, name: 'Card', ...extra }))._id;
    const patch = (cardId: string, body: unknown, key = t.tenant.apiKey, query = '') => apiClient(t, key)('PATCH', `/api/v1/cards/${cardId}${query}`, body);
    const row = (cardId: string) => t.services.db.selectFrom('cards').selectAll().where('id', '=', cardId).executeTakeFirstOrThrow();

    it('changes every updatable field, answering the full record with __v + 1', async () => {
      const cardId = await newCard();
      await backdate(t.services.db, 'cards', cardId);
      const before = await row(cardId);
      const res = await patch(cardId, {
        name: '  Ship it ',
        cover: 'https://img.test/cover.png',
        description: 'All the details',
        startDate: '2026-12-01T09:00:00+02:00',
        dueDate: '2026-12-03T17:00:00Z',
        workload: { value: 3.5, measurement: 'days' },
        isPublic: true,
        complete: { status: true, type: 'done' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.message, 'Card updated');
      assertSchema(Card, body.card);
      const card = body.card;
      assert.equal(card.name, 'Ship it');
      assert.equal(card.cover, 'https://img.test/cover.png');
      assert.equal(card.description, 'All the details');
      assert.equal(card.startDate, '2026-12-01T07:00:00.000Z', 'normalised to UTC with milliseconds');
      assert.equal(card.dueDate, '2026-12-03T17:00:00.000Z');
      assert.deepEqual(card.workload, { value: 3.5, measurement: 'days' });
      assert.equal(card.isPublic, true);
      assert.equal(card.complete.status, true);
      assert.equal(card.complete.type, 'done');
      assert.equal(card.complete.setAt, card.updatedAt);
      assert.equal(card.complete.updatedAt, card.updatedAt);
      assert.equal(card.__v, before.version + 1);
      assert.match(card.updatedAt, ISO);
      await assertUpdatedAtMoved(t.services.db, 'cards', cardId, card.updatedAt);
      const stored = await row(cardId);
      assert.equal(stored.name, 'Ship it');
      assert.equal(stored.is_public, 1);
      assert.equal(stored.complete_status, 1);
      assert.equal(stored.version, before.version + 1);
    });

    it('sets complete.setAt only when the status changes; complete.updatedAt on every complete change', async () => {
      const cardId = await newCard();
      const created = await row(cardId);
      const done = (await patch(cardId, { complete: { status: true } })).json().card;
      assert.notEqual(done.complete.setAt, created.complete_set_at ?? '');
      assert.equal(done.complete.type, 'todo', 'type stays when not given');
      const again = (await patch(cardId, { complete: { status: true, type: 'review' } })).json().card;
      assert.equal(again.complete.setAt, done.complete.setAt, 'same status: setAt stays');
      assert.equal(again.complete.type, 'review');
      assert.equal(again.complete.updatedAt, again.updatedAt);
      const renamed = (await patch(cardId, { name: 'x' })).json().card;
      assert.deepEqual(renamed.complete, again.complete, 'a change elsewhere leaves complete alone');
      const undone = (await patch(cardId, { complete: { status: false } })).json().card;
      assert.equal(undone.complete.status, false);
      assert.equal(undone.complete.setAt, undone.updatedAt);
      assert.equal(undone.__v, 4);
    });

    it('changes workload parts separately and clears the value with null', async () => {
      const cardId = await newCard();
      assert.deepEqual((await patch(cardId, { workload: { value: 2 } })).json().card.workload, { value: 2, measurement: 'hours' });
      assert.deepEqual((await patch(cardId, { workload: { measurement: 'points' } })).json().card.workload, { value: 2, measurement: 'points' });
      assert.deepEqual((await patch(cardId, { workload: { value: null } })).json().card.workload, { value: null, measurement: 'points' });
    });

    it('checks due against start, given or stored, naming the field the request gave', async () => {
      const cardId = await newCard({ startDate: '2026-12-10T00:00:00.000Z', dueDate: '2026-12-20T00:00:00.000Z' });
      const cases: [unknown, string][] = [
        [{ dueDate: '2026-12-09T00:00:00Z' }, 'body.dueDate'],
        [{ startDate: '2026-12-21T00:00:00Z' }, 'body.startDate'],
        [{ startDate: '2026-12-05T00:00:00Z', dueDate: '2026-12-04T00:00:00Z' }, 'body.dueDate'],
      ];
      for (const [body, field] of cases) {
        const res = await patch(cardId, body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.json().code, 'validation_failed');
        assert.deepEqual(
          res.json().details.map((d: { field: string }) => d.field),
          [field],
        );
      }
      const stored = await row(cardId);
      assert.equal(stored.version, 0, 'a refused update changes nothing');
      assert.equal(stored.start_date, '2026-12-10T00:00:00.000Z');

      // moving both together past the old due is fine; so is a due equal to the start
      const both = await patch(cardId, { startDate: '2026-12-25T00:00:00Z', dueDate: '2026-12-25T00:00:00Z' });
      assert.equal(both.statusCode, 200, both.body);
      // clearing the start frees the due
      assert.equal((await patch(cardId, { startDate: null })).statusCode, 200);
      const early = await patch(cardId, { dueDate: '2026-01-01T00:00:00Z' });
      assert.equal(early.statusCode, 200);
      assert.equal(early.json().card.startDate, null);
      assert.equal(early.json().card.dueDate, '2026-01-01T00:00:00.000Z');
    });

    it('re-arms the reminders of a date that changes, and only of that one', async () => {
      const cardId = await newCard({ startDate: '2026-12-10T00:00:00.000Z', dueDate: '2026-12-20T00:00:00.000Z' });
      const allSent = { notified_start_one_hour: 1, notified_start_one_day: 1, notified_due_one_hour: 1, notified_due_one_day: 1 } as const;
      await t.services.db.updateTable('cards').set(allSent).where('id', '=', cardId).execute();
      const renamed = (await patch(cardId, { name: 'n', dueDate: '2026-12-20T00:00:00Z' })).json().card;
      assert.deepEqual(renamed.isNotified, { startOneHour: true, startOneDay: true, dueOneHour: true, dueOneDay: true }, 'same dates');
      const moved = (await patch(cardId, { dueDate: '2026-12-22T00:00:00Z' })).json().card;
      assert.deepEqual(moved.isNotified, { startOneHour: true, startOneDay: true, dueOneHour: false, dueOneDay: false });
      const started = (await patch(cardId, { startDate: null })).json().card;
      assert.deepEqual(started.isNotified, { startOneHour: false, startOneDay: false, dueOneHour: false, dueOneDay: false });
    });

    it('refuses bad input with 400 naming the field, and changes nothing', async () => {
      const cardId = await newCard();
      const cases: [unknown, string][] = [
        [{}, 'body'],
        [{ color: 'red' }, 'body.color'],
        [{ name: '' }, 'body.name'],
        [{ name: '   ' }, 'body.name'],
        [{ name: 7 }, 'body.name'],
        [{ description: 'x'.repeat(100_001) }, 'body.description'],
        [{ startDate: 'tomorrow' }, 'body.startDate'],
        [{ dueDate: 1767225600000 }, 'body.dueDate'],
        [{ isPublic: 'yes' }, 'body.isPublic'],
        [{ workload: {} }, 'body.workload'],
        [{ workload: { value: -1 } }, 'body.workload.value'],
        [{ workload: { measurement: 'weeks' } }, 'body.workload.measurement'],
        [{ workload: { value: 1, extra: true } }, 'body.workload.extra'],
        [{ complete: {} }, 'body.complete.status'],
        [{ complete: { status: 'true' } }, 'body.complete.status'],
        [{ complete: { status: true, type: '' } }, 'body.complete.type'],
        [{ complete: { status: true, setAt: '2026-01-01T00:00:00Z' } }, 'body.complete.setAt'],
        [{ archived: { status: true } }, 'body.archived'],
        [{ __v: 9 }, 'body.__v'],
      ];
      for (const [body, field] of cases) {
        const res = await patch(cardId, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 80)} → ${res.statusCode}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          `${JSON.stringify(body).slice(0, 80)} → ${res.body}`,
        );
      }
      assert.equal((await patch('not-an-id', { name: 'x' })).statusCode, 400);
      assert.equal((await patch(cardId, { name: 'x' }, t.tenant.apiKey, '?teamId=nope')).statusCode, 400);
      const raw = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/cards/${cardId}`,
        headers: { authorization: `Bearer ${t.tenant.apiKey}`, 'content-type': 'application/json' },
        payload: '{"name":',
      });
      assert.equal(raw.statusCode, 400);
      const stored = await row(cardId);
      assert.equal(stored.version, 0);
      assert.equal(stored.name, 'Card');
    });

    it("is a 404 outside the caller's reach or scope, and changes nothing; company admins reach every team", async () => {
      const cardId = await newCard();
      const outsider = await addMember(t.services, { companyId: t.tenant.companyId, email: 'outsider@acme.test' });
      await addTeam(t.services, t.tenant.companyId, 'Elsewhere', [outsider.userId]);
      const admin = await addMember(t.services, { companyId: t.tenant.companyId, email: 'admin@acme.test', role: 'admin' });
      for (const [key, query] of [
        [rival.apiKey, ''],
        [outsider.apiKey, ''],
        [t.tenant.apiKey, `?companyId=${rival.companyId}`],
        [t.tenant.apiKey, `?teamId=${rival.teamId}`],
        [t.tenant.apiKey, `?companyId=${t.tenant.companyId}&teamId=${rival.teamId}`],
      ] as const) {
        const res = await patch(cardId, { name: 'stolen' }, key, query);
        assert.equal(res.statusCode, 404, `${query} ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      assert.equal((await patch('ffffffffffffffffffffffff', { name: 'x' })).statusCode, 404);
      let stored = await row(cardId);
      assert.equal(stored.name, 'Card');
      assert.equal(stored.version, 0);

      const scoped = await patch(cardId, { name: 'by admin' }, admin.apiKey, `?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`);
      assert.equal(scoped.statusCode, 200, scoped.body);
      stored = await row(cardId);
      assert.equal(stored.name, 'by admin');
      assert.equal(stored.version, 1);
    });

    it('edits an archived card too (it stays archived)', async () => {
      const cardId = await newCard();
      await t.services.db.updateTable('cards').set({ archived: 1 }).where('id', '=', cardId).execute();
      const res = await patch(cardId, { name: 'still archived' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().card.archived, { status: true });
    });

    it('10 parallel updates of one card all apply, one after another (__v + 10)', async () => {
      const cardId = await newCard();
      const bodies = [
        { name: 'parallel' },
        { cover: 'c' },
        { description: 'd' },
        { isPublic: true },
        { workload: { value: 5 } },
        { workload: { measurement: 'minutes' } },
        { complete: { status: true } },
        { complete: { status: true, type: 'qa' } },
        { startDate: '2026-05-01T00:00:00Z' },
        { dueDate: '2026-06-01T00:00:00Z' },
      ];
      const answers = await Promise.all(bodies.map((body) => patch(cardId, body)));
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        bodies.map(() => 200),
      );
      assert.equal(new Set(answers.map((a) => a.json().card.__v)).size, 10, 'each answer saw its own revision');
      const stored = await row(cardId);
      assert.equal(stored.version, 10);
      assert.deepEqual(
        [stored.name, stored.cover, stored.description, stored.is_public, stored.workload_value, stored.workload_measurement],
        ['parallel', 'c', 'd', 1, 5, 'minutes'],
      );
      assert.deepEqual([stored.complete_status, stored.complete_type], [1, 'qa']);
      assert.deepEqual([stored.start_date, stored.due_date], ['2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z']);
    });

    it('parallel start and due changes that conflict: exactly one wins, and due never ends before start', async () => {
      for (let round = 0; round < 5; round++) {
        const cardId = await newCard();
        const [start, due] = await Promise.all([patch(cardId, { startDate: '2026-12-10T00:00:00Z' }), patch(cardId, { dueDate: '2026-12-05T00:00:00Z' })]);
        assert.deepEqual([start.statusCode, due.statusCode].sort(), [200, 400]);
        const stored = await row(cardId);
        assert.equal(stored.version, 1);
        assert.ok(!(stored.start_date && stored.due_date), JSON.stringify([stored.start_date, stored.due_date]));
      }
    });

    it('applyCardUpdate: the one update path other card services share', async () => {
      const cardId = await newCard({ startDate: '2026-12-10T00:00:00.000Z' });
      const at = new Date().toISOString();
      await t.services.db.transaction().execute(async (trx) => {
        await recordCardChange(trx, cardId, at);
        const card = await trx.selectFrom('cards').selectAll().where('id', '=', cardId).executeTakeFirstOrThrow();
        await applyCardUpdate(trx, card, { name: 'via service', complete: { status: true } }, at);
      });
      const stored = await row(cardId);
      assert.deepEqual([stored.name, stored.complete_status, stored.complete_set_at, stored.version], ['via service', 1, at, 1]);
      await assert.rejects(
        t.services.db.transaction().execute(async (trx) => {
          const card = await trx.selectFrom('cards').selectAll().where('id', '=', cardId).executeTakeFirstOrThrow();
          await applyCardUpdate(trx, card, { dueDate: '2026-12-01T00:00:00Z' }, at);
        }),
        (error: { status?: number; details?: { field: string }[] }) => error.status === 400 && error.details?.[0]?.field === 'body.dueDate',
      );
    });
  });
}
