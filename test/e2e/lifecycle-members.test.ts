/**
 * The life of companies, teams and their members (issue 15), on both engines: renaming, changing
 * roles, removing and leaving, the last-owner rule, the 404 rule, and Update Me shown wherever the
 * user appears.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type ApiWorld, apiWorld } from '../support/api-world.ts';
import { addMember, type MemberFixture } from '../support/fixtures.ts';
import { type Api, apiClient, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { holdLocks } from '../support/held-locks.ts';
import { describeTiers } from '../support/tiers.ts';

for (const engine of ENGINES) {
  describe(`companies, teams and members over their life [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let world: ApiWorld;
    let people = 0;

    before(async () => {
      ({ t, api, other } = await buildTwoCompanyApp(engine));
      world = await apiWorld(t);
    });
    after(() => t.dispose());

    async function expect(method: string, url: string, status: number, payload?: unknown, as = api) {
      const res = await as(method as 'GET', url, payload);
      assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
      return res.json();
    }

    async function person(role: 'owner' | 'admin' | 'member', fullName?: string): Promise<MemberFixture & { api: Api }> {
      people += 1;
      const member = await addMember(t.services, {
        companyId: t.tenant.companyId,
        teamIds: [t.tenant.teamId],
        email: `p${people}@acme.test`,
        role,
        ...(fullName ? { fullName } : {}),
      });
      return { ...member, api: apiClient(t, member.apiKey) };
    }

    const company = () => `/api/v1/companies/${t.tenant.companyId}`;

    it('Update Company and Update Team: owners and admins; members 403; another company 404', async () => {
      const admin = await person('admin');
      const member = await person('member');
      const renamed = (await expect('PATCH', company(), 200, { name: ' Acme Inc ' }, admin.api)).company;
      assert.deepEqual([renamed.name, renamed.role, renamed.__v], ['Acme Inc', 'admin', 1]);
      await expect('PATCH', company(), 403, { name: 'x' }, member.api);
      await expect('PATCH', company(), 404, { name: 'x' }, other.api);
      const team = (await expect('PATCH', `/api/v1/teams/${t.tenant.teamId}`, 200, { name: 'Core team' })).team;
      assert.equal(team.name, 'Core team');
      await expect('PATCH', `/api/v1/teams/${t.tenant.teamId}`, 403, { name: 'x' }, member.api);
      await expect('PATCH', `/api/v1/teams/${t.tenant.teamId}`, 404, { name: 'x' }, other.api);
      assert.equal((await expect('GET', '/api/v1/companies', 200)).companies.find((c: { _id: string }) => c._id === t.tenant.companyId).name, 'Acme Inc');
    });

    it('Change Company Member Role: owners change anyone, admins members only; the last owner stays (409)', async () => {
      const admin = await person('admin');
      const member = await person('member');
      const target = await person('member');
      await expect('PATCH', `${company()}/members/${target.userId}`, 403, { role: 'admin' }, member.api);
      await expect('PATCH', `${company()}/members/${target.userId}`, 404, { role: 'admin' }, other.api);
      await expect('PATCH', `${company()}/members/${other.userId}`, 404, { role: 'admin' });
      await expect('PATCH', `${company()}/members/${target.userId}`, 403, { role: 'owner' }, admin.api);
      assert.equal((await expect('PATCH', `${company()}/members/${target.userId}`, 200, { role: 'admin' }, admin.api)).member.role, 'admin');
      await expect('PATCH', `${company()}/members/${target.userId}`, 403, { role: 'member' }, admin.api);

      // the tenant's owner is the only owner: it cannot step down until another is made
      await expect('PATCH', `${company()}/members/${t.tenant.userId}`, 409, { role: 'admin' });
      await expect('PATCH', `${company()}/members/${target.userId}`, 200, { role: 'owner' });
      assert.equal((await expect('PATCH', `${company()}/members/${t.tenant.userId}`, 200, { role: 'admin' }, target.api)).member.role, 'admin');
      await expect('PATCH', `${company()}/members/${target.userId}`, 409, { role: 'member' }, target.api);
      await expect('PATCH', `${company()}/members/${t.tenant.userId}`, 200, { role: 'owner' }, target.api);
      await expect('PATCH', `${company()}/members/${target.userId}`, 200, { role: 'member' });
    });

    it('two owners demoting each other at once: one wins, the other is a 409, an owner remains', async () => {
      const first = await person('owner');
      const second = await person('owner');
      // the tenant steps down first, so these two are the only owners
      await expect('PATCH', `${company()}/members/${t.tenant.userId}`, 200, { role: 'admin' }, first.api);
      const demote = () => [
        first.api('PATCH', `${company()}/members/${second.userId}`, { role: 'member' }),
        second.api('PATCH', `${company()}/members/${first.userId}`, { role: 'member' }),
      ];
      let answers;
      if (engine === 'postgres') {
        // Force the worst interleaving: a side transaction holds both membership rows, so each request
        // gets as far as writing its change before either commits (SQLite runs one writer at a time).
        const holder = await holdLocks(t.services.db, (trx) =>
          sql`select 1 from company_members where company_id = ${t.tenant.companyId} and user_id in (${first.userId}, ${second.userId}) for update`.execute(
            trx,
          ),
        );
        const holderPid = holder.pid;
        const requests = demote();
        let settled = 0;
        for (const request of requests) void request.finally(() => (settled += 1));
        try {
          let waiting = 0;
          while (settled === 0 && waiting < 2) {
            // waiting for the holder, or for a request that waits for it
            const { rows } = await sql<{ n: number }>`
              select count(*)::int as n from pg_stat_activity a
              where ${holderPid} = any(pg_blocking_pids(a.pid))
                 or exists (select 1 from pg_stat_activity b where ${holderPid} = any(pg_blocking_pids(b.pid)) and b.pid = any(pg_blocking_pids(a.pid)))`.execute(
              t.services.db,
            );
            waiting = rows[0]!.n;
          }
          assert.equal(waiting, 2, `both requests wait (${waiting} waiting, ${settled} settled)`);
        } finally {
          await holder.release();
        }
        answers = await Promise.all(requests);
      } else {
        answers = await Promise.all(demote());
      }
      assert.deepEqual(answers.map((res) => res.statusCode).sort(), [200, 409]);
      const owners = await t.services.db
        .selectFrom('company_members')
        .select('user_id')
        .where('company_id', '=', t.tenant.companyId)
        .where('role', '=', 'owner')
        .execute();
      assert.equal(owners.length, 1);
      const winner = owners[0]!.user_id === first.userId ? first : second;
      // back to the tenant as the only owner, for the tests after this one
      await expect('PATCH', `${company()}/members/${t.tenant.userId}`, 200, { role: 'owner' }, winner.api);
      await expect('PATCH', `${company()}/members/${winner.userId}`, 200, { role: 'member' });
    });

    it('Remove Company Member: loses reach from its next request, leaves its teams, its writing stays with its name', async () => {
      const admin = await person('admin');
      const writer = await person('member', 'Wendy Writer');
      await expect('POST', `/api/v1/cards/${world.cardId}/comments`, 201, { content: 'mine' }, writer.api);
      await expect('GET', `/api/v1/boards/${world.boardId}`, 200, undefined, writer.api);

      await expect('DELETE', `${company()}/members/${writer.userId}`, 403, undefined, (await person('member')).api);
      await expect('DELETE', `${company()}/members/${writer.userId}`, 404, undefined, other.api);
      await expect('DELETE', `${company()}/members/${t.tenant.userId}`, 403, undefined, admin.api);
      const removed = (await expect('DELETE', `${company()}/members/${writer.userId}`, 200, undefined, admin.api)).member;
      assert.equal(removed.fullName, 'Wendy Writer');
      await expect('GET', `/api/v1/boards/${world.boardId}`, 404, undefined, writer.api);
      await expect('GET', `/api/v1/companies`, 200, undefined, writer.api);
      const team = (await expect('GET', `/api/v1/teams?companyId=${t.tenant.companyId}`, 200)).teams.find((x: { _id: string }) => x._id === t.tenant.teamId);
      assert.ok(!team.members.some((m: { _id: string }) => m._id === writer.userId), 'out of its teams too');
      const comments = (await expect('GET', `/api/v1/cards/${world.cardId}/comments`, 200)).comments;
      const kept = comments.find((c: { content: string }) => c.content === 'mine');
      assert.ok(kept, 'the comment stays');
      assert.equal(JSON.stringify(kept).includes('Wendy Writer'), true, 'with its name');
      await expect('DELETE', `${company()}/members/${writer.userId}`, 404, undefined, admin.api);
      // the last owner cannot be removed, nor leave
      await expect('DELETE', `${company()}/members/${t.tenant.userId}`, 409);
      await expect('DELETE', `${company()}/members/me`, 409);
      const types = (await t.services.db.selectFrom('events').select('type').execute()).map((e) => e.type);
      assert.ok(types.includes('member.removed'));
    });

    it('Leave Team and Leave Company: the member goes; a second leave is a 404', async () => {
      const leaver = await person('member');
      await expect('DELETE', `/api/v1/teams/${t.tenant.teamId}/members/me`, 404, undefined, other.api);
      const team = (await expect('DELETE', `/api/v1/teams/${t.tenant.teamId}/members/me`, 200, undefined, leaver.api)).team;
      assert.ok(!team.members.some((m: { _id: string }) => m._id === leaver.userId));
      await expect('GET', `/api/v1/boards/${world.boardId}`, 404, undefined, leaver.api);
      await expect('DELETE', `/api/v1/teams/${t.tenant.teamId}/members/me`, 404, undefined, leaver.api);
      await expect('DELETE', `${company()}/members/me`, 200, undefined, leaver.api);
      assert.deepEqual((await expect('GET', '/api/v1/companies', 200, undefined, leaver.api)).companies, []);
      await expect('DELETE', `${company()}/members/me`, 404, undefined, leaver.api);
    });

    it('Update Me changes the name and photo every record shows', async () => {
      const me = (await expect('PATCH', '/api/v1/me', 200, { fullName: ' Olivia Owner ', photoUrl: 'https://img.test/o.png' })).user;
      assert.deepEqual([me.fullName, me.photoUrl], ['Olivia Owner', 'https://img.test/o.png']);
      await expect('PATCH', '/api/v1/me', 400, {});
      await expect('POST', `/v2/cards/${world.cardId}/members`, 200, { members: [t.tenant.userId] });
      const card = (await expect('GET', `/api/v1/cards/${world.cardId}`, 200)).card;
      assert.ok(JSON.stringify(card.members).includes('Olivia Owner'), JSON.stringify(card.members));
      const team = (await expect('GET', `/api/v1/teams`, 200)).teams.find((x: { _id: string }) => x._id === t.tenant.teamId);
      assert.ok(JSON.stringify(team.members).includes('Olivia Owner'));
      assert.equal((await expect('GET', '/api/v1/me', 200)).user.fullName, 'Olivia Owner');
    });
  });
}

describeTiers('the member operations', {
  engines: ['sqlite'],
  given: async (t) => ({
    member: await addMember(t.services, { companyId: t.tenant.companyId, email: 'm@acme.test' }),
    owner: await addMember(t.services, { companyId: t.tenant.companyId, email: 'o@acme.test', role: 'owner' }),
  }),
  calls: async (api, given, t) => {
    await api('PATCH', `/api/v1/companies/${t.tenant.companyId}/members/${given.member.userId}`, { role: 'admin' });
    await api('DELETE', `/api/v1/companies/${t.tenant.companyId}/members/${given.member.userId}`);
    await api('DELETE', `/api/v1/companies/${t.tenant.companyId}/members/me`);
  },
  expected: [
    ['PATCH /api/v1/companies/:companyId/members/:userId', 'secure'],
    ['DELETE /api/v1/companies/:companyId/members/:userId', 'secure'],
    ['DELETE /api/v1/companies/:companyId/members/me', 'high'],
  ],
});
