import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_ITEMS_PER_CHECKLIST } from '../../src/domain/checklists/limits.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import { Checklist, ChecklistItem } from '../../src/schemas/checklists.ts';
import { buildChecklistApp, type ChecklistWorld, cardIn, checklistRows } from '../support/checklist-world.ts';
import { type Api, apiClient, ENGINES, recordingLimiter, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { tiersOf } from '../support/tiers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NOBODY = 'ffffffffffffffffffffffff';

for (const engine of ENGINES) {
  describe(`checklist items [${engine}]`, () => {
    let t: TestApp;
    const limiter = recordingLimiter();
    let api: Api;
    let w: ChecklistWorld;

    before(async () => ({ t, api, w } = await buildChecklistApp(engine, { rateLimiter: limiter })));
    after(() => t.dispose());

    const newCard = (list = w.listId, key = t.tenant.apiKey) => cardIn(t, list, key);
    async function newChecklist(cardId: string, key = t.tenant.apiKey): Promise<string> {
      const res = await apiClient(t, key)('POST', `/api/v1/cards/${cardId}/checklists`, { name: 'Todo' });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().checklist._id;
    }
    async function newItem(checklistId: string, body: Record<string, unknown> = {}, key = t.tenant.apiKey) {
      const res = await apiClient(t, key)('POST', `/api/v1/checklists/${checklistId}/items`, { name: 'item', ...body });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().checklistItem;
    }
    /** A card with one checklist. */
    async function setup() {
      const cardId = await newCard();
      return { cardId, checklistId: await newChecklist(cardId) };
    }
    async function versions(cardId: string, checklistId: string, itemId?: string) {
      const db = t.services.db;
      return {
        card: (await db.selectFrom('cards').select('version').where('id', '=', cardId).executeTakeFirstOrThrow()).version,
        checklist: (await db.selectFrom('checklists').select('version').where('id', '=', checklistId).executeTakeFirstOrThrow()).version,
        item: itemId ? (await db.selectFrom('checklist_items').select('version').where('id', '=', itemId).executeTakeFirstOrThrow()).version : undefined,
      };
    }
    const snapshot = (cardId: string) => checklistRows(t, cardId);
    async function order(checklistId: string): Promise<string[]> {
      const res = await api('GET', `/api/v1/checklists/${checklistId}/items?limit=200`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().checklistItems.map((i: { _id: string }) => i._id);
    }
    async function counts(cardId: string) {
      return (await api('GET', `/api/v1/cards/${cardId}`)).json().card.allChecklistItemsCount;
    }

    it('creates an item: 201 {message, checklistItem} with every field; card, checklist and counts follow', async () => {
      const { cardId, checklistId } = await setup();
      const before = await versions(cardId, checklistId);
      const res = await api('POST', `/api/v1/checklists/${checklistId}/items?teamId=${t.tenant.teamId}`, {
        name: '  Write tests ',
        date: '2026-11-21T10:30:00+01:00',
        members: [w.mate.userId, t.tenant.userId],
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(typeof res.json().message, 'string');
      const item = res.json().checklistItem;
      assertSchema(ChecklistItem, item);
      assert.equal(item.name, 'Write tests');
      assert.equal(item.checklist, checklistId);
      assert.equal(item.card, cardId);
      assert.equal(item.company, t.tenant.companyId);
      assert.equal(item.team, t.tenant.teamId);
      assert.equal(item.date, '2026-11-21T09:30:00.000Z');
      assert.equal(item.complete.status, false);
      assert.match(item.complete.setAt, ISO);
      // members added by one request come in id order
      assert.deepEqual(
        item.members.map((m: { _id: string }) => m._id),
        [w.mate.userId, t.tenant.userId].sort(),
      );
      assert.deepEqual(
        item.members.find((m: { _id: string }) => m._id === w.mate.userId),
        { _id: w.mate.userId, fullName: 'Mate', photoUrl: '' },
      );
      assert.deepEqual(item.attachments, []);
      assert.equal(item.creator, t.tenant.userId);
      assert.equal(item.__v, 0);
      assert.match(item.createdAt, ISO);
      assert.deepEqual(await versions(cardId, checklistId), { card: before.card + 1, checklist: before.checklist + 1, item: undefined });
      assert.deepEqual(await counts(cardId), { completed: 0, total: 1 });

      const last = await newItem(checklistId, { name: 'last' });
      const first = await newItem(checklistId, { name: 'first', position: 'top' });
      const second = await newItem(checklistId, { name: 'second', position: 1 });
      assert.equal(last.date, null);
      assert.deepEqual(await order(checklistId), [first._id, second._id, item._id, last._id]);
    });

    it("refuses members outside the card's team, repeated members and bad fields with 400 naming them, creating nothing", async () => {
      const { cardId, checklistId } = await setup();
      const before = await snapshot(cardId);
      const cases: [unknown, string[]][] = [
        [{ name: 'x', members: [w.mate.userId, w.stranger.userId, w.loner.userId] }, ['body.members[1]', 'body.members[2]']],
        [{ name: 'x', members: [NOBODY] }, ['body.members[0]']],
        [{ name: 'x', members: [w.mate.userId, w.mate.userId] }, ['body.members[1]']],
        [{ name: 'x', members: ['nope'] }, ['body.members[0]']],
        [{ name: 'x', date: 'tomorrow' }, ['body.date']],
        [{ name: 'x', position: -2 }, ['body.position']],
        [{ name: '' }, ['body.name']],
        [{ name: 'x', complete: true }, ['body.complete']],
        [{}, ['body.name']],
      ];
      for (const [body, fields] of cases) {
        const res = await api('POST', `/api/v1/checklists/${checklistId}/items`, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.deepEqual(
          res.json().details.map((d: { field: string }) => d.field),
          fields,
          JSON.stringify(body),
        );
      }
      assert.deepEqual(await snapshot(cardId), before);
    });

    it('gets items page by page and one item by id', async () => {
      const { checklistId } = await setup();
      const made = [];
      for (let i = 0; i < 5; i++) made.push((await newItem(checklistId, { name: `i${i}` }))._id);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await api('GET', `/api/v1/checklists/${checklistId}/items?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(typeof res.json().message, 'string');
        for (const item of res.json().checklistItems) assertSchema(ChecklistItem, item);
        seen.push(...res.json().checklistItems.map((i: { _id: string }) => i._id));
        cursor = res.json().nextCursor;
        pages += 1;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, made);
      assert.equal((await api('GET', `/api/v1/checklists/${checklistId}/items`)).json().nextCursor, null);
      for (const query of ['limit=0', 'limit=201', 'cursor=!!', `cursor=${Buffer.from('[1]').toString('base64url')}`]) {
        assert.equal((await api('GET', `/api/v1/checklists/${checklistId}/items?${query}`)).statusCode, 400, query);
      }
      const one = await api('GET', `/api/v1/checklist-items/${made[2]}?companyId=${t.tenant.companyId}`);
      assert.equal(one.statusCode, 200);
      assertSchema(ChecklistItem, one.json().checklistItem);
      assert.equal(one.json().checklistItem.name, 'i2');
    });

    it('renames an item and sets or clears its date; item, checklist and card __v grow by one each time', async () => {
      const { cardId, checklistId } = await setup();
      const item = await newItem(checklistId);
      let before = await versions(cardId, checklistId, item._id);
      const renamed = await api('PATCH', `/api/v1/checklist-items/${item._id}`, { name: ' Renamed ' });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assertSchema(ChecklistItem, renamed.json().checklistItem);
      assert.equal(renamed.json().checklistItem.name, 'Renamed');
      assert.equal(renamed.json().checklistItem.__v, 1);
      const step = (v: typeof before) => ({ card: v.card + 1, checklist: v.checklist + 1, item: (v.item as number) + 1 });
      assert.deepEqual(await versions(cardId, checklistId, item._id), step(before));

      before = await versions(cardId, checklistId, item._id);
      const dated = await api('PATCH', `/api/v1/checklist-items/${item._id}/date`, { date: '2027-01-02T03:04:05Z' });
      assert.equal(dated.statusCode, 200, dated.body);
      assert.equal(dated.json().checklistItem.date, '2027-01-02T03:04:05.000Z');
      assert.deepEqual(await versions(cardId, checklistId, item._id), step(before));
      const cleared = await api('PATCH', `/api/v1/checklist-items/${item._id}/date`, { date: null });
      assert.equal(cleared.statusCode, 200);
      assert.equal(cleared.json().checklistItem.date, null);

      const unchanged = await snapshot(cardId);
      for (const [url, body] of [
        [`/api/v1/checklist-items/${item._id}`, { name: '' }],
        [`/api/v1/checklist-items/${item._id}`, { name: 'x', date: null }],
        [`/api/v1/checklist-items/${item._id}/date`, {}],
        [`/api/v1/checklist-items/${item._id}/date`, { date: 'soon' }],
        [`/api/v1/checklist-items/${item._id}/date`, { date: 5 }],
        [`/api/v1/checklist-items/${item._id}/date`, { date: '2027-02-30T00:00:00Z' }],
      ] as [string, unknown][]) {
        const res = await api('PATCH', url, body);
        assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(body)}: ${res.body}`);
      }
      assert.deepEqual(await snapshot(cardId), unchanged);
    });

    it('toggles completion: no body flips, status sets; setting the current status changes nothing', async () => {
      const { cardId, checklistId } = await setup();
      const item = await newItem(checklistId);
      await newItem(checklistId);
      const flipped = await api('PATCH', `/api/v1/checklist-items/${item._id}/complete`);
      assert.equal(flipped.statusCode, 200, flipped.body);
      assertSchema(ChecklistItem, flipped.json().checklistItem);
      assert.equal(flipped.json().checklistItem.complete.status, true);
      assert.ok(flipped.json().checklistItem.complete.setAt >= item.complete.setAt);
      assert.deepEqual(await counts(cardId), { completed: 1, total: 2 });
      const checklist = (await api('GET', `/api/v1/cards/${cardId}/checklists`)).json().checklists[0];
      assert.equal(checklist.completedCount, 1);

      const before = await snapshot(cardId);
      const same = await api('PATCH', `/api/v1/checklist-items/${item._id}/complete`, { status: true });
      assert.equal(same.statusCode, 200);
      assert.equal(same.json().checklistItem.complete.status, true);
      assert.equal(same.json().checklistItem.__v, flipped.json().checklistItem.__v);
      assert.deepEqual(await snapshot(cardId), before);

      const back = await api('PATCH', `/api/v1/checklist-items/${item._id}/complete`, {});
      assert.equal(back.json().checklistItem.complete.status, false);
      const set = await api('PATCH', `/api/v1/checklist-items/${item._id}/complete`, { status: true });
      assert.equal(set.json().checklistItem.complete.status, true);
      assert.equal(set.json().checklistItem.__v, 3);
      for (const body of [{ status: 'yes' }, { status: null }, { done: true }]) {
        assert.equal((await api('PATCH', `/api/v1/checklist-items/${item._id}/complete`, body)).statusCode, 400, JSON.stringify(body));
      }
    });

    it('reorders an item within its checklist and moves it to another checklist of the card', async () => {
      const { cardId, checklistId } = await setup();
      const otherChecklist = await newChecklist(cardId);
      const [a, b, c] = [await newItem(checklistId, { name: 'a' }), await newItem(checklistId, { name: 'b' }), await newItem(checklistId, { name: 'c' })];
      const moved = await api('PATCH', `/api/v1/checklist-items/${c._id}/position`, { position: 0 });
      assert.equal(moved.statusCode, 200, moved.body);
      assertSchema(ChecklistItem, moved.json().checklistItem);
      assert.deepEqual(await order(checklistId), [c._id, a._id, b._id]);
      await api('PATCH', `/api/v1/checklist-items/${c._id}/position`, { position: 'bottom' });
      assert.deepEqual(await order(checklistId), [a._id, b._id, c._id]);
      await api('PATCH', `/api/v1/checklist-items/${a._id}/position`, { position: 1 });
      assert.deepEqual(await order(checklistId), [b._id, a._id, c._id]);

      const x = await newItem(otherChecklist, { name: 'x' });
      const before = { from: await versions(cardId, checklistId), to: await versions(cardId, otherChecklist) };
      const across = await api('PATCH', `/api/v1/checklist-items/${a._id}/position`, { position: 'top', checklist: otherChecklist });
      assert.equal(across.statusCode, 200, across.body);
      assert.equal(across.json().checklistItem.checklist, otherChecklist);
      assert.deepEqual(await order(checklistId), [b._id, c._id]);
      assert.deepEqual(await order(otherChecklist), [a._id, x._id]);
      assert.equal((await versions(cardId, checklistId)).checklist, before.from.checklist + 1, 'the checklist it left changed');
      assert.equal((await versions(cardId, otherChecklist)).checklist, before.to.checklist + 1, 'the checklist it joined changed');
      assert.equal((await versions(cardId, otherChecklist)).card, before.to.card + 1);
      assert.deepEqual(await counts(cardId), { completed: 0, total: 4 });
      const same = await api('PATCH', `/api/v1/checklist-items/${a._id}/position`, { position: 5, checklist: otherChecklist });
      assert.equal(same.statusCode, 200);
      assert.deepEqual(await order(otherChecklist), [x._id, a._id]);
    });

    it('refuses a move to a checklist of another card (400) or one out of reach (404), and bad positions', async () => {
      const { cardId, checklistId } = await setup();
      const item = await newItem(checklistId);
      const anotherCardChecklist = await newChecklist(await newCard());
      const foreignChecklist = await newChecklist(await newCard(w.otherListId, w.other.apiKey), w.other.apiKey);
      const before = await snapshot(cardId);
      const cases: [unknown, number][] = [
        [{ position: 0, checklist: anotherCardChecklist }, 400],
        [{ position: 0, checklist: foreignChecklist }, 404],
        [{ position: 0, checklist: NOBODY }, 404],
        [{ position: 0, checklist: 'nope' }, 400],
        [{ position: 'up' }, 400],
        [{ position: -1 }, 400],
        [{ checklist: checklistId }, 400],
        [{ position: 0, card: cardId }, 400],
      ];
      for (const [body, status] of cases) {
        const res = await api('PATCH', `/api/v1/checklist-items/${item._id}/position`, body);
        assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
      }
      assert.deepEqual(await snapshot(cardId), before);
    });

    it('toggles members atomically: absent ones added, present ones removed, only team members added', async () => {
      const { cardId, checklistId } = await setup();
      const item = await newItem(checklistId, { members: [w.mate.userId] });
      const res = await api('POST', `/api/v1/checklist-items/${item._id}/members`, { members: [w.mate.userId, w.both.userId, t.tenant.userId] });
      assert.equal(res.statusCode, 200, res.body);
      assertSchema(ChecklistItem, res.json().checklistItem);
      assert.deepEqual(
        res
          .json()
          .checklistItem.members.map((m: { _id: string }) => m._id)
          .sort(),
        [w.both.userId, t.tenant.userId].sort(),
      );
      assert.equal(res.json().checklistItem.__v, 1);

      const before = await snapshot(cardId);
      for (const [body, fields] of [
        [{ members: [w.mate.userId, w.stranger.userId] }, ['body.members[1]']],
        [{ members: [w.both.userId, w.both.userId] }, ['body.members[1]']],
        [{ members: [w.loner.userId, w.other.userId] }, ['body.members[0]', 'body.members[1]']],
        [{ members: [] }, ['body.members']],
        [{ members: ['x'] }, ['body.members[0]']],
        [{ members: [w.mate.userId], extra: 1 }, ['body.extra']],
      ] as [unknown, string[]][]) {
        const bad = await api('POST', `/api/v1/checklist-items/${item._id}/members`, body);
        assert.equal(bad.statusCode, 400, JSON.stringify(body));
        assert.deepEqual(
          bad.json().details.map((d: { field: string }) => d.field),
          fields,
          JSON.stringify(body),
        );
      }
      assert.deepEqual(await snapshot(cardId), before, 'a refused toggle changes nothing');

      // someone who left the team can still be taken off, not put back
      await t.services.db.deleteFrom('team_members').where('team_id', '=', t.tenant.teamId).where('user_id', '=', w.both.userId).execute();
      try {
        const off = await api('POST', `/api/v1/checklist-items/${item._id}/members`, { members: [w.both.userId] });
        assert.equal(off.statusCode, 200);
        assert.deepEqual(
          off.json().checklistItem.members.map((m: { _id: string }) => m._id),
          [t.tenant.userId],
        );
        assert.equal((await api('POST', `/api/v1/checklist-items/${item._id}/members`, { members: [w.both.userId] })).statusCode, 400);
      } finally {
        await t.services.db.insertInto('team_members').values({ team_id: t.tenant.teamId, user_id: w.both.userId, created_at: nowIso() }).execute();
      }
    });

    it('applies concurrent member toggles one after another', async () => {
      const { cardId, checklistId } = await setup();
      const item = await newItem(checklistId);
      const before = await versions(cardId, checklistId, item._id);
      const results = await Promise.all(
        [w.mate, w.both, { userId: t.tenant.userId }].map((m) => api('POST', `/api/v1/checklist-items/${item._id}/members`, { members: [m.userId] })),
      );
      for (const res of results) assert.equal(res.statusCode, 200, res.body);
      assert.equal((await t.services.db.selectFrom('checklist_item_members').select('user_id').where('item_id', '=', item._id).execute()).length, 3);
      assert.deepEqual(await versions(cardId, checklistId, item._id), {
        card: before.card + 3,
        checklist: before.checklist + 3,
        item: (before.item as number) + 3,
      });
      assert.deepEqual(results.map((r) => r.json().checklistItem.__v).sort(), [1, 2, 3]);
    });

    it('copies an item to a checklist of another team: name, date and completion kept, members only of that team', async () => {
      const { cardId, checklistId } = await setup();
      const targetCard = await newCard(w.elsewhereListId);
      const target = await newChecklist(targetCard);
      const existing = await newItem(target, { name: 'existing' });
      const item = await newItem(checklistId, { name: 'Ship', date: '2026-06-01T00:00:00.000Z', members: [w.mate.userId, w.both.userId] });
      await api('PATCH', `/api/v1/checklist-items/${item._id}/complete`);
      const before = { source: await snapshot(cardId), target: await versions(targetCard, target) };
      const res = await api('POST', `/api/v1/checklist-items/${item._id}/copy`, { checklist: target });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(typeof res.json().message, 'string');
      const copy = res.json().checklistItem;
      assertSchema(ChecklistItem, copy);
      assert.notEqual(copy._id, item._id);
      assert.equal(copy.name, 'Ship');
      assert.equal(copy.date, '2026-06-01T00:00:00.000Z');
      assert.equal(copy.complete.status, true);
      assert.equal(copy.checklist, target);
      assert.equal(copy.card, targetCard);
      assert.equal(copy.team, w.elsewhereTeam);
      assert.equal(copy.creator, t.tenant.userId);
      assert.deepEqual(
        copy.members.map((m: { _id: string }) => m._id),
        [w.both.userId],
      );
      const after = await versions(targetCard, target);
      assert.deepEqual(after, { card: before.target.card + 1, checklist: before.target.checklist + 1, item: undefined });
      assert.deepEqual(await order(target), [existing._id, copy._id]);
      assert.deepEqual(await counts(targetCard), { completed: 1, total: 2 });
      const sourceAfter = await snapshot(cardId);
      assert.equal(sourceAfter.card.version, before.source.card.version + 1, 'the source card records the copy too');
      assert.deepEqual(
        [sourceAfter.checklists, sourceAfter.items, sourceAfter.members],
        [before.source.checklists, before.source.items, before.source.members],
      );

      for (const [key, body, status] of [
        [t.tenant.apiKey, { checklist: await newChecklist(await newCard(w.otherListId, w.other.apiKey), w.other.apiKey) }, 404],
        [w.mate.apiKey, { checklist: target }, 404],
        [t.tenant.apiKey, { checklist: NOBODY }, 404],
        [t.tenant.apiKey, { checklist: 'x' }, 400],
        [t.tenant.apiKey, {}, 400],
      ] as [string, unknown, number][]) {
        const bad = await apiClient(t, key)('POST', `/api/v1/checklist-items/${item._id}/copy`, body);
        assert.equal(bad.statusCode, status, JSON.stringify(body));
      }
      assert.deepEqual(await order(target), [existing._id, copy._id]);
    });

    it(`holds at most ${MAX_ITEMS_PER_CHECKLIST} items per checklist: create, move and copy into a full one are 409`, async () => {
      const { cardId, checklistId } = await setup();
      const full = await newChecklist(cardId);
      const now = nowIso();
      await t.services.db
        .insertInto('checklist_items')
        .values(
          Array.from({ length: MAX_ITEMS_PER_CHECKLIST }, (_, i) => ({
            id: newId(),
            company_id: t.tenant.companyId,
            team_id: t.tenant.teamId,
            card_id: cardId,
            checklist_id: full,
            name: `n${i}`,
            position: (i + 1) * 1024,
            date: null,
            complete_status: 0 as const,
            complete_set_at: now,
            creator_id: t.tenant.userId,
            created_at: now,
            updated_at: now,
            version: 0,
          })),
        )
        .execute();
      const item = await newItem(checklistId);
      const before = await snapshot(cardId);
      for (const [method, url, body] of [
        ['POST', `/api/v1/checklists/${full}/items`, { name: 'one too many' }],
        ['PATCH', `/api/v1/checklist-items/${item._id}/position`, { position: 0, checklist: full }],
        ['POST', `/api/v1/checklist-items/${item._id}/copy`, { checklist: full }],
      ] as [string, string, unknown][]) {
        const res = await api(method as 'POST', url, body);
        assert.equal(res.statusCode, 409, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'conflict');
      }
      assert.deepEqual(await snapshot(cardId), before);
      const page = await api('GET', `/api/v1/checklists/${full}/items?limit=200`);
      assert.equal(page.json().checklistItems.length, MAX_ITEMS_PER_CHECKLIST);
      assert.equal(page.json().nextCursor, null);
      // reordering within the full checklist is fine
      const first = page.json().checklistItems[0]._id;
      assert.equal((await api('PATCH', `/api/v1/checklist-items/${first}/position`, { position: 'bottom' })).statusCode, 200);
    });

    it('deletes an item: answers its checklist; counts follow; the item is gone', async () => {
      const { cardId, checklistId } = await setup();
      const kept = await newItem(checklistId, { name: 'kept' });
      const doomed = await newItem(checklistId, { name: 'doomed', members: [w.mate.userId] });
      await api('PATCH', `/api/v1/checklist-items/${doomed._id}/complete`);
      const before = await versions(cardId, checklistId);
      const res = await api('DELETE', `/api/v1/checklist-items/${doomed._id}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');
      const checklist = res.json().checklist;
      assertSchema(Checklist, checklist);
      assert.equal(checklist._id, checklistId);
      assert.deepEqual(
        checklist.items.map((i: { _id: string }) => i._id),
        [kept._id],
      );
      assert.equal(checklist.completedCount, 0);
      assert.deepEqual(await versions(cardId, checklistId), { card: before.card + 1, checklist: before.checklist + 1, item: undefined });
      assert.deepEqual(await counts(cardId), { completed: 0, total: 1 });
      assert.equal((await t.services.db.selectFrom('checklist_item_members').select('user_id').where('item_id', '=', doomed._id).execute()).length, 0);
      assert.equal((await api('GET', `/api/v1/checklist-items/${doomed._id}`)).statusCode, 404);
      assert.equal((await api('DELETE', `/api/v1/checklist-items/${doomed._id}`)).statusCode, 404);
    });

    it('a caller of another company or another team gets 404 on every operation, and nothing changes', async () => {
      const { cardId, checklistId } = await setup();
      const item = await newItem(checklistId, { members: [w.mate.userId] });
      const before = await snapshot(cardId);
      const calls: [string, string, unknown?][] = [
        ['GET', `/api/v1/checklists/${checklistId}/items`],
        ['POST', `/api/v1/checklists/${checklistId}/items`, { name: 'x' }],
        ['GET', `/api/v1/checklist-items/${item._id}`],
        ['PATCH', `/api/v1/checklist-items/${item._id}`, { name: 'x' }],
        ['PATCH', `/api/v1/checklist-items/${item._id}/date`, { date: null }],
        ['PATCH', `/api/v1/checklist-items/${item._id}/complete`, {}],
        ['PATCH', `/api/v1/checklist-items/${item._id}/complete`, { status: true }],
        ['PATCH', `/api/v1/checklist-items/${item._id}/position`, { position: 0 }],
        ['POST', `/api/v1/checklist-items/${item._id}/members`, { members: [w.mate.userId] }],
        ['POST', `/api/v1/checklist-items/${item._id}/copy`, { checklist: checklistId }],
        ['DELETE', `/api/v1/checklist-items/${item._id}`],
      ];
      for (const key of [w.other.apiKey, w.stranger.apiKey, w.loner.apiKey]) {
        for (const [method, url, body] of calls) {
          const res = await apiClient(t, key)(method as 'GET', url, body);
          assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
          assert.equal(res.json().code, 'not_found');
        }
      }
      for (const query of [`?companyId=${w.other.companyId}`, `?teamId=${w.elsewhereTeam}`]) {
        for (const [method, url, body] of calls) {
          assert.equal((await api(method as 'GET', `${url}${query}`, body)).statusCode, 404, `${method} ${url}${query}`);
        }
      }
      assert.deepEqual(await snapshot(cardId), before);
      assert.equal((await apiClient(t, w.mate.apiKey)('GET', `/api/v1/checklist-items/${item._id}`)).statusCode, 200);
    });

    it('answers 400 for malformed ids, 404 for unknown ones', async () => {
      for (const [method, url, body] of [
        ['GET', '/api/v1/checklists/x/items'],
        ['POST', '/api/v1/checklists/x/items', { name: 'x' }],
        ['GET', '/api/v1/checklist-items/x'],
        ['PATCH', '/api/v1/checklist-items/x', { name: 'x' }],
        ['PATCH', '/api/v1/checklist-items/x/date', { date: null }],
        ['PATCH', '/api/v1/checklist-items/x/complete'],
        ['PATCH', '/api/v1/checklist-items/x/position', { position: 0 }],
        ['POST', '/api/v1/checklist-items/x/members', { members: [NOBODY] }],
        ['POST', '/api/v1/checklist-items/x/copy', { checklist: NOBODY }],
        ['DELETE', '/api/v1/checklist-items/x'],
      ] as [string, string, unknown?][]) {
        const res = await api(method as 'GET', url, body);
        assert.equal(res.statusCode, 400, `${method} ${url}`);
        assert.equal(res.json().details[0].field, url.includes('checklist-items') ? 'params.itemId' : 'params.checklistId');
        const unknown = await api(method as 'GET', url.replace('/x', `/${NOBODY}`), body);
        assert.equal(unknown.statusCode, 404, `${method} ${url} (unknown id): ${unknown.body}`);
      }
    });

    it('counts each item operation under its route template and contract tier', async () => {
      const { cardId, checklistId } = await setup();
      const target = await newChecklist(cardId);
      const tiers = await tiersOf(limiter, api, async (api) => {
        const item = await newItem(checklistId);
        await api('GET', `/api/v1/checklists/${checklistId}/items`);
        await api('GET', `/api/v1/checklist-items/${item._id}`);
        await api('PATCH', `/api/v1/checklist-items/${item._id}`, { name: 'n' });
        await api('PATCH', `/api/v1/checklist-items/${item._id}/date`, { date: null });
        await api('PATCH', `/api/v1/checklist-items/${item._id}/complete`);
        await api('PATCH', `/api/v1/checklist-items/${item._id}/position`, { position: 0, checklist: target });
        await api('POST', `/api/v1/checklist-items/${item._id}/members`, { members: [w.mate.userId] });
        await api('POST', `/api/v1/checklist-items/${item._id}/copy`, { checklist: checklistId });
        await api('DELETE', `/api/v1/checklist-items/${item._id}`);
      });
      assert.deepEqual(tiers, [
        ['POST /api/v1/checklists/:checklistId/items', 'medium'],
        ['GET /api/v1/checklists/:checklistId/items', 'very-low'],
        ['GET /api/v1/checklist-items/:itemId', 'very-low'],
        ['PATCH /api/v1/checklist-items/:itemId', 'low'],
        ['PATCH /api/v1/checklist-items/:itemId/date', 'low'],
        ['PATCH /api/v1/checklist-items/:itemId/complete', 'low'],
        ['PATCH /api/v1/checklist-items/:itemId/position', 'low'],
        ['POST /api/v1/checklist-items/:itemId/members', 'low'],
        ['POST /api/v1/checklist-items/:itemId/copy', 'medium'],
        ['DELETE /api/v1/checklist-items/:itemId', 'low'],
      ]);
    });
  });
}
