/**
 * A board of a team the caller is not in (docs/decisions/0261-not-shared-with-you.md): a member of
 * its company gets a 404 that says the board is not shared with them, its team and whom to ask;
 * anyone outside the company, a key limited to other teams, and a board that does not exist get the
 * same plain 404, so nothing tells another company's board exists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { addMember, addTeam } from '../support/fixtures.ts';
import { type Api, apiClient, bearer, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';

for (const engine of ENGINES) {
  describe(`a board not shared with the caller [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let boardId: string;
    let mia: Api;
    let miaKey: string;

    before(async () => {
      ({ t, api, other } = await buildTwoCompanyApp(engine));
      // Olive (owner) and Adam (admin) run the company; Mia is in the team Design, not in Core
      await addMember(t.services, { companyId: t.tenant.companyId, email: 'adam@acme.test', fullName: 'Adam Admin', role: 'admin' });
      const member = await addMember(t.services, { companyId: t.tenant.companyId, email: 'mia@acme.test', fullName: 'Mia Member' });
      await addTeam(t.services, t.tenant.companyId, 'Design', [member.userId]);
      miaKey = member.apiKey;
      mia = apiClient(t, member.apiKey);
      boardId = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Secret roadmap' })).json().board._id;
    });
    after(() => t.dispose());

    it('tells a member of the company that the board is not shared with them, and whom to ask', async () => {
      for (const path of [`/api/v1/boards/${boardId}`, `/api/v1/boards/${boardId}/card-faces`, `/api/v1/boards/${boardId}/labels`]) {
        const res = await mia('GET', path);
        assert.equal(res.statusCode, 404, path);
        const body = res.json();
        assert.equal(body.code, 'not_found');
        assert.equal(body.details.length, 1);
        const [detail] = body.details;
        assert.equal(detail.reason, 'not-shared', path);
        assert.equal(detail.field, 'boardId');
        assert.equal(detail.teamName, 'Core');
        assert.equal(detail.companyName, 'Acme');
        assert.deepEqual(
          detail.askPeople.map((person: { fullName: string; role: string }) => [person.fullName, person.role]),
          [
            ['Olive Owner', 'owner'],
            ['Adam Admin', 'admin'],
          ],
        );
        // the board's own name is not told
        assert.ok(!JSON.stringify(body).includes('Secret roadmap'));
      }
      // a write on the board says so too
      const list = await mia('POST', '/api/v1/lists', { board: boardId, name: 'Mine' });
      assert.equal(list.statusCode, 404);
      assert.equal(list.json().details[0].reason, 'not-shared');
    });

    it('stays a plain 404 outside the company, for a key limited to other teams, and for no board', async () => {
      const missing: Record<string, unknown> = (await mia('GET', `/api/v1/boards/${newId()}`)).json();
      assert.equal(missing.details, undefined);
      const stranger = await other.api('GET', `/api/v1/boards/${boardId}`);
      assert.equal(stranger.statusCode, 404);
      const strangers: Record<string, unknown> = stranger.json();
      assert.deepEqual({ ...strangers, requestId: '' }, { ...missing, requestId: '' });

      // a key limited to Mia's own team (Design)
      const designId = (await mia('GET', '/api/v1/teams')).json().teams.find((team: { name: string }) => team.name === 'Design')._id;
      const limited = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: bearer(miaKey), payload: { name: 'design', teams: [designId] } });
      assert.equal(limited.statusCode, 201, limited.body);
      const viaLimited = await t.app.inject({ method: 'GET', url: `/api/v1/boards/${boardId}`, headers: bearer(limited.json().token) });
      assert.equal(viaLimited.statusCode, 404);
      assert.equal(viaLimited.json().details, undefined);

      // a scope that names another team of the company keeps the plain 404 too
      const scoped = await mia('GET', `/api/v1/boards/${boardId}?teamId=${designId}`);
      assert.equal(scoped.statusCode, 404);
      assert.equal(scoped.json().details, undefined);
    });

    it('gives the board once the member joins its team', async () => {
      const joined = await api('POST', `/api/v1/teams/${t.tenant.teamId}/members`, { userId: (await mia('GET', '/api/v1/me')).json().user._id });
      assert.ok(joined.statusCode < 300, joined.body);
      const res = await mia('GET', `/api/v1/boards/${boardId}`);
      assert.equal(res.statusCode, 200, res.body);
    });
  });
}
