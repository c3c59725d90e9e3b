import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { Team } from '../../src/schemas/records.ts';
import { addMember, addTeam, cardRow, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';
import { assertUpdatedAtMoved, backdate } from '../support/updated-at.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface TeamRecord {
  _id: string;
  name: string;
  company: string;
  creator: string;
  members: { _id: string; fullName: string; photoUrl: string }[];
  createdAt: string;
  updatedAt: string;
  __v: number;
}

const memberIds = (team: TeamRecord) => team.members.map((m) => m._id);

for (const engine of ENGINES) {
  describe(`teams [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let seq = 0;

    before(async () => ({ t, api, other } = await buildTwoCompanyApp(engine)));
    after(() => t.dispose());

    /** A fresh plain member of Acme (in the given teams), with a client. */
    async function person(role: 'owner' | 'admin' | 'member' = 'member', teamIds: string[] = []) {
      seq += 1;
      const m = await addMember(t.services, { companyId: t.tenant.companyId, teamIds, email: `p${seq}@acme.test`, fullName: `Person ${seq}`, role });
      return { ...m, api: apiClient(t, m.apiKey) };
    }

    async function teamState(teamId: string) {
      const db = t.services.db;
      return {
        team: await db.selectFrom('teams').selectAll().where('id', '=', teamId).executeTakeFirst(),
        members: (await db.selectFrom('team_members').select('user_id').where('team_id', '=', teamId).orderBy('user_id').execute()).map((m) => m.user_id),
      };
    }

    async function allTeams() {
      return t.services.db.selectFrom('teams').selectAll().orderBy('id').execute();
    }

    it("lists only the caller's teams, with their members, narrowed by company", async () => {
      const res = await api('GET', '/api/v1/teams');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');
      const [core, ...rest] = res.json().teams;
      assert.equal(rest.length, 0, "another company's team is not listed");
      const team: TeamRecord = assertSchema(Team, core);
      assert.equal(team._id, t.tenant.teamId);
      assert.equal(team.name, 'Core');
      assert.equal(team.company, t.tenant.companyId);
      assert.equal(team.creator, t.tenant.userId);
      assert.deepEqual(team.members, [{ _id: t.tenant.userId, fullName: 'Olive Owner', photoUrl: '' }]);
      assert.match(team.createdAt, ISO);

      // the owner reaches a team it is not in, but it is not one of "its" teams
      const outsider = await person();
      const hidden = await addTeam(t.services, t.tenant.companyId, 'Hidden', [outsider.userId]);
      const mine = (await api('GET', `/api/v1/teams?companyId=${t.tenant.companyId}`)).json().teams;
      assert.deepEqual(
        mine.map((x: TeamRecord) => x._id),
        [t.tenant.teamId],
      );
      const theirs = (await outsider.api('GET', '/api/v1/teams')).json().teams;
      assert.deepEqual(
        theirs.map((x: TeamRecord) => x._id),
        [hidden],
      );

      // a user in two companies sees both companies' teams, or one company's when asked
      await t.services.db
        .insertInto('company_members')
        .values({ company_id: other.companyId, user_id: outsider.userId, role: 'member', created_at: new Date().toISOString() })
        .execute();
      await t.services.db
        .insertInto('team_members')
        .values({ team_id: other.teamId, user_id: outsider.userId, created_at: new Date().toISOString() })
        .execute();
      const both = (await outsider.api('GET', '/api/v1/teams')).json().teams;
      assert.deepEqual(both.map((x: TeamRecord) => x._id).sort(), [hidden, other.teamId].sort());
      const onlyGlobex = (await outsider.api('GET', `/api/v1/teams?companyId=${other.companyId}`)).json().teams;
      assert.deepEqual(
        onlyGlobex.map((x: TeamRecord) => x._id),
        [other.teamId],
      );
      assert.deepEqual(memberIds(assertSchema(Team, onlyGlobex[0])), [other.userId, outsider.userId], 'members in the order they joined');
    });

    it("answers 404 for a company that is not the caller's, 400 for bad query parameters", async () => {
      const foreign = await api('GET', `/api/v1/teams?companyId=${other.companyId}`);
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().code, 'not_found');
      assert.equal((await api('GET', `/api/v1/teams?companyId=${newId()}`)).statusCode, 404);
      const malformed = await api('GET', '/api/v1/teams?companyId=nope');
      assert.equal(malformed.statusCode, 400);
      assert.equal(malformed.json().details[0].field, 'querystring.companyId');
      assert.equal((await api('GET', `/api/v1/teams?teamId=${t.tenant.teamId}`)).statusCode, 400);
    });

    it('lets any company member create a team, which it joins as first member', async () => {
      const plain = await person();
      const res = await plain.api('POST', `/api/v1/teams?companyId=${t.tenant.companyId}`, { name: '  Design ' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(typeof res.json().message, 'string');
      const team: TeamRecord = assertSchema(Team, res.json().team);
      assert.equal(team.name, 'Design');
      assert.equal(team.company, t.tenant.companyId);
      assert.equal(team.creator, plain.userId);
      assert.deepEqual(team.members, [{ _id: plain.userId, fullName: `Person ${seq}`, photoUrl: '' }]);
      assert.equal(team.__v, 0);
      assert.equal(team.updatedAt, team.createdAt);
      assert.deepEqual(Object.keys(team).sort(), ['__v', '_id', 'company', 'createdAt', 'creator', 'members', 'name', 'updatedAt']);

      const listed = (await plain.api('GET', '/api/v1/teams')).json().teams;
      assert.deepEqual(listed, [team]);
      // the creator works in it at once
      const board = await plain.api('POST', `/api/v1/boards?teamId=${team._id}`, { name: 'B' });
      assert.equal(board.statusCode, 201, board.body);
    });

    it('refuses a team in a company the caller is not in (404) and bad input (400), creating nothing', async () => {
      const before = await allTeams();
      for (const url of [`/api/v1/teams?companyId=${other.companyId}`, `/api/v1/teams?companyId=${newId()}`]) {
        const res = await api('POST', url, { name: 'Sneaky' });
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().code, 'not_found');
      }
      const cases: [string, unknown, string][] = [
        ['/api/v1/teams', { name: 'x' }, 'querystring.companyId'],
        ['/api/v1/teams?companyId=bad', { name: 'x' }, 'querystring.companyId'],
        [`/api/v1/teams?companyId=${t.tenant.companyId}`, {}, 'body.name'],
        [`/api/v1/teams?companyId=${t.tenant.companyId}`, { name: ' ' }, 'body.name'],
        [`/api/v1/teams?companyId=${t.tenant.companyId}`, { name: 7 }, 'body.name'],
        [`/api/v1/teams?companyId=${t.tenant.companyId}`, { name: 'x', members: [] }, 'body.members'],
      ];
      for (const [url, body, field] of cases) {
        const res = await api('POST', url, body);
        assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(body)}: ${res.body}`);
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          res.body,
        );
      }
      assert.deepEqual(await allTeams(), before);
    });

    it('adds a company member to the team: answers the team with its members and a grown __v', async () => {
      const teamId = await addTeam(t.services, t.tenant.companyId, 'Adders', [t.tenant.userId]);
      const newcomer = await person();
      await backdate(t.services.db, 'teams', teamId);
      const res = await api('POST', `/api/v1/teams/${teamId}/members?companyId=${t.tenant.companyId}&teamId=${teamId}`, { userId: newcomer.userId });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');
      const team: TeamRecord = assertSchema(Team, res.json().team);
      assert.deepEqual(memberIds(team), [t.tenant.userId, newcomer.userId]);
      assert.equal(team.__v, 1);
      await assertUpdatedAtMoved(t.services.db, 'teams', teamId, team.updatedAt, 'adding a member');
      assert.deepEqual((await teamState(teamId)).members, [t.tenant.userId, newcomer.userId].sort());
      // the new member reaches the team's boards from its next request
      const board = await seedBoard(t.services, { companyId: t.tenant.companyId, teamId, userId: t.tenant.userId });
      assert.equal((await newcomer.api('GET', `/api/v1/boards/${board.boardId}`)).statusCode, 200);

      // a plain team member adds too
      const third = await person();
      const byMember = await newcomer.api('POST', `/api/v1/teams/${teamId}/members`, { userId: third.userId });
      assert.equal(byMember.statusCode, 200, byMember.body);
      assert.equal(byMember.json().team.__v, 2);
      // and a company admin who is not in the team
      const admin = await person('admin');
      const fourth = await person();
      const byAdmin = await admin.api('POST', `/api/v1/teams/${teamId}/members`, { userId: fourth.userId });
      assert.equal(byAdmin.statusCode, 200, byAdmin.body);
      assert.deepEqual(memberIds(byAdmin.json().team), [t.tenant.userId, newcomer.userId, third.userId, fourth.userId]);
    });

    it('refuses users outside the company (404), members already in (409), and outsiders (404), changing nothing', async () => {
      const teamId = await addTeam(t.services, t.tenant.companyId, 'Guarded', [t.tenant.userId]);
      const plainOutsideTeam = await person();
      const before = await teamState(teamId);

      const stranger = await api('POST', `/api/v1/teams/${teamId}/members`, { userId: other.userId });
      assert.equal(stranger.statusCode, 404, stranger.body);
      assert.equal(stranger.json().details[0].field, 'body.userId');
      assert.equal((await api('POST', `/api/v1/teams/${teamId}/members`, { userId: newId() })).statusCode, 404);
      const twice = await api('POST', `/api/v1/teams/${teamId}/members`, { userId: t.tenant.userId });
      assert.equal(twice.statusCode, 409, twice.body);
      assert.equal(twice.json().code, 'conflict');

      for (const [client, url] of [
        [other.api, `/api/v1/teams/${teamId}/members`],
        [plainOutsideTeam.api, `/api/v1/teams/${teamId}/members`],
        [api, `/api/v1/teams/${newId()}/members`],
        [api, `/api/v1/teams/${teamId}/members?companyId=${other.companyId}`],
        [api, `/api/v1/teams/${teamId}/members?teamId=${t.tenant.teamId}`],
      ] as const) {
        const res = await client('POST', url, { userId: plainOutsideTeam.userId });
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      // another company's owner cannot add its own people to our team either
      assert.equal((await other.api('POST', `/api/v1/teams/${teamId}/members`, { userId: other.userId })).statusCode, 404);
      assert.deepEqual(await teamState(teamId), before, 'members and __v unchanged');
    });

    it('rejects bad team member input with 400 and details', async () => {
      const before = await teamState(t.tenant.teamId);
      const cases: [string, 'POST' | 'DELETE', unknown, string][] = [
        ['/api/v1/teams/bad/members', 'POST', { userId: t.tenant.userId }, 'params.teamId'],
        [`/api/v1/teams/${t.tenant.teamId}/members`, 'POST', {}, 'body.userId'],
        [`/api/v1/teams/${t.tenant.teamId}/members`, 'POST', { userId: 'abc' }, 'body.userId'],
        [`/api/v1/teams/${t.tenant.teamId}/members`, 'POST', { userId: [t.tenant.userId] }, 'body.userId'],
        [`/api/v1/teams/${t.tenant.teamId}/members`, 'POST', { userId: t.tenant.userId, role: 'x' }, 'body.role'],
        [`/api/v1/teams/${t.tenant.teamId}/members/bad`, 'DELETE', undefined, 'params.userId'],
        [`/api/v1/teams/bad/members/${t.tenant.userId}`, 'DELETE', undefined, 'params.teamId'],
        [`/api/v1/teams/${t.tenant.teamId}/members/${t.tenant.userId}?companyId=1`, 'DELETE', undefined, 'querystring.companyId'],
      ];
      for (const [url, method, body, field] of cases) {
        const res = await api(method, url, body);
        assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          res.body,
        );
      }
      assert.deepEqual(await teamState(t.tenant.teamId), before);
    });

    it("removes a member, who loses the team's boards and cards at its next request", async () => {
      const member = await person();
      const teamId = await addTeam(t.services, t.tenant.companyId, 'Leavers', [t.tenant.userId, member.userId]);
      const board = await seedBoard(t.services, { companyId: t.tenant.companyId, teamId, userId: t.tenant.userId });
      const listId = board.listIds[0] as string;
      const card = cardRow({ _id: listId, board: board.boardId, company: t.tenant.companyId, team: teamId }, t.tenant.userId, 'Card', 1024);
      await t.services.db.insertInto('cards').values(card).execute();
      assert.equal((await member.api('GET', `/api/v1/boards/${board.boardId}`)).statusCode, 200);
      assert.equal((await member.api('GET', `/api/v1/cards/${card.id}`)).statusCode, 200);

      await backdate(t.services.db, 'teams', teamId);
      const res = await api('DELETE', `/api/v1/teams/${teamId}/members/${member.userId}?teamId=${teamId}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');
      const team: TeamRecord = assertSchema(Team, res.json().team);
      assert.deepEqual(memberIds(team), [t.tenant.userId]);
      assert.equal(team.__v, 1);
      await assertUpdatedAtMoved(t.services.db, 'teams', teamId, team.updatedAt, 'removing a member');

      for (const url of [`/api/v1/boards/${board.boardId}`, `/api/v1/boards/${board.boardId}/lists`, `/api/v1/cards/${card.id}`]) {
        const after = await member.api('GET', url);
        assert.equal(after.statusCode, 404, `${url}: ${after.body}`);
        assert.equal(after.json().code, 'not_found');
      }
      assert.equal((await member.api('PATCH', `/api/v1/lists/${listId}`, { name: 'x' })).statusCode, 404);
      assert.deepEqual((await member.api('GET', '/api/v1/teams')).json().teams, []);
      assert.deepEqual((await member.api('GET', `/api/v1/boards?teamId=${teamId}`)).statusCode, 404);
      // and cannot add itself back
      assert.equal((await member.api('POST', `/api/v1/teams/${teamId}/members`, { userId: member.userId })).statusCode, 404);
      // removing it again: it is no longer a member
      const again = await api('DELETE', `/api/v1/teams/${teamId}/members/${member.userId}`);
      assert.equal(again.statusCode, 404);
      assert.equal((await teamState(teamId)).team?.version, 1);
    });

    it('lets a member leave, and keeps a removed company admin reaching the team', async () => {
      const leaver = await person();
      const admin = await person('admin');
      const teamId = await addTeam(t.services, t.tenant.companyId, 'Mixed', [leaver.userId, admin.userId]);
      const board = await seedBoard(t.services, { companyId: t.tenant.companyId, teamId, userId: leaver.userId });

      const left = await leaver.api('DELETE', `/api/v1/teams/${teamId}/members/${leaver.userId}`);
      assert.equal(left.statusCode, 200, left.body);
      assert.deepEqual(memberIds(left.json().team), [admin.userId]);
      assert.equal((await leaver.api('GET', `/api/v1/boards/${board.boardId}`)).statusCode, 404);

      const removedAdmin = await api('DELETE', `/api/v1/teams/${teamId}/members/${admin.userId}`);
      assert.equal(removedAdmin.statusCode, 200, removedAdmin.body);
      assert.deepEqual(removedAdmin.json().team.members, []);
      assert.equal((await admin.api('GET', `/api/v1/boards/${board.boardId}`)).statusCode, 200, 'admins reach the whole company');
    });

    it('refuses removals by outsiders and of non-members (404), changing nothing', async () => {
      const member = await person();
      const plainOutsideTeam = await person();
      const teamId = await addTeam(t.services, t.tenant.companyId, 'Kept', [t.tenant.userId, member.userId]);
      const before = await teamState(teamId);
      for (const [client, url] of [
        [other.api, `/api/v1/teams/${teamId}/members/${member.userId}`],
        [plainOutsideTeam.api, `/api/v1/teams/${teamId}/members/${member.userId}`],
        [api, `/api/v1/teams/${newId()}/members/${member.userId}`],
        [api, `/api/v1/teams/${teamId}/members/${plainOutsideTeam.userId}`],
        [api, `/api/v1/teams/${teamId}/members/${newId()}`],
        [api, `/api/v1/teams/${teamId}/members/${member.userId}?companyId=${other.companyId}`],
      ] as const) {
        const res = await client('DELETE', url);
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      assert.deepEqual(await teamState(teamId), before);
    });

    it('applies concurrent membership changes one after another: one __v step each, one 200 per user', async () => {
      const teamId = await addTeam(t.services, t.tenant.companyId, 'Busy', [t.tenant.userId]);
      const people = await Promise.all(Array.from({ length: 5 }, () => person()));
      const added = await Promise.all(people.map((p) => api('POST', `/api/v1/teams/${teamId}/members`, { userId: p.userId })));
      assert.deepEqual(
        added.map((r) => r.statusCode),
        [200, 200, 200, 200, 200],
        added.map((r) => r.body).join('\n'),
      );
      assert.deepEqual(added.map((r) => r.json().team.__v).sort(), [1, 2, 3, 4, 5], 'each answer shows its own change');
      const state = await teamState(teamId);
      assert.equal(state.team?.version, 5);
      assert.equal(state.members.length, 6);

      const newcomer = await person();
      const same = await Promise.all(Array.from({ length: 4 }, () => api('POST', `/api/v1/teams/${teamId}/members`, { userId: newcomer.userId })));
      assert.deepEqual(same.map((r) => r.statusCode).sort(), [200, 409, 409, 409]);
      assert.equal((await teamState(teamId)).team?.version, 6, 'refused adds leave __v alone');

      const removed = await Promise.all(people.map((p) => api('DELETE', `/api/v1/teams/${teamId}/members/${p.userId}`)));
      assert.deepEqual(
        removed.map((r) => r.statusCode),
        [200, 200, 200, 200, 200],
      );
      const end = await teamState(teamId);
      assert.deepEqual(end.members, [t.tenant.userId, newcomer.userId].sort());
      assert.equal(end.team?.version, 11);
    });
  });
}

describeTiers('team routes', {
  engines: ['sqlite'],
  given: (t) => addMember(t.services, { companyId: t.tenant.companyId, email: 'm@acme.test' }),
  calls: async (api, member, t) => {
    await api('GET', '/api/v1/teams');
    const team = (await api('POST', `/api/v1/teams?companyId=${t.tenant.companyId}`, { name: 'T' })).json().team;
    await api('POST', `/api/v1/teams/${team._id}/members`, { userId: member.userId });
    await api('DELETE', `/api/v1/teams/${team._id}/members/${member.userId}`);
  },
  expected: [
    ['GET /api/v1/teams', 'very-low'],
    ['POST /api/v1/teams', 'high'],
    ['POST /api/v1/teams/:teamId/members', 'high'],
    ['DELETE /api/v1/teams/:teamId/members/:userId', 'high'],
  ],
});
