/**
 * Starred boards through the API on both engines: a person stars and unstars boards they reach
 * (again is no change and no event), lists them in the order starred, never sees another's stars,
 * gets a 404 for a board out of reach (another company's, or a team they are not in), and a board
 * they stop reaching, archive or delete leaves the list while its star waits for reach regained.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember } from '../support/fixtures.ts';
import { type Api, apiClient, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';

for (const engine of ENGINES) {
  describe(`starred boards [${engine}]`, () => {
    let t: TestApp;
    let owner: Api;
    let other: OtherCompany;
    let ana: { userId: string; api: Api };

    before(async () => {
      ({ t, api: owner, other } = await buildTwoCompanyApp(engine));
      const made = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ana@acme.test', fullName: 'Ana Lopez' });
      ana = { userId: made.userId, api: apiClient(t, made.apiKey) };
    });
    after(() => t.dispose());

    async function board(name: string, teamId = t.tenant.teamId): Promise<string> {
      const res = await owner('POST', `/api/v1/boards?teamId=${teamId}`, { name });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().board._id;
    }
    const starredBy = async (api: Api): Promise<string[]> => {
      const res = await api('GET', '/api/v1/me/starred-boards');
      assert.equal(res.statusCode, 200, res.body);
      return res.json().boards.map((one: { name: string }) => one.name);
    };
    const starEvents = async (userId: string): Promise<number> =>
      (await t.services.db.selectFrom('events').select('id').where('type', 'in', ['board.starred', 'board.unstarred']).where('user_id', '=', userId).execute())
        .length;

    it('stars and unstars, in the order starred; again is no change and no event; each person their own', async () => {
      const roadmap = await board('Roadmap');
      const hiring = await board('Hiring');
      assert.deepEqual(await starredBy(ana.api), []);
      const first = await ana.api('POST', `/api/v1/boards/${hiring}/star`);
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().starred, true);
      assert.equal((await ana.api('POST', `/api/v1/boards/${roadmap}/star`)).statusCode, 200);
      assert.equal((await ana.api('POST', `/api/v1/boards/${hiring}/star`)).statusCode, 200);
      assert.deepEqual(await starredBy(ana.api), ['Hiring', 'Roadmap']);
      assert.equal(await starEvents(ana.userId), 2, 'starring again records nothing');
      assert.deepEqual(await starredBy(owner), [], 'a star is its person’s own');

      const off = await ana.api('DELETE', `/api/v1/boards/${hiring}/star`);
      assert.equal(off.statusCode, 200, off.body);
      assert.equal(off.json().starred, false);
      assert.equal((await ana.api('DELETE', `/api/v1/boards/${hiring}/star`)).statusCode, 200);
      assert.deepEqual(await starredBy(ana.api), ['Roadmap']);
      assert.equal(await starEvents(ana.userId), 3);
      const stored = await t.services.db.selectFrom('board_stars').select('board_id').where('user_id', '=', ana.userId).execute();
      assert.deepEqual(
        stored.map((row) => row.board_id),
        [roadmap],
        'the list is what the table holds',
      );
      // the board itself did not change
      const read = await owner('GET', `/api/v1/boards/${roadmap}/lists`);
      assert.equal(read.json().board.__v, 0);
    });

    it("another company's board, or one of a team the person is not in, is a 404 and stars nothing", async () => {
      const theirs = (await other.api('POST', `/api/v1/boards?teamId=${other.teamId}`, { name: 'Secret' })).json().board._id;
      const team = (await owner('POST', `/api/v1/teams?companyId=${t.tenant.companyId}`, { name: 'Board room' })).json().team._id;
      const closed = await board('Closed doors', team);
      for (const id of [theirs, closed]) {
        const res = await ana.api('POST', `/api/v1/boards/${id}/star`);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal((await ana.api('DELETE', `/api/v1/boards/${id}/star`)).statusCode, 404);
      }
      assert.equal((await ana.api('POST', '/api/v1/boards/not-an-id/star')).statusCode, 400);
      assert.equal(
        (await t.services.db.selectFrom('board_stars').select('board_id').where('board_id', 'in', [theirs, closed]).execute()).length,
        0,
        'nothing written',
      );
    });

    it('a board out of reach, archived or deleted leaves the list; reach regained brings its star back', async () => {
      const bo = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'bo@acme.test', fullName: 'Bo Chen' });
      const boApi = apiClient(t, bo.apiKey);
      const kept = await board('Kept');
      const archived = await board('Archived later');
      const deleted = await board('Deleted later');
      for (const id of [kept, archived, deleted]) assert.equal((await boApi('POST', `/api/v1/boards/${id}/star`)).statusCode, 200);
      assert.deepEqual(await starredBy(boApi), ['Kept', 'Archived later', 'Deleted later']);

      assert.equal((await owner('PATCH', `/api/v1/boards/${archived}/archive`)).statusCode, 200);
      assert.equal((await owner('DELETE', `/api/v1/boards/${deleted}`)).statusCode, 200);
      assert.deepEqual(await starredBy(boApi), ['Kept']);

      assert.equal((await owner('DELETE', `/api/v1/teams/${t.tenant.teamId}/members/${bo.userId}`)).statusCode, 200);
      assert.deepEqual(await starredBy(boApi), []);
      assert.equal((await owner('POST', `/api/v1/teams/${t.tenant.teamId}/members`, { userId: bo.userId })).statusCode, 200);
      assert.deepEqual(await starredBy(boApi), ['Kept']);
    });
  });
}
