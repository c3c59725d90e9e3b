import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { List } from '../../src/schemas/records.ts';
import { type Api, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';
import { assertUpdatedAtMoved, backdate } from '../support/updated-at.ts';

const ID = /^[0-9a-f]{24}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface ListRecord {
  _id: string;
  name: string;
  position: number;
  board: string;
  __v: number;
  createdAt: string;
  updatedAt: string;
}

for (const engine of ENGINES) {
  describe(`lists [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;

    before(async () => ({ t, api, other } = await buildTwoCompanyApp(engine)));
    after(() => t.dispose());

    async function createBoard(name: string) {
      const res = await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().board as { _id: string; createdAt: string };
    }

    async function createList(board: string, name: string, position?: unknown): Promise<ListRecord> {
      const res = await api('POST', '/api/v1/lists', { board, name, ...(position !== undefined ? { position } : {}) });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().list;
    }

    async function namesOf(boardId: string): Promise<string[]> {
      const res = await api('GET', `/api/v1/boards/${boardId}/lists`);
      assert.equal(res.statusCode, 200);
      const lists = res.json().board.lists as ListRecord[];
      const positions = lists.map((l) => l.position);
      assert.deepEqual(
        positions,
        [...positions].sort((a, b) => a - b),
        'answered in position order',
      );
      return lists.map((l) => l.name);
    }

    it('creates a list with the full record and reads it back', async () => {
      const board = await createBoard('Records');
      const res = await api('POST', `/api/v1/lists?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`, { board: board._id, name: ' Todo ' });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      const list = body.list;
      assertSchema(List, list);
      assert.match(list._id, ID);
      assert.equal(list.name, 'Todo');
      assert.equal(typeof list.position, 'number');
      assert.equal(list.creator, t.tenant.userId);
      assert.equal(list.company, t.tenant.companyId);
      assert.equal(list.team, t.tenant.teamId);
      assert.equal(list.board, board._id);
      assert.match(list.createdAt, ISO);
      assert.equal(list.__v, 0);
      const read = await api('GET', `/api/v1/boards/${board._id}/lists`);
      assert.deepEqual(read.json().board.lists, [list]);
    });

    it('orders lists after inserts at the bottom, the top and an index', async () => {
      const board = await createBoard('Ordering');
      await createList(board._id, 'B');
      await createList(board._id, 'D', 'bottom');
      await createList(board._id, 'A', 'top');
      assert.deepEqual(await namesOf(board._id), ['A', 'B', 'D']);
      await createList(board._id, 'C', 2);
      assert.deepEqual(await namesOf(board._id), ['A', 'B', 'C', 'D']);
      await createList(board._id, 'A0', 0);
      await createList(board._id, 'Z', 99);
      assert.deepEqual(await namesOf(board._id), ['A0', 'A', 'B', 'C', 'D', 'Z']);
    });

    it('keeps the order when many lists go into the same gap', async () => {
      const board = await createBoard('Crowded');
      await createList(board._id, 'first');
      await createList(board._id, 'last');
      const expected = ['first', 'last'];
      // each insert halves the gap after "first": enough of them forces a renumbering
      for (let i = 0; i < 40; i++) {
        await createList(board._id, `n${i}`, 1);
        expected.splice(1, 0, `n${i}`);
      }
      assert.deepEqual(await namesOf(board._id), expected);
    });

    it('renames and moves a list, growing its __v by one per change', async () => {
      const board = await createBoard('Moves');
      const a = await createList(board._id, 'A');
      const b = await createList(board._id, 'B');
      const c = await createList(board._id, 'C');

      await backdate(t.services.db, 'lists', b._id);
      const renamed = await api('PATCH', `/api/v1/lists/${b._id}`, { name: '  Bee ' });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(typeof renamed.json().message, 'string');
      const bee = renamed.json().list;
      assertSchema(List, bee);
      assert.equal(bee.name, 'Bee');
      assert.equal(bee.position, b.position);
      assert.equal(bee.__v, 1);
      await assertUpdatedAtMoved(t.services.db, 'lists', b._id, bee.updatedAt, 'a rename');
      assert.equal(bee.createdAt, b.createdAt);

      await backdate(t.services.db, 'lists', c._id);
      const top = await api('PATCH', `/api/v1/lists/${c._id}?teamId=${t.tenant.teamId}`, { position: 'top' });
      assert.equal(top.statusCode, 200);
      assert.equal(top.json().list.__v, 1);
      await assertUpdatedAtMoved(t.services.db, 'lists', c._id, top.json().list.updatedAt, 'a move');
      assert.deepEqual(await namesOf(board._id), ['C', 'A', 'Bee']);

      const moved = await api('PATCH', `/api/v1/lists/${c._id}`, { position: 1 });
      assert.equal(moved.json().list.__v, 2);
      assert.deepEqual(await namesOf(board._id), ['A', 'C', 'Bee']);

      const both = await api('PATCH', `/api/v1/lists/${a._id}`, { name: 'Ay', position: 'bottom' });
      assert.equal(both.json().list.__v, 1);
      assert.deepEqual(await namesOf(board._id), ['C', 'Bee', 'Ay']);

      const bottomAgain = await api('PATCH', `/api/v1/lists/${a._id}`, { position: 5 });
      assert.equal(bottomAgain.statusCode, 200);
      assert.deepEqual(await namesOf(board._id), ['C', 'Bee', 'Ay']);

      const read = (await api('GET', `/api/v1/boards/${board._id}/lists`)).json().board.lists as ListRecord[];
      assert.deepEqual(
        read.find((l) => l._id === a._id),
        bottomAgain.json().list,
      );
    });

    it('lists the lists of reachable boards by board, then position, narrowed by company and team', async () => {
      const one = await createBoard('One');
      const two = await createBoard('Two');
      const twoB = await createList(two._id, 'two-b');
      const oneB = await createList(one._id, 'one-b');
      const twoA = await createList(two._id, 'two-a', 'top');
      const oneA = await createList(one._id, 'one-a', 'top');
      const theirBoard = (await other.api('POST', `/api/v1/boards?teamId=${other.teamId}`, { name: 'Theirs' })).json().board;
      const theirs = (await other.api('POST', '/api/v1/lists', { board: theirBoard._id, name: 'their list' })).json().list;

      const res = await api('GET', `/api/v1/lists?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`);
      assert.equal(res.statusCode, 200);
      for (const listed of res.json().lists) assertSchema(List, listed);
      const ids = (res.json().lists as ListRecord[]).map((l) => l._id);
      assert.ok(!ids.includes(theirs._id), "another company's list is not listed");
      // boards in creation order, the id breaking a tie (both may come in one millisecond); then by position
      const boards = [one, two].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a._id.localeCompare(b._id));
      assert.deepEqual(
        ids.filter((id) => [oneA._id, oneB._id, twoA._id, twoB._id].includes(id)),
        boards.flatMap((b) => (b === one ? [oneA._id, oneB._id] : [twoA._id, twoB._id])),
      );
      assert.deepEqual((await api('GET', '/api/v1/lists')).json().lists, res.json().lists);
      assert.deepEqual((await other.api('GET', '/api/v1/lists')).json().lists, [theirs]);

      for (const query of [`teamId=${other.teamId}`, `companyId=${other.companyId}`, `companyId=${other.companyId}&teamId=${t.tenant.teamId}`]) {
        assert.equal((await api('GET', `/api/v1/lists?${query}`)).statusCode, 404, query);
      }
      assert.equal((await api('GET', '/api/v1/lists?companyId=12')).statusCode, 400);
    });

    it("keeps another company's board and lists out of reach and unchanged", async () => {
      const board = await createBoard('Guarded');
      const list = await createList(board._id, 'Mine');

      const create = await other.api('POST', '/api/v1/lists', { board: board._id, name: 'Intruder' });
      assert.equal(create.statusCode, 404);
      assert.equal(create.json().code, 'not_found');
      const patch = await other.api('PATCH', `/api/v1/lists/${list._id}`, { name: 'Hacked' });
      assert.equal(patch.statusCode, 404);
      // Get List: the list to its team, a 404 to anyone else, as for an unknown id or a scope it is not in
      assert.deepEqual((await api('GET', `/api/v1/lists/${list._id}`)).json().list, list);
      for (const [read, url] of [
        [other.api, `/api/v1/lists/${list._id}`],
        [api, `/api/v1/lists/${list._id}?companyId=${other.companyId}`],
        [api, `/api/v1/lists/${list._id}?teamId=${other.teamId}`],
        [api, `/api/v1/lists/${newId()}`],
      ] as const) {
        const res = await read('GET', url);
        assert.equal(res.statusCode, 404, url);
        assert.equal(res.json().code, 'not_found', url);
      }
      const mismatch = await api('PATCH', `/api/v1/lists/${list._id}?companyId=${other.companyId}`, { name: 'Wrong scope' });
      assert.equal(mismatch.statusCode, 404);
      const mismatchTeam = await api('POST', `/api/v1/lists?teamId=${other.teamId}`, { board: board._id, name: 'Wrong scope' });
      assert.equal(mismatchTeam.statusCode, 404);
      assert.equal((await api('PATCH', `/api/v1/lists/${newId()}`, { name: 'Ghost' })).statusCode, 404);
      assert.equal((await api('POST', '/api/v1/lists', { board: newId(), name: 'Ghost' })).statusCode, 404);

      const read = (await api('GET', `/api/v1/boards/${board._id}/lists`)).json().board.lists;
      assert.deepEqual(read, [list], 'nothing changed');
    });

    it('rejects bad list input with 400 and never 5xx', async () => {
      const board = await createBoard('Strict');
      const list = await createList(board._id, 'Only');
      const creates: [string, unknown][] = [
        ['missing name', { board: board._id }],
        ['missing board', { name: 'x' }],
        ['blank name', { board: board._id, name: ' \t ' }],
        ['number name', { board: board._id, name: 7 }],
        ['malformed board', { board: 'abc', name: 'x' }],
        ['negative position', { board: board._id, name: 'x', position: -1 }],
        ['fractional position', { board: board._id, name: 'x', position: 1.5 }],
        ['word position', { board: board._id, name: 'x', position: 'middle' }],
        ['string index position', { board: board._id, name: 'x', position: '1' }],
        ['unknown field', { board: board._id, name: 'x', cards: [] }],
      ];
      for (const [what, payload] of creates) {
        const res = await api('POST', '/api/v1/lists', payload);
        assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed', what);
        assert.equal(typeof res.json().message, 'string');
      }
      const patches: [string, string, unknown][] = [
        ['empty body', list._id, {}],
        ['blank name', list._id, { name: '' }],
        ['null name', list._id, { name: null }],
        ['bad position', list._id, { position: 'first' }],
        ['unknown field', list._id, { board: board._id }],
        ['malformed id', 'xyz', { name: 'x' }],
      ];
      for (const [what, id, payload] of patches) {
        const res = await api('PATCH', `/api/v1/lists/${id}`, payload);
        assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed', what);
      }
      const read = (await api('GET', `/api/v1/boards/${board._id}/lists`)).json().board.lists;
      assert.deepEqual(read, [list], 'nothing changed');
    });
  });
}

describeTiers('list routes', {
  engines: ENGINES,
  given: async (t, api) => (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Tiered' })).json().board,
  calls: async (api, board) => {
    const list = (await api('POST', '/api/v1/lists', { board: board._id, name: 'L' })).json().list;
    await api('PATCH', `/api/v1/lists/${list._id}`, { name: 'M' });
    await api('GET', '/api/v1/lists');
    await api('GET', `/api/v1/lists/${list._id}`);
  },
  expected: [
    ['POST /api/v1/lists', 'medium'],
    ['PATCH /api/v1/lists/:listId', 'low'],
    ['GET /api/v1/lists', 'very-low'],
    ['GET /api/v1/lists/:listId', 'very-low'],
  ],
});
