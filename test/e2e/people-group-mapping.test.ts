/**
 * Groups mapped to company roles and teams (docs/people.md, "Groups to roles and teams"): at each
 * sign-in through a real OpenLDAP server (test/support/slapd.ts) or a real OpenID Connect provider
 * (test/support/oidc-provider.ts), the person's memberships of the companies and teams the mapping
 * names follow the groups: the first sign-in makes the person with them, later ones change role and
 * teams and take the person out when no group is left; teams the mapping does not name stay; the
 * company's last owner stays its owner. Each change is in the audit log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppConfig, GroupRuleSetting } from '../../src/config.ts';
import { addTeam } from '../support/fixtures.ts';
import { buildTestApp, ENGINES, type TestApp, testConfig } from '../support/harness.ts';
import { signInAt, startProvider, type TestProvider } from '../support/oidc-provider.ts';
import { SERVICE_DN, SERVICE_PASSWORD, SUFFIX, slapdMissing, startSlapd, type TestDirectory } from '../support/slapd.ts';

const PASSWORD = 'quartz meadow signal 58';
const CALLBACK = 'http://localhost/api/v1/auth/oidc/callback';
const group = (cn: string) => `cn=${cn},ou=groups,${SUFFIX}`;
const person = (uid: string) => `uid=${uid},ou=people,${SUFFIX}`;
// groupOfNames needs a member: an empty group holds this one, who is nobody
const NOBODY = person('nobody');

/** What the person is in the tenant's company: its role (none: not a member) and its teams' names, sorted. */
async function standing(t: TestApp, email: string): Promise<{ role: string | undefined; teams: string[] }> {
  const db = t.storage.db;
  const user = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (!user) return { role: undefined, teams: [] };
  const membership = await db
    .selectFrom('company_members')
    .select('role')
    .where('company_id', '=', t.tenant.companyId)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  const teams = await db
    .selectFrom('team_members')
    .innerJoin('teams', 'teams.id', 'team_members.team_id')
    .select('teams.name')
    .where('team_members.user_id', '=', user.id)
    .where('teams.company_id', '=', t.tenant.companyId)
    .execute();
  return { role: membership?.role, teams: teams.map((team) => team.name).sort() };
}

async function auditOf(t: TestApp, kind: string, userEmail: string) {
  const user = await t.storage.db.selectFrom('users').select('id').where('email', '=', userEmail).executeTakeFirstOrThrow();
  return t.storage.db.selectFrom('audit_log').selectAll().where('kind', '=', kind).where('target_id', '=', user.id).execute();
}

