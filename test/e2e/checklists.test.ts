import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Checklist } from '../../src/schemas/checklists.ts';
import { Card } from '../../src/schemas/records.ts';
import { buildChecklistApp, type ChecklistWorld, cardIn, checklistRows } from '../support/checklist-world.ts';
import { type Api, apiClient, ENGINES, recordingLimiter, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { tiersOf } from '../support/tiers.ts';
import { backdate, LONG_AGO } from '../support/updated-at.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NOBODY = 'ffffffffffffffffffffffff';

for (const engine of ENGINES) {
  describe(`checklists [${engine}]`, () => {
    let t: TestApp;
    const limiter = recordingLimiter();
    let api: Api;
    let w: ChecklistWorld;

    before(async () => ({ t, api, w } = await buildChecklistApp(engine, { rateLimiter: limiter })));
    after(() => t.dispose());

    const newCard = (list = w.listId, key = t.tenant.apiKey) => cardIn(t, list, key);
    async function newChecklist(cardId: string, name = 'Todo', body: Record<string, unknown> = {}) {
      const res = await api('POST', `/api/v1/cards/${cardId}/checklists`, { name, ...body });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().checklist;
    }
    async function newItem(checklistId: string, body: Record<string, unknown>) {
      const res = await api('POST', `/api/v1/checklists/${checklistId}/items`, body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json().checklistItem;
    }
    async function card(cardId: string) {
      return await t.services.db.selectFrom('cards').select(['version', 'updated_at']).where('id', '=', cardId).executeTakeFirstOrThrow();
    }
    async function cardRecord(cardId: string) {
      const res = await api('GET', `/api/v1/cards/${cardId}`);
      assert.equal(res.statusCode, 200);
      return res.json().card;
    }
    const snapshot = (cardId: string) => checklistRows(t, cardId);

    it('creates a checklist: 201 {message, checklist}, empty, at the bottom by default; the card records the change', async () => {
      const cardId = await newCard();
      await backdate(t.services.db, 'cards', cardId);
      const before = await card(cardId);
      const res = await api('POST', `/api/v1/cards/${cardId}/checklists?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`, { name: '  Launch  ' });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      const checklist = body.checklist;
      assertSchema(Checklist, checklist);
      assert.equal(checklist.name, 'Launch');
      assert.equal(checklist.card, cardId);
      assert.equal(checklist.company, t.tenant.companyId);
      assert.equal(checklist.team, t.tenant.teamId);
      assert.equal(checklist.creator, t.tenant.userId);
      assert.deepEqual(checklist.items, []);
      assert.equal(checklist.completedCount, 0);
      assert.equal(checklist.__v, 0);
      assert.match(checklist.createdAt, ISO);
      assert.equal(checklist.createdAt, checklist.updatedAt);
      const after = await card(cardId);
      assert.equal(after.version, before.version + 1);
      assert.ok(after.updated_at > LONG_AGO, "the card's updatedAt moved");

      const second = await newChecklist(cardId, 'Second');
      const first = await newChecklist(cardId, 'First', { position: 'top' });
      const middle = await newChecklist(cardId, 'Middle', { position: 1 });
      const record = await cardRecord(cardId);
      assertSchema(Card, record);
      assert.deepEqual(record.checklists, [first._id, middle._id, checklist._id, second._id]);
      assert.ok(first.position < middle.position && middle.position < checklist.position && checklist.position < second.position);
    });

    it('gets the checklists in order, each with its items in order and its completed count, page by page', async () => {
      const cardId = await newCard();
      const lists = [];
      for (const name of ['A', 'B', 'C', 'D', 'E']) lists.push(await newChecklist(cardId, name));
      const a = lists[0];
      const one = await newItem(a._id, { name: 'one' });
      const two = await newItem(a._id, { name: 'two', members: [w.mate.userId], date: '2026-03-01T10:00:00Z' });
      const zero = await newItem(a._id, { name: 'zero', position: 'top' });
      assert.equal((await api('PATCH', `/api/v1/checklist-items/${two._id}/complete`)).statusCode, 200);

      const res = await api('GET', `/api/v1/cards/${cardId}/checklists`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      assert.equal(body.nextCursor, null);
      for (const checklist of body.checklists) assertSchema(Checklist, checklist);
      assert.deepEqual(
        body.checklists.map((c: { name: string }) => c.name),
        ['A', 'B', 'C', 'D', 'E'],
      );
      const got = body.checklists[0];
      assert.deepEqual(
        got.items.map((i: { _id: string }) => i._id),
        [zero._id, one._id, two._id],
      );
      assert.equal(got.completedCount, 1);
      assert.equal(got.items[2].date, '2026-03-01T10:00:00.000Z');
      assert.deepEqual(got.items[2].members, [{ _id: w.mate.userId, fullName: 'Mate', photoUrl: '' }]);
      assert.equal(got.__v, 4, 'three items created and one completed');

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await api('GET', `/api/v1/cards/${cardId}/checklists?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(page.statusCode, 200, page.body);
        assert.ok(page.json().checklists.length <= 2);
        seen.push(...page.json().checklists.map((c: { _id: string }) => c._id));
        cursor = page.json().nextCursor;
        pages += 1;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, (await cardRecord(cardId)).checklists);

      for (const query of ['limit=0', 'limit=201', 'limit=x', 'cursor=@@', `cursor=${Buffer.from('{"position":"x"}').toString('base64url')}`, 'color=red']) {
        const bad = await api('GET', `/api/v1/cards/${cardId}/checklists?${query}`);
        assert.equal(bad.statusCode, 400, query);
        assert.equal(bad.json().code, 'validation_failed');
        assert.ok(bad.json().details.length > 0);
      }
    });

    it('renames a checklist: its __v and the card __v grow by one; bad names change nothing', async () => {
      const cardId = await newCard();
      const checklist = await newChecklist(cardId);
      const before = await card(cardId);
      const res = await api('PATCH', `/api/v1/checklists/${checklist._id}`, { name: ' Renamed ' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');
      assertSchema(Checklist, res.json().checklist);
      assert.equal(res.json().checklist.name, 'Renamed');
      assert.equal(res.json().checklist.__v, 1);
      assert.equal((await card(cardId)).version, before.version + 1);
      const unchanged = await snapshot(cardId);
      for (const body of [{ name: '' }, { name: '  ' }, { name: 3 }, {}, { name: 'x', position: 1 }, { name: 'x'.repeat(513) }]) {
        const bad = await api('PATCH', `/api/v1/checklists/${checklist._id}`, body);
        assert.equal(bad.statusCode, 400, JSON.stringify(body));
        assert.equal(bad.json().code, 'validation_failed');
      }
      assert.deepEqual(await snapshot(cardId), unchanged);
    });

    it("reorders a checklist among the card's checklists", async () => {
      const cardId = await newCard();
      const [a, b, c] = [await newChecklist(cardId, 'a'), await newChecklist(cardId, 'b'), await newChecklist(cardId, 'c')];
      const moved = await api('PATCH', `/api/v1/checklists/${c._id}/position`, { position: 0 });
      assert.equal(moved.statusCode, 200, moved.body);
      assertSchema(Checklist, moved.json().checklist);
      assert.equal(moved.json().checklist.__v, 1);
      assert.deepEqual((await cardRecord(cardId)).checklists, [c._id, a._id, b._id]);
      await api('PATCH', `/api/v1/checklists/${c._id}/position`, { position: 'bottom' });
      assert.deepEqual((await cardRecord(cardId)).checklists, [a._id, b._id, c._id]);
      await api('PATCH', `/api/v1/checklists/${a._id}/position`, { position: 1 });
      assert.deepEqual((await cardRecord(cardId)).checklists, [b._id, a._id, c._id]);
      await api('PATCH', `/api/v1/checklists/${c._id}/position`, { position: 99 });
      assert.deepEqual((await cardRecord(cardId)).checklists, [b._id, a._id, c._id]);
      await api('PATCH', `/api/v1/checklists/${c._id}/position`, { position: 'top' });
      assert.deepEqual((await cardRecord(cardId)).checklists, [c._id, b._id, a._id]);
      const unchanged = await snapshot(cardId);
      for (const body of [{ position: -1 }, { position: 'middle' }, { position: 1.5 }, {}, { position: 0, card: cardId }]) {
        const bad = await api('PATCH', `/api/v1/checklists/${c._id}/position`, body);
        assert.equal(bad.statusCode, 400, JSON.stringify(body));
      }
      assert.deepEqual(await snapshot(cardId), unchanged);
    });

    it('copies a checklist to a card of another team: items in order with dates and completion, only members of that team', async () => {
      const source = await newCard();
      const target = await newCard(w.elsewhereListId);
      await newChecklist(target, 'Already there');
      const checklist = await newChecklist(source, 'Release');
      const x = await newItem(checklist._id, { name: 'x', members: [w.mate.userId, w.both.userId], date: '2026-05-01T00:00:00.000Z' });
      const y = await newItem(checklist._id, { name: 'y', members: [w.both.userId] });
      const top = await newItem(checklist._id, { name: 'w', position: 'top' });
      await api('PATCH', `/api/v1/checklist-items/${y._id}/complete`, { status: true });
      const sourceBefore = await card(source);
      const targetBefore = await card(target);
      const sourceRows = await snapshot(source);

      const res = await api('POST', `/api/v1/checklists/${checklist._id}/copy?teamId=${t.tenant.teamId}`, { card: target });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(typeof res.json().message, 'string');
      const copy = res.json().checklist;
      assertSchema(Checklist, copy);
      assert.notEqual(copy._id, checklist._id);
      assert.equal(copy.name, 'Release');
      assert.equal(copy.card, target);
      assert.equal(copy.team, w.elsewhereTeam);
      assert.equal(copy.creator, t.tenant.userId);
      assert.equal(copy.__v, 0);
      assert.deepEqual(
        copy.items.map((i: { name: string }) => i.name),
        ['w', 'x', 'y'],
      );
      assert.deepEqual(
        copy.items.map((i: { complete: { status: boolean } }) => i.complete.status),
        [false, false, true],
      );
      assert.equal(copy.items[1]?.date, '2026-05-01T00:00:00.000Z');
      assert.deepEqual(
        copy.items[1]?.members.map((m: { _id: string }) => m._id),
        [w.both.userId],
        'mate is not in Elsewhere',
      );
      assert.deepEqual(
        copy.items[2]?.members.map((m: { _id: string }) => m._id),
        [w.both.userId],
      );
      for (const item of copy.items) {
        assert.equal(item.checklist, copy._id);
        assert.equal(item.card, target);
        assert.equal(item.team, w.elsewhereTeam);
        assert.ok(![top._id, x._id, y._id].includes(item._id));
      }
      assert.equal(copy.completedCount, 1);

      const targetRecord = await cardRecord(target);
      assert.equal(targetRecord.checklists.at(-1), copy._id, 'at the bottom');
      assert.deepEqual(targetRecord.allChecklistItemsCount, { completed: 1, total: 3 });
      assert.equal((await card(source)).version, sourceBefore.version + 1);
      assert.equal((await card(target)).version, targetBefore.version + 2, 'the copy, then Get Card Details adding the caller to seen');
      const sourceAfter = await snapshot(source);
      assert.deepEqual(sourceAfter.checklists, sourceRows.checklists, 'the source checklist is untouched');
      assert.deepEqual(sourceAfter.items, sourceRows.items);
      assert.deepEqual(sourceAfter.members, sourceRows.members);

      const same = await api('POST', `/api/v1/checklists/${checklist._id}/copy`, { card: source });
      assert.equal(same.statusCode, 201);
      assert.deepEqual((await cardRecord(source)).checklists, [checklist._id, same.json().checklist._id]);
      assert.deepEqual(
        same
          .json()
          .checklist.items[1].members.map((m: { _id: string }) => m._id)
          .sort(),
        [w.mate.userId, w.both.userId].sort(),
      );
    });

    it('refuses a copy to a card the caller does not reach (404) or a malformed card id (400), changing nothing', async () => {
      const source = await newCard();
      const checklist = await newChecklist(source);
      await newItem(checklist._id, { name: 'i' });
      const foreign = await newCard(w.otherListId, w.other.apiKey);
      const elsewhere = await newCard(w.elsewhereListId);
      const before = { source: await snapshot(source), foreign: await snapshot(foreign), elsewhere: await snapshot(elsewhere) };
      const refused: [string, unknown, number][] = [
        [t.tenant.apiKey, { card: foreign }, 404],
        [t.tenant.apiKey, { card: NOBODY }, 404],
        [w.mate.apiKey, { card: elsewhere }, 404],
        [t.tenant.apiKey, { card: 'nope' }, 400],
        [t.tenant.apiKey, {}, 400],
        [t.tenant.apiKey, { card: elsewhere, name: 'x' }, 400],
      ];
      for (const [key, body, status] of refused) {
        const res = await apiClient(t, key)('POST', `/api/v1/checklists/${checklist._id}/copy`, body);
        assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
      }
      assert.deepEqual({ source: await snapshot(source), foreign: await snapshot(foreign), elsewhere: await snapshot(elsewhere) }, before);
    });

    it('deletes a checklist with its items: answers the card, whose counts and checklist ids follow', async () => {
      const cardId = await newCard();
      const kept = await newChecklist(cardId, 'kept');
      const doomed = await newChecklist(cardId, 'doomed');
      await newItem(kept._id, { name: 'k' });
      const d1 = await newItem(doomed._id, { name: 'd1', members: [w.mate.userId] });
      await newItem(doomed._id, { name: 'd2' });
      await api('PATCH', `/api/v1/checklist-items/${d1._id}/complete`);
      assert.deepEqual((await cardRecord(cardId)).allChecklistItemsCount, { completed: 1, total: 3 });
      const before = await card(cardId);

      const res = await api('DELETE', `/api/v1/checklists/${doomed._id}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');
      const answer = res.json().card;
      assertSchema(Card, answer);
      assert.deepEqual(answer.checklists, [kept._id]);
      assert.deepEqual(answer.allChecklistItemsCount, { completed: 0, total: 1 });
      assert.equal(answer.__v, before.version + 1);
      const rows = await snapshot(cardId);
      assert.deepEqual(
        rows.checklists.map((c) => c.id),
        [kept._id],
      );
      assert.deepEqual(
        rows.items.map((i) => i.name),
        ['k'],
      );
      assert.deepEqual(rows.members, []);
      assert.equal((await api('DELETE', `/api/v1/checklists/${doomed._id}`)).statusCode, 404);
      assert.equal((await api('PATCH', `/api/v1/checklists/${doomed._id}`, { name: 'x' })).statusCode, 404);
      assert.equal((await api('GET', `/api/v1/checklist-items/${d1._id}`)).statusCode, 404);
    });

    it('a caller of another company or another team gets 404 on every operation, and nothing changes', async () => {
      const cardId = await newCard();
      const checklist = await newChecklist(cardId);
      await newItem(checklist._id, { name: 'i' });
      const target = await newCard();
      const before = { card: await snapshot(cardId), target: await snapshot(target) };
      const calls: [string, string, unknown?][] = [
        ['GET', `/api/v1/cards/${cardId}/checklists`],
        ['POST', `/api/v1/cards/${cardId}/checklists`, { name: 'x' }],
        ['PATCH', `/api/v1/checklists/${checklist._id}`, { name: 'x' }],
        ['PATCH', `/api/v1/checklists/${checklist._id}/position`, { position: 0 }],
        ['POST', `/api/v1/checklists/${checklist._id}/copy`, { card: target }],
        ['DELETE', `/api/v1/checklists/${checklist._id}`],
      ];
      for (const key of [w.other.apiKey, w.stranger.apiKey]) {
        for (const [method, url, body] of calls) {
          const res = await apiClient(t, key)(method as 'GET', url, body);
          assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
          assert.equal(res.json().code, 'not_found');
        }
      }
      // the owner's own key, with a scope that does not match the resource
      for (const query of [`?companyId=${w.other.companyId}`, `?teamId=${w.elsewhereTeam}`]) {
        for (const [method, url, body] of calls) {
          const res = await api(method as 'GET', `${url}${query}`, body);
          assert.equal(res.statusCode, 404, `${method} ${url}${query}`);
        }
      }
      assert.deepEqual({ card: await snapshot(cardId), target: await snapshot(target) }, before);
      // a teammate reaches it
      assert.equal((await apiClient(t, w.mate.apiKey)('GET', `/api/v1/cards/${cardId}/checklists`)).statusCode, 200);
    });

    it('answers 400 for malformed ids and bad bodies, 404 for unknown ids', async () => {
      const cardId = await newCard();
      for (const [method, url, body] of [
        ['GET', '/api/v1/cards/nope/checklists'],
        ['POST', '/api/v1/cards/nope/checklists', { name: 'x' }],
        ['PATCH', '/api/v1/checklists/ABCDEFABCDEFABCDEFABCDEF', { name: 'x' }],
        ['PATCH', '/api/v1/checklists/123/position', { position: 0 }],
        ['POST', '/api/v1/checklists/123/copy', { card: cardId }],
        ['DELETE', '/api/v1/checklists/123'],
        ['POST', `/api/v1/cards/${cardId}/checklists`, { name: 'x', items: [] }],
        ['POST', `/api/v1/cards/${cardId}/checklists`, { name: 'x', position: 'middle' }],
        ['POST', `/api/v1/cards/${cardId}/checklists`, {}],
        ['POST', `/api/v1/cards/${cardId}/checklists?teamId=nope`, { name: 'x' }],
      ] as [string, string, unknown?][]) {
        const res = await api(method as 'GET', url, body);
        assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(Array.isArray(res.json().details) && res.json().details.length > 0);
      }
      assert.deepEqual((await snapshot(cardId)).checklists, []);
      for (const [method, url, body] of [
        ['GET', `/api/v1/cards/${NOBODY}/checklists`],
        ['POST', `/api/v1/cards/${NOBODY}/checklists`, { name: 'x' }],
        ['PATCH', `/api/v1/checklists/${NOBODY}`, { name: 'x' }],
        ['PATCH', `/api/v1/checklists/${NOBODY}/position`, { position: 0 }],
        ['POST', `/api/v1/checklists/${NOBODY}/copy`, { card: cardId }],
        ['DELETE', `/api/v1/checklists/${NOBODY}`],
      ] as [string, string, unknown?][]) {
        const res = await api(method as 'GET', url, body);
        assert.equal(res.statusCode, 404, `${method} ${url}`);
      }
    });

    it('counts each checklist operation under its route template and contract tier', async () => {
      const cardId = await newCard();
      const tiers = await tiersOf(limiter, api, async (api) => {
        const checklist = await newChecklist(cardId);
        await api('GET', `/api/v1/cards/${cardId}/checklists`);
        await api('PATCH', `/api/v1/checklists/${checklist._id}`, { name: 'n' });
        await api('PATCH', `/api/v1/checklists/${checklist._id}/position`, { position: 0 });
        await api('POST', `/api/v1/checklists/${checklist._id}/copy`, { card: cardId });
        await api('DELETE', `/api/v1/checklists/${checklist._id}`);
      });
      assert.deepEqual(tiers, [
        ['POST /api/v1/cards/:cardId/checklists', 'medium'],
        ['GET /api/v1/cards/:cardId/checklists', 'very-low'],
        ['PATCH /api/v1/checklists/:checklistId', 'low'],
        ['PATCH /api/v1/checklists/:checklistId/position', 'low'],
        ['POST /api/v1/checklists/:checklistId/copy', 'medium'],
        ['DELETE /api/v1/checklists/:checklistId', 'low'],
      ]);
    });
  });
}
