import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import { BoardWithLists, BoardWithListsAndCards } from '../../src/schemas/boards.ts';
import { Board } from '../../src/schemas/records.ts';
import { cardRow } from '../support/fixtures.ts';
import { type Api, bearer, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';

const ID = /^[0-9a-f]{24}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A card written straight to storage: these suites test boards, not the card routes. */
async function insertCard(
  t: TestApp,
  list: { _id: string; board: string; company: string; team: string },
  name: string,
  position: number,
  extra: { archived?: 0 | 1 } = {},
): Promise<string> {
  const row = cardRow(list, t.tenant.userId, name, position, extra);
  await t.services.db.insertInto('cards').values(row).execute();
  return row.id;
}

for (const engine of ENGINES) {
  describe(`boards [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;

    before(async () => ({ t, api, other } = await buildTwoCompanyApp(engine)));
    after(() => t.dispose());

    async function createBoard(name: string, teamId = t.tenant.teamId) {
      const res = await api('POST', `/api/v1/boards?teamId=${teamId}`, { name });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().board;
    }

    it('creates a board in the team and reads it back', async () => {
      const res = await api('POST', `/api/v1/boards?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`, { name: '  Roadmap  ' });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      const board = body.board;
      assertSchema(Board, board);
      assert.match(board._id, ID);
      assert.equal(board.name, 'Roadmap', 'stored trimmed');
      assert.equal(board.creator, t.tenant.userId);
      assert.equal(board.company, t.tenant.companyId);
      assert.equal(board.team, t.tenant.teamId);
      assert.match(board.createdAt, ISO);
      assert.equal(board.updatedAt, board.createdAt);
      assert.equal(board.__v, 0);
      assert.deepEqual(Object.keys(board).sort(), ['__v', '_id', 'archived', 'company', 'createdAt', 'creator', 'description', 'name', 'team', 'updatedAt']);

      const read = await api('GET', `/api/v1/boards/${board._id}/lists`);
      assert.equal(read.statusCode, 200);
      assertSchema(BoardWithLists, read.json().board);
      assert.deepEqual(read.json().board, { ...board, lists: [] });
    });

    it('refuses a board in a team the caller does not reach, or with a company that does not match', async () => {
      const before = await t.services.db.selectFrom('boards').select('id').execute();
      const foreign = await api('POST', `/api/v1/boards?teamId=${other.teamId}`, { name: 'Sneaky' });
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().code, 'not_found');
      const unknown = await api('POST', `/api/v1/boards?teamId=${newId()}`, { name: 'Nowhere' });
      assert.equal(unknown.statusCode, 404);
      const mismatch = await api('POST', `/api/v1/boards?companyId=${other.companyId}&teamId=${t.tenant.teamId}`, { name: 'Mismatch' });
      assert.equal(mismatch.statusCode, 404);
      const after = await t.services.db.selectFrom('boards').select('id').execute();
      assert.equal(after.length, before.length, 'nothing was created');
    });

    it('rejects bad board input with 400 and never 5xx', async () => {
      const url = `/api/v1/boards?teamId=${t.tenant.teamId}`;
      const cases: [string, string, unknown][] = [
        ['missing name', url, {}],
        ['blank name', url, { name: '   ' }],
        ['empty name', url, { name: '' }],
        ['too long name', url, { name: 'x'.repeat(513) }],
        ['number name', url, { name: 42 }],
        ['unknown field', url, { name: 'Ok', color: 'blue' }],
        ['missing teamId', '/api/v1/boards', { name: 'Ok' }],
        ['malformed teamId', '/api/v1/boards?teamId=nope', { name: 'Ok' }],
        ['malformed companyId', `${url}&companyId=XYZ`, { name: 'Ok' }],
        ['unknown query', `${url}&boardId=${newId()}`, { name: 'Ok' }],
      ];
      for (const [what, target, payload] of cases) {
        const res = await api('POST', target, payload);
        assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
        const body = res.json();
        assert.equal(body.code, 'validation_failed', what);
        assert.equal(typeof body.message, 'string', what);
      }
      const unknownField = (await api('POST', url, { name: 'Ok', color: 'blue' })).json();
      assert.deepEqual(unknownField.details, [{ field: 'body.color', message: 'unknown field' }]);
      const malformedJson = await t.app.inject({
        method: 'POST',
        url,
        headers: { ...bearer(t.tenant.apiKey), 'content-type': 'application/json' },
        payload: '{"name":',
      });
      assert.equal(malformedJson.statusCode, 400);
      const created = await t.services.db.selectFrom('boards').select('name').where('name', '=', 'Ok').execute();
      assert.deepEqual(created, []);
    });

    it('lists the boards the caller reaches, oldest first, narrowed by company and team', async () => {
      const a = await createBoard('Alpha');
      const b = await createBoard('Beta');
      const theirs = await other.api('POST', `/api/v1/boards?teamId=${other.teamId}`, { name: 'Theirs' });
      assert.equal(theirs.statusCode, 201);

      const res = await api('GET', '/api/v1/boards');
      assert.equal(res.statusCode, 200);
      const boards = res.json().boards as { _id: string; createdAt: string }[];
      for (const listed of boards) assertSchema(Board, listed);
      assert.ok(boards.some((x) => x._id === a._id) && boards.some((x) => x._id === b._id));
      assert.ok(!boards.some((x) => x._id === theirs.json().board._id), "another company's board is not listed");
      const sorted = [...boards].sort((x, y) => x.createdAt.localeCompare(y.createdAt) || x._id.localeCompare(y._id));
      assert.deepEqual(boards, sorted);

      const scoped = await api('GET', `/api/v1/boards?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`);
      assert.deepEqual(scoped.json().boards, boards);

      const theirsOnly = await other.api('GET', '/api/v1/boards');
      assert.deepEqual(
        theirsOnly.json().boards.map((x: { _id: string }) => x._id),
        [theirs.json().board._id],
      );

      for (const query of [
        `teamId=${other.teamId}`,
        `companyId=${other.companyId}`,
        `companyId=${other.companyId}&teamId=${t.tenant.teamId}`,
        `teamId=${newId()}`,
      ]) {
        const res = await api('GET', `/api/v1/boards?${query}`);
        assert.equal(res.statusCode, 404, query);
        assert.equal(res.json().code, 'not_found');
      }
      assert.equal((await api('GET', '/api/v1/boards?teamId=bad')).statusCode, 400);
      assert.equal((await api('GET', '/api/v1/boards?page=2')).statusCode, 400);
    });

    it('answers a board with its lists in position order and their unarchived cards as full records', async () => {
      const board = await createBoard('Sprint');
      const todo = (await api('POST', '/api/v1/lists', { board: board._id, name: 'Todo' })).json().list;
      const done = (await api('POST', '/api/v1/lists', { board: board._id, name: 'Done' })).json().list;
      const first = (await api('POST', '/api/v1/lists', { board: board._id, name: 'Inbox', position: 'top' })).json().list;

      const c2 = await insertCard(t, todo, 'second', 2048);
      const c1 = await insertCard(t, todo, 'first', 1024);
      await insertCard(t, todo, 'archived', 1500, { archived: 1 });
      const c3 = await insertCard(t, done, 'finished', 1024);
      // a label on a card shows inside the card record
      const label = (await api('POST', `/api/v1/boards/${board._id}/labels`, { name: 'Bug', color: '000000000000000000000004' })).json().label;
      await t.services.db.insertInto('card_labels').values({ card_id: c1, label_id: label._id, created_at: nowIso() }).execute();

      const res = await api('GET', `/api/v1/boards/${board._id}?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`);
      assert.equal(res.statusCode, 200, res.body);
      const got = res.json().board;
      assertSchema(BoardWithListsAndCards, got);
      assert.equal(got._id, board._id);
      assert.equal(got.name, 'Sprint');
      assert.deepEqual(
        got.lists.map((l: { name: string }) => l.name),
        ['Inbox', 'Todo', 'Done'],
      );
      assert.deepEqual(got.lists[0], { ...first, cards: [], nextCursor: null });
      assert.deepEqual(
        got.lists.map((l: { nextCursor: unknown }) => l.nextCursor),
        [null, null, null],
        'every list shown whole',
      );
      assert.deepEqual(
        got.lists[1].cards.map((c: { _id: string }) => c._id),
        [c1, c2],
        'archived card left out, position order',
      );
      assert.deepEqual(
        got.lists[2].cards.map((c: { _id: string }) => c._id),
        [c3],
      );

      const card = got.lists[1].cards[0];
      for (const field of [
        '_id',
        'name',
        'cover',
        'creator',
        'members',
        'checklists',
        'allChecklistItemsCount',
        'cheers',
        'comments',
        'labels',
        'attachments',
        'complete',
        'isNotified',
        'archived',
        'isPublic',
        'workload',
        'company',
        'team',
        'board',
        'list',
        'seen',
        'createdAt',
        'updatedAt',
        '__v',
      ]) {
        assert.ok(field in card, `card has ${field}`);
      }
      assert.equal(card.list, todo._id);
      assert.equal(card.board, board._id);
      assert.deepEqual(card.archived, { status: false });
      assert.deepEqual(card.allChecklistItemsCount, { completed: 0, total: 0 });
      assert.deepEqual(card.labels, [label]);

      const withLists = await api('GET', `/api/v1/boards/${board._id}/lists`);
      assert.equal(withLists.statusCode, 200);
      const wl = withLists.json().board;
      assertSchema(BoardWithLists, wl);
      assert.deepEqual(
        wl.lists.map((l: { _id: string }) => l._id),
        [first._id, todo._id, done._id],
      );
      assert.ok(
        wl.lists.every((l: object) => !('cards' in l)),
        'no cards in Get Board with Lists',
      );
    });

    it("hides a board from another company's key and from a scope that does not match", async () => {
      const board = await createBoard('Private');
      for (const path of [`/api/v1/boards/${board._id}`, `/api/v1/boards/${board._id}/lists`]) {
        const res = await other.api('GET', path);
        assert.equal(res.statusCode, 404, path);
        assert.equal(res.json().code, 'not_found');
        assert.equal((await other.api('GET', `${path}?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`)).statusCode, 404);
        assert.equal((await api('GET', `${path}?companyId=${other.companyId}`)).statusCode, 404);
        assert.equal((await api('GET', `${path}?teamId=${other.teamId}`)).statusCode, 404);
        assert.equal((await api('GET', path.replace(board._id, newId()))).statusCode, 404);
        assert.equal((await api('GET', path.replace(board._id, 'not-an-id'))).statusCode, 400);
        assert.equal((await api('GET', `${path}?extra=1`)).statusCode, 400);
      }
    });

    it('asks for a key', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/boards' });
      assert.equal(res.statusCode, 401);
    });
  });
}

describeTiers('board routes', {
  engines: ENGINES,
  calls: async (api, _, t) => {
    const board = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Tiered' })).json().board;
    await api('GET', '/api/v1/boards');
    await api('GET', `/api/v1/boards/${board._id}`);
    await api('GET', `/api/v1/boards/${board._id}/lists`);
  },
  expected: [
    ['POST /api/v1/boards', 'medium'],
    ['GET /api/v1/boards', 'very-low'],
    ['GET /api/v1/boards/:boardId', 'very-low'],
    ['GET /api/v1/boards/:boardId/lists', 'very-low'],
  ],
});