for (const engine of ENGINES) {
  describe(`LDAP groups to roles and teams [${engine}]`, { skip: slapdMissing }, () => {
    let directory: TestDirectory;
    let t: TestApp;
    let opsId = '';

    before(async () => {
      directory = await startSlapd();
      for (const [uid, mail] of [
        ['mia', 'mia@acme.test'],
        ['olive', 'owner@acme.test'],
      ] as const) {
        await directory.add(person(uid), { objectClass: 'inetOrgPerson', uid, cn: uid, sn: uid, mail, userPassword: PASSWORD });
      }
      await directory.add(group('designers'), { objectClass: 'groupOfNames', cn: 'designers', member: [person('mia'), person('olive')] });
      await directory.add(group('leads'), { objectClass: 'groupOfNames', cn: 'leads', member: person('mia') });
      await directory.add(group('owners'), { objectClass: 'groupOfNames', cn: 'owners', member: NOBODY });
      const rules: GroupRuleSetting[] = [];
      const people = testConfig().people;
      const config: Partial<AppConfig> = {
        people: {
          ...people,
          ldap: {
            ...people.ldap,
            url: directory.url,
            bindDn: SERVICE_DN,
            bindPassword: SERVICE_PASSWORD,
            searchBase: `ou=people,${SUFFIX}`,
            searchFilter: '(mail={email})',
            timeoutMs: 2000,
            groupSearchBase: `ou=groups,${SUFFIX}`,
            groupFilter: '(member={dn})',
            groupMap: rules,
          },
        },
      };
      t = await buildTestApp(engine, { config });
      await addTeam(t.services, t.tenant.companyId, 'Design', [t.tenant.userId]);
      opsId = await addTeam(t.services, t.tenant.companyId, 'Ops', [t.tenant.userId]);
      // the mapping names the tenant's company ("Acme") and teams made above: the app reads the configured list at each sign-in
      rules.push(
        // by the group's whole DN, the company's name and a team's name
        { group: group('designers'), company: 'Acme', role: 'member', teams: ['Design'] },
        // by the group's name (any case), the company's id and a team's id
        { group: 'LEADS', company: t.tenant.companyId, role: 'admin', teams: [opsId] },
        { group: 'owners', company: 'Acme', role: 'owner', teams: [] },
        // a company that does not exist: ignored, and said in the sign-in's audit entry
        { group: 'leads', company: 'No Such Company', role: 'member', teams: [] },
      );
    });
    after(async () => {
      await t?.dispose();
      await directory?.stop();
    });

    const signIn = async (email: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email, password: PASSWORD } });
      assert.equal(res.statusCode, 200, res.body);
      return String(res.headers['set-cookie']).split(';')[0]!;
    };

    it("reads the groups from the person's memberOf alone too (no group search), as with Active Directory", async () => {
      const rules: GroupRuleSetting[] = [];
      const ldap = { ...t.config.people.ldap, groupSearchBase: undefined, groupMap: rules };
      const alone = await buildTestApp(engine, { config: { people: { ...t.config.people, ldap } } });
      try {
        await addTeam(alone.services, alone.tenant.companyId, 'Design', [alone.tenant.userId]);
        await addTeam(alone.services, alone.tenant.companyId, 'Ops', [alone.tenant.userId]);
        rules.push(
          { group: 'designers', company: 'Acme', role: 'member', teams: ['Design'] },
          { group: 'leads', company: 'Acme', role: 'admin', teams: ['Ops'] },
        );
        const res = await alone.app.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'mia@acme.test', password: PASSWORD } });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(await standing(alone, 'mia@acme.test'), { role: 'admin', teams: ['Design', 'Ops'] });
      } finally {
        await alone.dispose();
      }
    });

    it('makes the person at the first sign-in with the highest role of their groups and the teams of each', async () => {
      assert.deepEqual(await standing(t, 'mia@acme.test'), { role: undefined, teams: [] });
      const cookie = await signIn('mia@acme.test');
      assert.deepEqual(await standing(t, 'mia@acme.test'), { role: 'admin', teams: ['Design', 'Ops'] });
      const me = (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } })).json() as { companies: { name: string; role: string }[] };
      assert.deepEqual(
        me.companies.map((company) => [company.name, company.role]),
        [['Acme', 'admin']],
      );
      const added = await auditOf(t, 'company.member.added', 'mia@acme.test');
      assert.equal(added.length, 1);
      assert.equal(added[0]!.actor_id, null, 'the directory, not a person, made the change');
      const signedIn = await auditOf(t, 'sign_in.succeeded', 'mia@acme.test');
      assert.deepEqual(JSON.parse(signedIn.at(-1)!.details).unmappedRules, ['No Such Company']);
    });

    it('a later sign-in follows the groups: a lower role, a team left, a team of her own kept', async () => {
      // a team Mia makes herself is not the directory's business
      const mia = await t.storage.db.selectFrom('users').select('id').where('email', '=', 'mia@acme.test').executeTakeFirstOrThrow();
      await addTeam(t.services, t.tenant.companyId, 'Skunkworks', [mia.id]);
      await directory.replace(group('leads'), 'member', [NOBODY]);
      await signIn('mia@acme.test');
      assert.deepEqual(await standing(t, 'mia@acme.test'), { role: 'member', teams: ['Design', 'Skunkworks'] });
      const changed = await auditOf(t, 'member.role.changed', 'mia@acme.test');
      assert.deepEqual(JSON.parse(changed.at(-1)!.details), { from: 'admin', to: 'member' });
      // the same groups again: nothing changes, nothing is recorded
      const before = (await t.storage.db.selectFrom('audit_log').select('id').execute()).length;
      await signIn('mia@acme.test');
      const kinds = await t.storage.db.selectFrom('audit_log').select('kind').orderBy('id').execute();
      assert.deepEqual(
        kinds.slice(before).map((row) => row.kind),
        ['sign_in.succeeded'],
      );
    });

    it('no group left takes the person out of the company and its teams', async () => {
      await directory.replace(group('designers'), 'member', [person('olive')]);
      await signIn('mia@acme.test');
      assert.deepEqual(await standing(t, 'mia@acme.test'), { role: undefined, teams: [] });
      assert.equal((await auditOf(t, 'member.removed', 'mia@acme.test')).length, 1);
    });

    it("never demotes the company's last owner, though the groups say member", async () => {
      // Olive Owner, the tenant's only owner, is in designers only (a member by the mapping)
      await signIn('owner@acme.test');
      // …and not in leads: the mapping takes her out of Ops, which she made, and keeps her in Core, which it does not name
      assert.deepEqual(await standing(t, 'owner@acme.test'), { role: 'owner', teams: ['Core', 'Design'] });
      // with another owner by the owners group, she is demoted at her next sign-in
      await directory.replace(group('owners'), 'member', [person('mia')]);
      await signIn('mia@acme.test');
      assert.equal((await standing(t, 'mia@acme.test')).role, 'owner');
      await signIn('owner@acme.test');
      assert.equal((await standing(t, 'owner@acme.test')).role, 'member');
    });
  });

  describe(`OpenID Connect groups to roles and teams [${engine}]`, () => {
    let provider: TestProvider;
    let t: TestApp;

    before(async () => {
      provider = await startProvider(CALLBACK);
      const rules: GroupRuleSetting[] = [];
      const base = testConfig().people;
      const config: Partial<AppConfig> = {
        people: {
          ...base,
          oidc: {
            ...base.oidc,
            issuer: provider.issuer,
            clientId: provider.clientId,
            clientSecret: provider.clientSecret,
            redirectUrl: CALLBACK,
            // sign-up is off: a group that gives a company is what lets a new person in
            allowSignUp: false,
            timeoutMs: 30_000,
            scopes: 'openid email profile groups',
            groupsClaim: 'groups',
            groupMap: rules,
          },
        },
      };
      t = await buildTestApp(engine, { config });
      await addTeam(t.services, t.tenant.companyId, 'Design', [t.tenant.userId]);
      await addTeam(t.services, t.tenant.companyId, 'Ops', [t.tenant.userId]);
      rules.push(
        { group: 'taskboard-design', company: 'Acme', role: 'member', teams: ['Design'] },
        { group: 'taskboard-admins', company: 'Acme', role: 'admin', teams: ['Ops'] },
      );
    });
    after(async () => {
      await t?.dispose();
      await provider?.close();
    });

    async function singleSignOn(accountId: string) {
      const start = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/start' });
      assert.equal(start.statusCode, 303, start.body);
      const handle = String(start.headers['set-cookie']).split(';')[0]!;
      const location = new URL(String(start.headers.location));
      assert.equal(location.searchParams.get('scope'), 'openid email profile groups');
      const back = await signInAt(location.href, accountId);
      const callback = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, headers: { cookie: handle } });
      assert.equal(callback.statusCode, 303, callback.body);
      return String(callback.headers.location);
    }

    it('makes a person whose group gives a company, with its role and teams, though sign-up is off', async () => {
      provider.accounts.set('nia', { email: 'nia@acme.test', email_verified: true, name: 'Nia Grouped', groups: ['taskboard-design', 'taskboard-admins'] });
      assert.equal(await singleSignOn('nia'), '/');
      assert.deepEqual(await standing(t, 'nia@acme.test'), { role: 'admin', teams: ['Design', 'Ops'] });
    });

    it('a later sign-on follows the claim: a lower role, a team left; no group left takes the person out', async () => {
      provider.accounts.set('nia', { email: 'nia@acme.test', email_verified: true, name: 'Nia Grouped', groups: ['taskboard-design'] });
      await singleSignOn('nia');
      assert.deepEqual(await standing(t, 'nia@acme.test'), { role: 'member', teams: ['Design'] });
      provider.accounts.set('nia', { email: 'nia@acme.test', email_verified: true, name: 'Nia Grouped', groups: [] });
      await singleSignOn('nia');
      assert.deepEqual(await standing(t, 'nia@acme.test'), { role: undefined, teams: [] });
    });

    it('a person in no mapped group and not invited is still refused while sign-up is off', async () => {
      provider.accounts.set('stray', { email: 'stray@acme.test', email_verified: true, groups: ['elsewhere'] });
      assert.equal(await singleSignOn('stray'), '/sign-in?error=sso_not_invited');
    });

    it('a provider that sends no groups claim leaves the memberships as they are', async () => {
      provider.accounts.set('omar', { email: 'omar@acme.test', email_verified: true, groups: ['taskboard-admins'] });
      await singleSignOn('omar');
      assert.equal((await standing(t, 'omar@acme.test')).role, 'admin');
      provider.accounts.set('omar', { email: 'omar@acme.test', email_verified: true });
      await singleSignOn('omar');
      assert.deepEqual(await standing(t, 'omar@acme.test'), { role: 'admin', teams: ['Ops'] });
    });
  });
}
