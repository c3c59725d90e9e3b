import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { CardCompanyTeam, CardsPage } from '../../src/schemas/card-edits.ts';
import { Card } from '../../src/schemas/records.ts';
import { addMember, addTeam, cardRow, seedBoard } from '../support/fixtures.ts';
import { apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';

interface CardRecord {
  _id: string;
  name: string;
  list: string;
  position: number;
  __v: number;
  archived: { status: boolean };
}

for (const engine of ENGINES) {
  describe(`card edits: reorder, archive, list, company and team [${engine}]`, () => {
    let t: TestApp;
    let api: ReturnType<typeof apiClient>;
    let rival: BootstrapResult;
    let outsider: { userId: string; apiKey: string };

    before(async () => {
      t = await buildTestApp(engine);
      api = apiClient(t, t.tenant.apiKey);
      rival = await bootstrap(t.services, { company: 'Rival', team: 'T', email: 'r@rival.test', fullName: 'R' });
      // same company, another team: reaches none of the tenant team's cards
      outsider = await addMember(t.services, { companyId: t.tenant.companyId, email: 'outsider@acme.test' });
      await addTeam(t.services, t.tenant.companyId, 'Elsewhere', [outsider.userId]);
    });
    after(() => t.dispose());

    const create = async (list: string, name: string, position?: number | 'top' | 'bottom'): Promise<CardRecord> => {
      const res = await api('POST', '/api/v1/cards', { list, name, ...(position !== undefined ? { position } : {}) });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().card;
    };
    const createMany = async (list: string, names: string[]) => {
      const cards: CardRecord[] = [];
      for (const name of names) cards.push(await create(list, name));
      return cards;
    };
    /** Names of the list's cards in display order, straight from the database. */
    const order = async (listId: string, archived = 0) =>
      (
        await t.services.db
          .selectFrom('cards')
          .select('name')
          .where('list_id', '=', listId)
          .where('archived', '=', archived as 0 | 1)
          .orderBy('position')
          .orderBy('id')
          .execute()
      ).map((c) => c.name);
    const versions = async (ids: string[]) =>
      (await t.services.db.selectFrom('cards').select(['id', 'version']).where('id', 'in', ids).orderBy('id').execute()).map((r) => [r.id, r.version]);
    const move = (cardId: string, body: unknown, key = t.tenant.apiKey, query = '') =>
      apiClient(t, key)('PATCH', `/api/v1/cards/${cardId}/position${query}`, body);

    describe('Reorder Card Position', () => {
      it('moves a card to an index, the top or the bottom of its list; the others keep their order', async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const [a, b, c, d] = (await createMany(listId, ['a', 'b', 'c', 'd'])) as [CardRecord, CardRecord, CardRecord, CardRecord];
        const res = await move(d._id, { position: 0 });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().message, 'Card moved');
        assertSchema(Card, res.json().card);
        assert.equal(res.json().card.__v, d.__v + 1);
        assert.ok(res.json().card.position < a.position);
        assert.deepEqual(await order(listId), ['d', 'a', 'b', 'c']);
        assert.equal((await move(a._id, { position: 2 })).statusCode, 200);
        assert.deepEqual(await order(listId), ['d', 'b', 'a', 'c'], 'index 2 among the others');
        assert.equal((await move(d._id, { position: 'bottom' })).statusCode, 200);
        assert.deepEqual(await order(listId), ['b', 'a', 'c', 'd']);
        assert.equal((await move(c._id, { position: 'top' })).statusCode, 200);
        assert.deepEqual(await order(listId), ['c', 'b', 'a', 'd']);
        assert.equal((await move(c._id, { position: 99 })).statusCode, 200, 'past the end is the bottom');
        assert.deepEqual(await order(listId), ['b', 'a', 'd', 'c']);
        // only the moved cards changed
        assert.deepEqual(
          await versions([a._id, b._id, c._id, d._id]),
          [
            [a._id, 1],
            [b._id, 0],
            [c._id, 2],
            [d._id, 2],
          ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
        );
      });

      it('moves a card into another list of the same board', async () => {
        const [from, to] = (await seedBoard(t.services, t.tenant, { lists: 2 })).listIds as [string, string];
        const [, b] = (await createMany(from, ['a', 'b', 'c'])) as CardRecord[] as [CardRecord, CardRecord];
        await createMany(to, ['x', 'y']);
        const res = await move(b._id, { list: to, position: 1 }, t.tenant.apiKey, `?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().card.list, to);
        assert.deepEqual(await order(from), ['a', 'c']);
        assert.deepEqual(await order(to), ['x', 'b', 'y']);
        const listed = (await api('GET', `/api/v1/lists/${to}/cards`)).json().cards.map((c: CardRecord) => c.name);
        assert.deepEqual(listed, ['x', 'b', 'y']);
      });

      it("counts only the cards that share the moved card's archived state", async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const [, hidden, , d] = (await createMany(listId, ['a', 'hidden', 'c', 'd'])) as [CardRecord, CardRecord, CardRecord, CardRecord];
        assert.equal((await api('PATCH', `/api/v1/cards/${hidden._id}/archive`)).statusCode, 200);
        // the client sees a, c, d: index 1 is between a and c
        assert.equal((await move(d._id, { position: 1 })).statusCode, 200);
        assert.deepEqual(await order(listId), ['a', 'd', 'c']);
        assert.deepEqual(await order(listId, 1), ['hidden']);
      });

      it('renumbers the list when neighbours get too close, keeping the order; renumbered cards are changed too', async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const cards = await createMany(listId, ['a', 'b', 'c', 'd']);
        // squeeze b and c together, as many insertions between them would
        await t.services.db
          .updateTable('cards')
          .set({ position: 1024.000_000_1 })
          .where('id', '=', (cards[1] as CardRecord)._id)
          .execute();
        await t.services.db
          .updateTable('cards')
          .set({ position: 1024.000_000_2 })
          .where('id', '=', (cards[2] as CardRecord)._id)
          .execute();
        const res = await move((cards[3] as CardRecord)._id, { position: 2 });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(await order(listId), ['a', 'b', 'd', 'c']);
        const rows = await t.services.db
          .selectFrom('cards')
          .select(['name', 'position', 'version'])
          .where('list_id', '=', listId)
          .orderBy('position')
          .execute();
        assert.deepEqual(
          rows.map((r) => [r.name, r.position, r.version]),
          [
            ['a', 1024, 1],
            ['b', 2048, 1],
            ['d', 3072, 1],
            ['c', 4096, 1],
          ],
        );
      });

      it('10 parallel moves to the top of one list give 10 distinct places', async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const cards = await createMany(
          listId,
          Array.from({ length: 10 }, (_, i) => `p${i}`),
        );
        const answers = await Promise.all(cards.map((c) => move(c._id, { position: 'top' })));
        assert.deepEqual(
          answers.map((a) => a.statusCode),
          cards.map(() => 200),
        );
        const positions = (await t.services.db.selectFrom('cards').select('position').where('list_id', '=', listId).execute()).map((r) => r.position);
        assert.equal(new Set(positions).size, 10, `positions ${positions.join(', ')}`);
        assert.ok((await versions(cards.map((c) => c._id))).every(([, v]) => v === 1));
      });

      it('refuses a list of another board (400), an unreachable list (404) and bad bodies (400), changing nothing', async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const [otherBoardList] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const [rivalList] = (await seedBoard(t.services, rival, { lists: 1 })).listIds as [string];
        const [a] = (await createMany(listId, ['a', 'b'])) as [CardRecord];
        const other = await move(a._id, { list: otherBoardList, position: 0 });
        assert.equal(other.statusCode, 400, other.body);
        assert.deepEqual(
          other.json().details.map((d: { field: string }) => d.field),
          ['body.list'],
        );
        for (const list of [rivalList, 'ffffffffffffffffffffffff']) {
          const res = await move(a._id, { list, position: 0 });
          assert.equal(res.statusCode, 404, res.body);
        }
        const cases: [unknown, string][] = [
          [{}, 'body.position'],
          [{ list: listId }, 'body.position'],
          [{ position: -1 }, 'body.position'],
          [{ position: 1.5 }, 'body.position'],
          [{ position: 'middle' }, 'body.position'],
          [{ position: 0, list: 'abc' }, 'body.list'],
          [{ position: 0, board: listId }, 'body.board'],
        ];
        for (const [body, field] of cases) {
          const res = await move(a._id, body);
          assert.equal(res.statusCode, 400, JSON.stringify(body));
          assert.ok(
            res.json().details.some((d: { field: string }) => d.field === field),
            `${JSON.stringify(body)} → ${res.body}`,
          );
        }
        for (const [key, query] of [
          [rival.apiKey, ''],
          [outsider.apiKey, ''],
          [t.tenant.apiKey, `?teamId=${rival.teamId}`],
        ] as const) {
          assert.equal((await move(a._id, { position: 'bottom' }, key, query)).statusCode, 404);
        }
        assert.deepEqual(await order(listId), ['a', 'b']);
        assert.deepEqual(await versions([a._id]), [[a._id, 0]]);
      });
    });

    describe('Archive Card / Unarchive Card', () => {
      it('archives: the card leaves the board view and the default list, stays readable, and comes back where it was', async () => {
        const board = await seedBoard(t.services, t.tenant, { lists: 1 });
        const listId = board.listIds[0] as string;
        const [, b] = (await createMany(listId, ['a', 'b', 'c'])) as [CardRecord, CardRecord];
        const res = await api('PATCH', `/api/v1/cards/${b._id}/archive`);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().message, 'Card archived');
        assertSchema(Card, res.json().card);
        assert.deepEqual(res.json().card.archived, { status: true });
        assert.equal(res.json().card.__v, 1);
        const archivedAt = (await t.services.db.selectFrom('cards').select('archived_at').where('id', '=', b._id).executeTakeFirstOrThrow()).archived_at;
        assert.equal(archivedAt, res.json().card.updatedAt);

        const boardView = (await api('GET', `/api/v1/boards/${board.boardId}`)).json().board;
        assert.deepEqual(
          boardView.lists[0].cards.map((c: CardRecord) => c.name),
          ['a', 'c'],
        );
        assert.deepEqual(
          (await api('GET', `/api/v1/lists/${listId}/cards`)).json().cards.map((c: CardRecord) => c.name),
          ['a', 'c'],
        );
        assert.deepEqual(
          (await api('GET', `/api/v1/lists/${listId}/cards?archived=true`)).json().cards.map((c: CardRecord) => c.name),
          ['b'],
        );
        const details = await api('GET', `/api/v1/cards/${b._id}`);
        assert.equal(details.statusCode, 200);
        assert.deepEqual(details.json().card.archived, { status: true });

        // archiving again is one more change, and keeps the time of archiving
        const again = await api('PATCH', `/api/v1/cards/${b._id}/archive`, {});
        assert.equal(again.statusCode, 200);
        assert.equal(again.json().card.__v, 3, 'Get Card Details added the caller to seen: one change');
        const kept = (await t.services.db.selectFrom('cards').select('archived_at').where('id', '=', b._id).executeTakeFirstOrThrow()).archived_at;
        assert.equal(kept, archivedAt);

        const back = await api('PATCH', `/api/v1/cards/${b._id}/unarchive`);
        assert.equal(back.statusCode, 200);
        assert.equal(back.json().message, 'Card unarchived');
        assert.deepEqual(back.json().card.archived, { status: false });
        assert.equal(back.json().card.position, b.position);
        assert.deepEqual(await order(listId), ['a', 'b', 'c']);
        const row = await t.services.db.selectFrom('cards').select(['archived', 'archived_at', 'version']).where('id', '=', b._id).executeTakeFirstOrThrow();
        assert.deepEqual(row, { archived: 0, archived_at: null, version: 4 });
      });

      it('takes no body fields, and is a 404 outside reach or scope, changing nothing', async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const card = await create(listId, 'keep');
        for (const action of ['archive', 'unarchive']) {
          const res = await api('PATCH', `/api/v1/cards/${card._id}/${action}`, { status: true });
          assert.equal(res.statusCode, 400, res.body);
          assert.deepEqual(
            res.json().details.map((d: { field: string }) => d.field),
            ['body.status'],
          );
          for (const [key, query] of [
            [rival.apiKey, ''],
            [outsider.apiKey, ''],
            [t.tenant.apiKey, `?companyId=${rival.companyId}`],
          ] as const) {
            const res = await apiClient(t, key)('PATCH', `/api/v1/cards/${card._id}/${action}${query}`);
            assert.equal(res.statusCode, 404);
          }
          assert.equal((await api('PATCH', `/api/v1/cards/nope/${action}`)).statusCode, 400);
          assert.equal((await api('PATCH', `/api/v1/cards/ffffffffffffffffffffffff/${action}`)).statusCode, 404);
        }
        const row = await t.services.db.selectFrom('cards').select(['archived', 'version']).where('id', '=', card._id).executeTakeFirstOrThrow();
        assert.deepEqual(row, { archived: 0, version: 0 });
      });
    });

    describe('Get List Card', () => {
      it('answers a page of full card records and a cursor; the last page has nextCursor null', async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        await createMany(listId, ['a', 'b', 'c']);
        const first = await api('GET', `/api/v1/lists/${listId}/cards?limit=2&companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`);
        assert.equal(first.statusCode, 200, first.body);
        const body = first.json();
        assertSchema(CardsPage, body);
        assert.equal(body.message, 'Cards retrieved');
        assert.deepEqual(
          body.cards.map((c: CardRecord) => c.name),
          ['a', 'b'],
        );
        assert.equal(typeof body.nextCursor, 'string');
        const second = (await api('GET', `/api/v1/lists/${listId}/cards?limit=2&cursor=${body.nextCursor}`)).json();
        assert.deepEqual(
          second.cards.map((c: CardRecord) => c.name),
          ['c'],
        );
        assert.equal(second.nextCursor, null);
        const whole = (await api('GET', `/api/v1/lists/${listId}/cards`)).json();
        assert.deepEqual(
          whole.cards.map((c: CardRecord) => c.name),
          ['a', 'b', 'c'],
        );
        assert.equal(whole.nextCursor, null);
        const empty = (await api('GET', `/api/v1/lists/${listId}/cards?archived=true`)).json();
        assert.deepEqual([empty.cards, empty.nextCursor], [[], null]);
      });

      it('pages 50 cards by default', async () => {
        const board = await seedBoard(t.services, t.tenant, { lists: 1 });
        const list = { _id: board.listIds[0] as string, board: board.boardId, company: t.tenant.companyId, team: t.tenant.teamId };
        await t.services.db
          .insertInto('cards')
          .values(Array.from({ length: 51 }, (_, i) => cardRow(list, t.tenant.userId, `n${i}`, i)))
          .execute();
        const page = (await api('GET', `/api/v1/lists/${list._id}/cards`)).json();
        assert.deepEqual(
          page.cards.map((c: CardRecord) => c.name),
          Array.from({ length: 50 }, (_, i) => `n${i}`),
        );
        assert.notEqual(page.nextCursor, null);
        const rest = (await api('GET', `/api/v1/lists/${list._id}/cards?limit=200&cursor=${page.nextCursor}`)).json();
        assert.deepEqual(
          rest.cards.map((c: CardRecord) => c.name),
          ['n50'],
        );
        assert.equal(rest.nextCursor, null);
      });

      it('neither repeats nor skips a card while cards are added between page fetches, even when the list is renumbered', async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const originalCards = await createMany(
          listId,
          Array.from({ length: 12 }, (_, i) => `o${i}`),
        );
        const originals = originalCards.map((c) => c.name);
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const query: string = cursor ? `&cursor=${cursor}` : '';
          const res = await api('GET', `/api/v1/lists/${listId}/cards?limit=4${query}`);
          assert.equal(res.statusCode, 200, res.body);
          const body = res.json();
          seen.push(...body.cards.map((c: CardRecord) => c.name));
          cursor = body.nextCursor;
          pages++;
          if (pages === 1) {
            await create(listId, 'new-top', 'top');
            await create(listId, 'new-behind', 2);
            await create(listId, 'new-ahead', 6);
            await create(listId, 'new-bottom', 'bottom');
          }
          if (pages === 2) {
            // enough insertions at one place to make the positions collapse and the list renumber
            for (let i = 0; i < 40; i++) await create(listId, `squeeze${i}`, 1);
          }
        } while (cursor && pages < 50);
        assert.equal(new Set(seen).size, seen.length, `repeated: ${seen.filter((n, i) => seen.indexOf(n) !== i)}`);
        assert.deepEqual(
          seen.filter((n) => n.startsWith('o')),
          originals,
          'every card present at the start, once, in order',
        );
        assert.ok(seen.includes('new-ahead') && seen.includes('new-bottom'), 'cards added ahead of the walk show up');
        assert.ok(!seen.includes('new-top') && !seen.includes('new-behind'), 'cards added behind it do not');
        const last = originalCards.at(-1) as CardRecord;
        const lastNow = await t.services.db.selectFrom('cards').select('position').where('id', '=', last._id).executeTakeFirstOrThrow();
        assert.notEqual(lastNow.position, last.position, 'the list was renumbered meanwhile');
      });

      it('refuses bad queries with 400 and unreachable lists with 404', async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const wrongShape = Buffer.from(JSON.stringify({ position: 'x', cardId: 1 })).toString('base64url');
        const notJson = Buffer.from('{position').toString('base64url');
        for (const [query, field] of [
          ['limit=0', 'querystring.limit'],
          ['limit=201', 'querystring.limit'],
          ['limit=ten', 'querystring.limit'],
          ['archived=maybe', 'querystring.archived'],
          ['cursor=%21%21%21', 'querystring.cursor'],
          [`cursor=${wrongShape}`, 'querystring.cursor'],
          [`cursor=${notJson}`, 'querystring.cursor'],
          ['sort=name', 'querystring.sort'],
          ['teamId=123', 'querystring.teamId'],
        ]) {
          const res = await api('GET', `/api/v1/lists/${listId}/cards?${query}`);
          assert.equal(res.statusCode, 400, `${query} → ${res.body}`);
          assert.ok(
            res.json().details.some((d: { field: string }) => d.field === field),
            `${query} → ${res.body}`,
          );
        }
        assert.equal((await api('GET', '/api/v1/lists/xyz/cards')).statusCode, 400);
        for (const [key, query] of [
          [rival.apiKey, ''],
          [outsider.apiKey, ''],
          [t.tenant.apiKey, `?teamId=${rival.teamId}`],
          [t.tenant.apiKey, `?companyId=${rival.companyId}`],
        ] as const) {
          assert.equal((await apiClient(t, key)('GET', `/api/v1/lists/${listId}/cards${query}`)).statusCode, 404);
        }
        assert.equal((await api('GET', '/api/v1/lists/ffffffffffffffffffffffff/cards')).statusCode, 404);
      });
    });

    describe('Get Card Company and Team', () => {
      it('answers the company and team of the card, and 404 outside reach or scope', async () => {
        const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
        const card = await create(listId, 'where');
        const res = await api('GET', `/api/v1/cards/${card._id}/company-team`);
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assertSchema(CardCompanyTeam, body);
        assert.deepEqual(body, {
          message: 'Company and team retrieved',
          company: { _id: t.tenant.companyId, name: 'Acme' },
          team: { _id: t.tenant.teamId, name: 'Core' },
        });
        assert.equal((await api('GET', `/api/v1/cards/${card._id}/company-team?teamId=${t.tenant.teamId}`)).statusCode, 200);
        for (const [key, query] of [
          [rival.apiKey, ''],
          [outsider.apiKey, ''],
          [t.tenant.apiKey, `?teamId=${rival.teamId}`],
        ] as const) {
          assert.equal((await apiClient(t, key)('GET', `/api/v1/cards/${card._id}/company-team${query}`)).statusCode, 404);
        }
        assert.equal((await api('GET', '/api/v1/cards/ffffffffffffffffffffffff/company-team')).statusCode, 404);
        assert.equal((await api('GET', '/api/v1/cards/zz/company-team')).statusCode, 400);
        assert.equal((await api('GET', `/api/v1/cards/${card._id}/company-team?x=1`)).statusCode, 400);
      });
    });
  });
}

describeTiers('card edit routes', {
  engines: ['sqlite'],
  given: async (t, api) => {
    const [listId] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
    const card = (await api('POST', '/api/v1/cards', { list: listId, name: 'c' })).json().card;
    return { listId, card, item: { cardId: card._id, companyId: t.tenant.companyId, teamId: t.tenant.teamId } };
  },
  calls: async (api, { listId, card, item }, t) => {
    await api('PATCH', `/api/v1/cards/${card._id}`, { name: 'n' });
    await api('PATCH', `/api/v1/cards/${card._id}/position`, { position: 'top' });
    await api('PATCH', `/api/v1/cards/${card._id}/archive`);
    await api('PATCH', `/api/v1/cards/${card._id}/unarchive`);
    await api('GET', `/api/v1/lists/${listId}/cards`);
    await api('GET', `/api/v1/cards/${card._id}/company-team`);
    await api('PATCH', '/api/v1/cards/archived', { cardIds: [card._id], status: false });
    await api('PATCH', '/api/v1/cards/update-multi-team', { cards: [{ ...item, update: { name: 'm' } }] });
    await api('PATCH', '/api/v1/cards/archived-multi-team', { cards: [item], status: false });
    await api('POST', `/v2/cards/${card._id}/members`, { members: [t.tenant.userId] });
  },
  expected: [
    ['PATCH /api/v1/cards/:cardId', 'low'],
    ['PATCH /api/v1/cards/:cardId/position', 'low'],
    ['PATCH /api/v1/cards/:cardId/archive', 'low'],
    ['PATCH /api/v1/cards/:cardId/unarchive', 'low'],
    ['GET /api/v1/lists/:listId/cards', 'very-low'],
    ['GET /api/v1/cards/:cardId/company-team', 'very-low'],
    ['PATCH /api/v1/cards/archived', 'medium'],
    ['PATCH /api/v1/cards/update-multi-team', 'high'],
    ['PATCH /api/v1/cards/archived-multi-team', 'high'],
    ['POST /v2/cards/:cardId/members', 'low'],
  ],
});
