/**
 * The reads the administration pages need: List Company Members and List Company Teams (owners and
 * admins; a member gets a 403, anyone outside the company a 404), and whether Create Invitation
 * mailed the link, on both engines.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompanyMember } from '../../src/schemas/companies.ts';
import { Team } from '../../src/schemas/records.ts';
import { addMember, addTeam } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp, testConfig } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';

interface MemberRecord {
  _id: string;
  email: string;
  fullName: string;
  company: string;
  role: string;
  joinedAt: string;
}

for (const engine of ENGINES) {
  describe(`company administration reads [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let admin: { userId: string; api: Api };
    let member: { userId: string; api: Api };

    before(async () => {
      ({ t, api, other } = await buildTwoCompanyApp(engine));
      const a = await addMember(t.services, { companyId: t.tenant.companyId, email: 'ada@acme.test', fullName: 'Ada Admin', role: 'admin' });
      const m = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'mo@acme.test', fullName: 'Mo Member' });
      admin = { userId: a.userId, api: apiClient(t, a.apiKey) };
      member = { userId: m.userId, api: apiClient(t, m.apiKey) };
    });
    after(() => t.dispose());

    it('lists the members with email and role, in the order they joined, to owners and admins', async () => {
      for (const caller of [api, admin.api]) {
        const res = await caller('GET', `/api/v1/companies/${t.tenant.companyId}/members`);
        assert.equal(res.statusCode, 200, res.body);
        const members = (res.json() as { members: MemberRecord[] }).members.map((m) => assertSchema(CompanyMember, m));
        assert.deepEqual(
          members.map((m) => [m.email, m.fullName, m.role, m.company]),
          [
            ['owner@acme.test', 'Olive Owner', 'owner', t.tenant.companyId],
            ['ada@acme.test', 'Ada Admin', 'admin', t.tenant.companyId],
            ['mo@acme.test', 'Mo Member', 'member', t.tenant.companyId],
          ],
        );
        assert.ok(!('emailNotifications' in (members[0] as object)), "a person's mail choice is theirs alone");
      }
      // the listing follows a change of role and a removal
      assert.equal((await api('PATCH', `/api/v1/companies/${t.tenant.companyId}/members/${member.userId}`, { role: 'admin' })).statusCode, 200);
      const after = (await api('GET', `/api/v1/companies/${t.tenant.companyId}/members`)).json() as { members: MemberRecord[] };
      assert.equal(after.members.find((m) => m._id === member.userId)?.role, 'admin');
      assert.equal((await api('PATCH', `/api/v1/companies/${t.tenant.companyId}/members/${member.userId}`, { role: 'member' })).statusCode, 200);
    });

    it('refuses members (403) and answers 404 outside the company or off its scope', async () => {
      const refused = await member.api('GET', `/api/v1/companies/${t.tenant.companyId}/members`);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().code, 'forbidden');
      assert.equal((await other.api('GET', `/api/v1/companies/${t.tenant.companyId}/members`)).statusCode, 404);
      assert.equal((await api('GET', `/api/v1/companies/${other.companyId}/members`)).statusCode, 404);
      assert.equal((await api('GET', `/api/v1/companies/${t.tenant.companyId}/members?companyId=${other.companyId}`)).statusCode, 404);
      assert.equal((await api('GET', `/api/v1/companies/${t.tenant.companyId}/members?companyId=${t.tenant.companyId}`)).statusCode, 200);
    });

    it('lists every team of the company with its members, those the caller is not in too', async () => {
      const hidden = await addTeam(t.services, t.tenant.companyId, 'Hidden', [member.userId]);
      for (const caller of [api, admin.api]) {
        const res = await caller('GET', `/api/v1/companies/${t.tenant.companyId}/teams`);
        assert.equal(res.statusCode, 200, res.body);
        const teams = (res.json() as { teams: { _id: string; name: string; members: { fullName: string }[] }[] }).teams.map((team) => assertSchema(Team, team));
        assert.deepEqual(
          teams.map((team) => [team._id, team.name, team.members.map((m) => m.fullName)]),
          [
            [t.tenant.teamId, 'Core', ['Olive Owner', 'Mo Member']],
            [hidden, 'Hidden', ['Mo Member']],
          ],
        );
      }
      // Get Current Teams still lists the caller's own
      assert.deepEqual(
        ((await api('GET', '/api/v1/teams')).json() as { teams: { _id: string }[] }).teams.map((team) => team._id),
        [t.tenant.teamId],
      );
      assert.equal((await member.api('GET', `/api/v1/companies/${t.tenant.companyId}/teams`)).statusCode, 403);
      assert.equal((await other.api('GET', `/api/v1/companies/${t.tenant.companyId}/teams`)).statusCode, 404);
      assert.equal((await api('GET', `/api/v1/companies/${t.tenant.companyId}/teams?companyId=${other.companyId}`)).statusCode, 404);
    });

    it('says the invitation was not mailed when no mail is set up', async () => {
      const res = await api('POST', `/api/v1/companies/${t.tenant.companyId}/invitations`, { email: 'nia@acme.test', role: 'member' });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json() as { url: string; mailed: boolean };
      assert.equal(body.mailed, false);
      assert.match(body.url, /\/invitations#tbi_/);
    });
  });

  describe(`an invitation with mail set up [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      // a closed port: the mail waits in the outbox, which is all this answer promises
      const base = testConfig();
      t = await buildTestApp(engine, { config: { people: { ...base.people, mail: { ...base.people.mail, smtpUrl: 'smtp://127.0.0.1:9', pollMs: 600_000 } } } });
    });
    after(() => t.dispose());

    it('says it was mailed, and the mail waits in the outbox', async () => {
      const res = await apiClient(t, t.tenant.apiKey)('POST', `/api/v1/companies/${t.tenant.companyId}/invitations`, { email: 'nia@acme.test', role: 'admin' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().mailed, true);
      const rows = await t.services.db.selectFrom('mail_outbox').select('to_address').execute();
      assert.deepEqual(
        rows.map((row) => row.to_address),
        ['nia@acme.test'],
      );
    });
  });
}

describeTiers('the administration reads', {
  engines: ENGINES,
  calls: async (api, _given, t) => {
    await api('GET', `/api/v1/companies/${t.tenant.companyId}/members`);
    await api('GET', `/api/v1/companies/${t.tenant.companyId}/teams`);
  },
  expected: [
    ['GET /api/v1/companies/:companyId/members', 'very-low'],
    ['GET /api/v1/companies/:companyId/teams', 'very-low'],
  ],
});
