import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { Card } from '../../src/schemas/records.ts';
import type { NewRow } from '../../src/storage/database.ts';
import { addMember, addTeam, cardRow, seedBoard } from '../support/fixtures.ts';
import { apiClient, buildTestApp, ENGINES, type OtherCompany, otherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';

interface CardRecord {
  _id: string;
  name: string;
  list: string;
  team: string;
  position: number;
  members: { _id: string }[];
  complete: { status: boolean };
  archived: { status: boolean };
}

const names = (cards: CardRecord[]) => cards.map((c) => c.name);
const cursorOf = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');

/** A time `n` seconds after a fixed start: assignment times the tests control. */
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();

for (const engine of ENGINES) {
  describe(`my tasks [${engine}]`, () => {
    let t: TestApp;
    let other: OtherCompany;
    let secondTeam: string;
    let core: { boardId: string; listIds: string[] };
    let second: { boardId: string; listIds: string[] };
    let seq = 0;

    before(async () => {
      t = await buildTestApp(engine);
      other = await otherCompany(t);
      secondTeam = await addTeam(t.services, t.tenant.companyId, 'Second', [t.tenant.userId]);
      core = await seedBoard(t.services, t.tenant, { lists: 2 });
      second = await seedBoard(t.services, { ...t.tenant, teamId: secondTeam }, { lists: 1 });
    });
    after(() => t.dispose());

    /** A fresh member of Acme in the given teams (default: both), with a client. */
    async function person(teamIds = [t.tenant.teamId, secondTeam], role: 'member' | 'admin' = 'member') {
      seq += 1;
      const m = await addMember(t.services, { companyId: t.tenant.companyId, teamIds, email: `me${seq}@acme.test`, role });
      return { ...m, api: apiClient(t, m.apiKey) };
    }

    /** A card in `board`'s list `listIndex`, with `members` assigned at the given times. */
    async function card(
      board: { boardId: string; listIds: string[] },
      teamId: string,
      name: string,
      members: [string, string][],
      extra: Partial<NewRow<'cards'>> & { listIndex?: number; companyId?: string } = {},
    ): Promise<string> {
      const { listIndex = 0, companyId = t.tenant.companyId, ...columns } = extra;
      const list = { _id: board.listIds[listIndex] as string, board: board.boardId, company: companyId, team: teamId };
      const row = cardRow(list, t.tenant.userId, name, columns.position ?? 1024, columns);
      await t.services.db.insertInto('cards').values(row).execute();
      for (const [userId, assignedAt] of members) await assign(row.id, userId, assignedAt);
      return row.id;
    }

    async function assign(cardId: string, userId: string, assignedAt: string) {
      await t.services.db.insertInto('card_members').values({ card_id: cardId, user_id: userId, created_at: assignedAt }).execute();
    }

    async function page(client: ReturnType<typeof apiClient>, url: string) {
      const res = await client('GET', url);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      assert.deepEqual(Object.keys(body).sort(), ['cards', 'message', 'nextCursor']);
      for (const c of body.cards) assertSchema(Card, c);
      return body as { cards: CardRecord[]; nextCursor: string | null };
    }

    /** Every page of `url` (which has no cursor yet), `between` run after each page. */
    async function walk(client: ReturnType<typeof apiClient>, url: string, between: (pageIndex: number) => Promise<void> = async () => {}) {
      const seen: CardRecord[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 50; i++) {
        const sep = url.includes('?') ? '&' : '?';
        const body = await page(client, cursor ? `${url}${sep}cursor=${encodeURIComponent(cursor)}` : url);
        seen.push(...body.cards);
        cursor = body.nextCursor;
        if (!cursor) return seen;
        await between(i);
      }
      throw new Error('more than 50 pages');
    }

    it('answers the unarchived cards the caller is a member of, as full records, in the order it was assigned', async () => {
      const me = await person();
      const someoneElse = await person();
      await card(core, t.tenant.teamId, 'second assigned', [[me.userId, at(20)]], { listIndex: 1 });
      await card(core, t.tenant.teamId, 'first assigned', [
        [someoneElse.userId, at(1)],
        [me.userId, at(10)],
      ]);
      await card(core, t.tenant.teamId, 'not mine', [[someoneElse.userId, at(5)]]);
      await card(core, t.tenant.teamId, 'archived', [[me.userId, at(15)]], { archived: 1 });
      await card(second, secondTeam, 'other team', [[me.userId, at(30)]]);
      await card(core, t.tenant.teamId, 'done', [[me.userId, at(40)]], { complete_status: 1 });

      const body = await page(me.api, '/api/v1/my-tasks');
      assert.deepEqual(names(body.cards), ['first assigned', 'second assigned', 'other team', 'done']);
      assert.equal(body.nextCursor, null);
      for (const c of body.cards) {
        assert.ok(c.members.some((m) => m._id === me.userId));
        assert.equal(c.archived.status, false);
      }
      const first = body.cards[0] as CardRecord;
      assert.deepEqual(
        first.members.map((m) => m._id),
        [someoneElse.userId, me.userId],
        'the whole card, every member',
      );
      assert.equal(first.list, core.listIds[0]);

      assert.deepEqual(names((await page(someoneElse.api, '/api/v1/my-tasks')).cards), ['first assigned', 'not mine'], 'in its own assignment order');
      assert.deepEqual((await page(other.api, '/api/v1/my-tasks')).cards, [], "another company's caller sees none of them");
    });

    it('filters by completion', async () => {
      const me = await person();
      await card(core, t.tenant.teamId, 'open', [[me.userId, at(1)]]);
      await card(core, t.tenant.teamId, 'done', [[me.userId, at(2)]], { complete_status: 1 });
      await card(core, t.tenant.teamId, 'done archived', [[me.userId, at(3)]], { complete_status: 1, archived: 1 });
      assert.deepEqual(names((await page(me.api, '/api/v1/my-tasks?complete=true')).cards), ['done']);
      assert.deepEqual(names((await page(me.api, '/api/v1/my-tasks?complete=false')).cards), ['open']);
      assert.deepEqual(names((await page(me.api, '/api/v1/my-tasks')).cards), ['open', 'done']);
      const done = (await page(me.api, '/api/v1/my-tasks?complete=true')).cards[0] as CardRecord;
      assert.equal(done.complete.status, true);
    });

    it('narrows by company and team; a company or team out of reach is a 404', async () => {
      const me = await person();
      await card(core, t.tenant.teamId, 'core', [[me.userId, at(1)]]);
      await card(second, secondTeam, 'second', [[me.userId, at(2)]]);
      const { companyId, teamId } = t.tenant;
      assert.deepEqual(names((await page(me.api, `/api/v1/my-tasks?companyId=${companyId}`)).cards), ['core', 'second']);
      assert.deepEqual(names((await page(me.api, `/api/v1/my-tasks?teamId=${teamId}`)).cards), ['core']);
      assert.deepEqual(names((await page(me.api, `/api/v1/my-tasks?companyId=${companyId}&teamId=${secondTeam}`)).cards), ['second']);
      for (const query of [`companyId=${other.companyId}`, `teamId=${other.teamId}`, `teamId=${newId()}`, `companyId=${other.companyId}&teamId=${teamId}`]) {
        const res = await me.api('GET', `/api/v1/my-tasks?${query}`);
        assert.equal(res.statusCode, 404, `${query}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      assert.equal((await other.api('GET', `/api/v1/my-tasks?teamId=${teamId}`)).statusCode, 404);
    });

    it('shows only cards of teams the caller reaches now: leaving a team hides its cards', async () => {
      const me = await person();
      await card(core, t.tenant.teamId, 'core', [[me.userId, at(1)]]);
      await card(second, secondTeam, 'second', [[me.userId, at(2)]]);
      assert.deepEqual(names((await page(me.api, '/api/v1/my-tasks')).cards), ['core', 'second']);
      const left = await me.api('DELETE', `/api/v1/teams/${secondTeam}/members/${me.userId}`);
      assert.equal(left.statusCode, 200, left.body);
      assert.deepEqual(names((await page(me.api, '/api/v1/my-tasks')).cards), ['core']);
      assert.equal((await me.api('GET', `/api/v1/my-tasks?teamId=${secondTeam}`)).statusCode, 404);

      // a company admin reaches every team, member of it or not
      const admin = await person([], 'admin');
      await card(second, secondTeam, 'admin task', [[admin.userId, at(3)]]);
      assert.deepEqual(names((await page(admin.api, '/api/v1/my-tasks')).cards), ['admin task']);
    });

    it('pages with limit and cursor, never repeating or skipping while the caller is assigned more cards', async () => {
      const me = await person();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push(await card(core, t.tenant.teamId, `c${i}`, [[me.userId, at(100 + i)]]));
      // older cards, assigned between page fetches: they come after everything already assigned
      const late = [await card(core, t.tenant.teamId, 'late0', []), await card(second, secondTeam, 'late1', [])];
      const seen = await walk(me.api, '/api/v1/my-tasks?limit=3', async (i) => {
        const lateCard = late[i];
        if (lateCard) await assign(lateCard, me.userId, at(200 + i));
      });
      assert.deepEqual(names(seen), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'late0', 'late1']);

      // ties in assignment time are broken by card id, still without repeats
      const tied = await person();
      const tiedIds: string[] = [];
      for (let i = 0; i < 5; i++) tiedIds.push(await card(core, t.tenant.teamId, `t${i}`, [[tied.userId, at(300)]]));
      const byOne = await walk(tied.api, '/api/v1/my-tasks?limit=1');
      assert.deepEqual(
        byOne.map((c) => c._id),
        [...tiedIds].sort(),
      );

      const exact = await page(me.api, '/api/v1/my-tasks?limit=9');
      assert.equal(exact.cards.length, 9);
      assert.equal(exact.nextCursor, null, 'a page that ends the collection has no next cursor');
    });

    it('answers 50 cards per page by default, at most 200', async () => {
      const me = await person([t.tenant.teamId]);
      for (let i = 0; i < 52; i++) await card(core, t.tenant.teamId, `n${String(i).padStart(2, '0')}`, [[me.userId, at(i)]]);
      const first = await page(me.api, '/api/v1/my-tasks');
      assert.equal(first.cards.length, 50);
      assert.ok(first.nextCursor);
      const rest = await page(me.api, `/api/v1/my-tasks?cursor=${first.nextCursor}`);
      assert.deepEqual(names(rest.cards), ['n50', 'n51']);
      assert.equal(rest.nextCursor, null);
      assert.equal((await page(me.api, '/api/v1/my-tasks?limit=200')).cards.length, 52);
    });

    it('rejects bad query parameters with 400 and details, never 5xx', async () => {
      const me = await person();
      const listCursor = cursorOf(['p', 1024, newId()]);
      const cases: [string, string][] = [
        ['limit=0', 'querystring.limit'],
        ['limit=201', 'querystring.limit'],
        ['limit=abc', 'querystring.limit'],
        ['limit=1.5', 'querystring.limit'],
        ['complete=maybe', 'querystring.complete'],
        ['companyId=nope', 'querystring.companyId'],
        ['teamId=123', 'querystring.teamId'],
        ['archived=maybe', 'querystring.archived'],
        ['cursor=', 'querystring.cursor'],
        ['cursor=%21%21%21', 'querystring.cursor'],
        ['cursor=bm90IGpzb24', 'querystring.cursor'],
        [`cursor=${cursorOf({ a: 1 })}`, 'querystring.cursor'],
        [`cursor=${cursorOf(['a', 5, newId()])}`, 'querystring.cursor'],
        [`cursor=${cursorOf(['a', at(1), 'not-an-id'])}`, 'querystring.cursor'],
        [`cursor=${listCursor}`, 'querystring.cursor'],
        [`cursor=${'x'.repeat(1025)}`, 'querystring.cursor'],
      ];
      for (const [query, field] of cases) {
        const res = await me.api('GET', `/api/v1/my-tasks?${query}`);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          `${query}: ${res.body}`,
        );
      }
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/my-tasks' })).statusCode, 401);
    });

    it("lists the caller's cards of one list in position order, paged", async () => {
      const me = await person();
      const listId = core.listIds[0] as string;
      await card(core, t.tenant.teamId, 'bottom', [[me.userId, at(1)]], { position: 3000 });
      await card(core, t.tenant.teamId, 'top', [[me.userId, at(2)]], { position: 1000 });
      await card(core, t.tenant.teamId, 'middle', [[me.userId, at(3)]], { position: 2000 });
      await card(core, t.tenant.teamId, 'not mine', [], { position: 1500 });
      await card(core, t.tenant.teamId, 'archived', [[me.userId, at(4)]], { position: 1200, archived: 1 });
      await card(core, t.tenant.teamId, 'done', [[me.userId, at(5)]], { position: 2500, complete_status: 1 });
      await card(core, t.tenant.teamId, 'other list', [[me.userId, at(6)]], { listIndex: 1 });

      const all = await page(me.api, `/api/v1/my-tasks/lists/${listId}?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`);
      assert.deepEqual(names(all.cards), ['top', 'middle', 'done', 'bottom']);
      assert.ok(all.cards.every((c) => c.list === listId));
      assert.equal(all.nextCursor, null);
      assert.deepEqual(names((await page(me.api, `/api/v1/my-tasks/lists/${listId}?complete=false`)).cards), ['top', 'middle', 'bottom']);

      // a card assigned meanwhile below the cursor shows on a later page; nothing repeats
      const late = await card(core, t.tenant.teamId, 'late', [], { position: 4000 });
      const walked = await walk(me.api, `/api/v1/my-tasks/lists/${listId}?limit=2`, async (i) => {
        if (i === 0) await assign(late, me.userId, at(7));
      });
      assert.deepEqual(names(walked), ['top', 'middle', 'done', 'bottom', 'late']);

      const allCursor = (await page(me.api, '/api/v1/my-tasks?limit=1')).nextCursor;
      const wrongKind = await me.api('GET', `/api/v1/my-tasks/lists/${listId}?cursor=${allCursor}`);
      assert.equal(wrongKind.statusCode, 400, 'a cursor of the other listing is refused');
      assert.equal(wrongKind.json().details[0].field, 'querystring.cursor');
    });

    it('answers 404 for a list out of reach or out of scope, 400 for a malformed list id', async () => {
      const me = await person([t.tenant.teamId]);
      const globex = await seedBoard(t.services, other, { lists: 1 });
      const cases: [ReturnType<typeof apiClient>, string][] = [
        [me.api, `/api/v1/my-tasks/lists/${globex.listIds[0]}`],
        [other.api, `/api/v1/my-tasks/lists/${core.listIds[0]}`],
        [me.api, `/api/v1/my-tasks/lists/${newId()}`],
        [me.api, `/api/v1/my-tasks/lists/${core.listIds[0]}?teamId=${secondTeam}`],
        [me.api, `/api/v1/my-tasks/lists/${core.listIds[0]}?companyId=${other.companyId}`],
      ];
      for (const [client, url] of cases) {
        const res = await client('GET', url);
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      // the list of a team the caller is not in is out of reach
      const left = await me.api('GET', `/api/v1/my-tasks/lists/${second.listIds[0]}`);
      assert.equal(left.statusCode, 404);
      const malformed = await me.api('GET', '/api/v1/my-tasks/lists/xyz');
      assert.equal(malformed.statusCode, 400);
      assert.equal(malformed.json().details[0].field, 'params.listId');
      const badLimit = await me.api('GET', `/api/v1/my-tasks/lists/${core.listIds[0]}?limit=0`);
      assert.equal(badLimit.statusCode, 400);
      const badCursor = await me.api('GET', `/api/v1/my-tasks/lists/${core.listIds[0]}?cursor=${cursorOf(['p', 'x', newId()])}`);
      assert.equal(badCursor.statusCode, 400);
    });
  });
}

describeTiers('my-tasks routes', {
  engines: ['sqlite'],
  given: (t) => seedBoard(t.services, t.tenant, { lists: 1 }),
  calls: async (api, board) => {
    await api('GET', '/api/v1/my-tasks');
    await api('GET', `/api/v1/my-tasks/lists/${board.listIds[0]}`);
  },
  expected: [
    ['GET /api/v1/my-tasks', 'very-low'],
    ['GET /api/v1/my-tasks/lists/:listId', 'very-low'],
  ],
});
