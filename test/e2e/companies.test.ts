import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueApiKeyForEmail } from '../../src/domain/account/service.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { CompanyMember } from '../../src/schemas/companies.ts';
import { Company } from '../../src/schemas/records.ts';
import { addMember } from '../support/fixtures.ts';
import { type Api, apiClient, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const engine of ENGINES) {
  describe(`companies [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;

    before(async () => ({ t, api, other } = await buildTwoCompanyApp(engine)));
    after(() => t.dispose());

    /** Everything the company operations can change, to show that a refused request changed nothing. */
    async function snapshot() {
      const db = t.services.db;
      return {
        users: await db.selectFrom('users').selectAll().orderBy('id').execute(),
        companies: await db.selectFrom('companies').selectAll().orderBy('id').execute(),
        members: await db.selectFrom('company_members').selectAll().orderBy('company_id').orderBy('user_id').execute(),
      };
    }

    const membersUrl = (companyId = t.tenant.companyId) => `/api/v1/companies/${companyId}/members`;

    it("lists the caller's companies, oldest first, each with the caller's role", async () => {
      const res = await api('GET', '/api/v1/companies');
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      assert.equal(body.companies.length, 1, "another company's is not listed");
      const acme = assertSchema(Company, body.companies[0]);
      assert.deepEqual(
        { _id: acme._id, name: acme.name, creator: acme.creator, role: acme.role, __v: acme.__v },
        { _id: t.tenant.companyId, name: 'Acme', creator: t.tenant.userId, role: 'owner', __v: 0 },
      );
      assert.match(acme.createdAt, ISO);

      const member = await addMember(t.services, { companyId: other.companyId, email: 'member@both.test' });
      const own = await addMember(t.services, { companyId: t.tenant.companyId, email: 'x@both.test', role: 'admin' });
      await t.services.db
        .insertInto('company_members')
        .values({ company_id: t.tenant.companyId, user_id: member.userId, role: 'admin', created_at: new Date().toISOString() })
        .execute();
      const both = (await apiClient(t, member.apiKey)('GET', '/api/v1/companies')).json().companies;
      assert.deepEqual(
        both.map((c: { _id: string; role: string }) => [c._id, c.role]),
        [
          [t.tenant.companyId, 'admin'],
          [other.companyId, 'member'],
        ],
        'oldest company first, with the role in each',
      );
      assert.equal((await apiClient(t, own.apiKey)('GET', '/api/v1/companies')).json().companies[0].role, 'admin');
    });

    it('rejects query parameters and missing keys on Get Companies', async () => {
      const res = await api('GET', `/api/v1/companies?companyId=${t.tenant.companyId}`);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'validation_failed');
      assert.equal(res.json().details[0].field, 'querystring.companyId');
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/companies' })).statusCode, 401);
    });

    it('creates a company with the caller as owner', async () => {
      const res = await other.api('POST', '/api/v1/companies', { name: '  Initech  ' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(typeof res.json().message, 'string');
      const company = assertSchema(Company, res.json().company);
      assert.equal(company.name, 'Initech', 'stored trimmed');
      assert.equal(company.creator, other.userId);
      assert.equal(company.role, 'owner');
      assert.equal(company.__v, 0);
      assert.match(company.createdAt, ISO);
      assert.equal(company.updatedAt, company.createdAt);
      assert.deepEqual(Object.keys(company).sort(), ['__v', '_id', 'createdAt', 'creator', 'name', 'role', 'updatedAt']);

      const membership = await t.services.db.selectFrom('company_members').selectAll().where('company_id', '=', company._id).execute();
      assert.deepEqual(
        membership.map((m) => [m.user_id, m.role]),
        [[other.userId, 'owner']],
      );
      const listed = (await other.api('GET', '/api/v1/companies')).json().companies;
      assert.deepEqual(listed.at(-1), company, 'the next request sees the new company');
      // the owner can work in it at once: add a member
      const added = await other.api('POST', membersUrl(company._id), { email: 'new@initech.test', fullName: 'New', role: 'member' });
      assert.equal(added.statusCode, 201, added.body);
    });

    it('rejects bad company input with 400 and details, creating nothing', async () => {
      const before = await snapshot();
      for (const body of [{}, { name: '' }, { name: '   ' }, { name: 5 }, { name: 'x'.repeat(513) }, { name: 'ok', extra: 1 }, []]) {
        const res = await api('POST', '/api/v1/companies', body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(Array.isArray(res.json().details), res.body);
      }
      const unknown = await api('POST', '/api/v1/companies', { name: 'ok', owner: t.tenant.userId });
      assert.deepEqual(unknown.json().details, [{ field: 'body.owner', message: 'unknown field' }]);
      assert.equal((await api('POST', '/api/v1/companies?teamId=x', { name: 'ok' })).statusCode, 400);
      assert.deepEqual(await snapshot(), before);
    });

    it('adds a new user by email: the user is created with the name, as a member with the role', async () => {
      const res = await api('POST', `${membersUrl()}?companyId=${t.tenant.companyId}`, {
        email: 'Nina.New@Acme.TEST',
        fullName: ' Nina New ',
        role: 'member',
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(typeof res.json().message, 'string');
      const member = assertSchema(CompanyMember, res.json().member);
      assert.equal(member.email, 'nina.new@acme.test', 'stored in lower case');
      assert.equal(member.fullName, 'Nina New');
      assert.equal(member.role, 'member');
      assert.equal(member.company, t.tenant.companyId);
      assert.equal(member.photoUrl, '');
      assert.match(member.joinedAt, ISO);
      assert.deepEqual(Object.keys(member).sort(), ['_id', 'company', 'createdAt', 'email', 'fullName', 'joinedAt', 'photoUrl', 'role', 'updatedAt']);

      const user = await t.services.db.selectFrom('users').selectAll().where('id', '=', member._id).executeTakeFirstOrThrow();
      assert.equal(user.email, 'nina.new@acme.test');
      const key = await issueApiKeyForEmail(t.services, { email: 'nina.new@acme.test' });
      const seen = (await apiClient(t, key.apiKey)('GET', '/api/v1/companies')).json().companies;
      assert.deepEqual(
        seen.map((c: { _id: string; role: string }) => [c._id, c.role]),
        [[t.tenant.companyId, 'member']],
      );
    });

    it('adds an existing user by email, keeping its name; a second add is a 409 that changes nothing', async () => {
      const res = await api('POST', membersUrl(), { email: 'owner@globex.test', fullName: 'Someone Else', role: 'admin' });
      assert.equal(res.statusCode, 201, res.body);
      const member = assertSchema(CompanyMember, res.json().member);
      assert.equal(member._id, other.userId);
      assert.equal(member.fullName, 'Gina Globex', "an existing user's name is kept");
      assert.equal(member.role, 'admin');
      assert.equal((await t.services.db.selectFrom('users').select('id').where('email', '=', 'owner@globex.test').execute()).length, 1);

      const before = await snapshot();
      const again = await api('POST', membersUrl(), { email: 'OWNER@globex.test', fullName: 'Gina', role: 'member' });
      assert.equal(again.statusCode, 409, again.body);
      assert.equal(again.json().code, 'conflict');
      const self = await api('POST', membersUrl(), { email: 'owner@acme.test', fullName: 'Olive', role: 'member' });
      assert.equal(self.statusCode, 409);
      assert.deepEqual(await snapshot(), before, 'the role did not change either');
      // clean up for the tests below: Gina is an admin of Acme only within this test
      await t.services.db.deleteFrom('company_members').where('company_id', '=', t.tenant.companyId).where('user_id', '=', other.userId).execute();
    });

    it('lets only owners and admins add members (403), and only owners add owners', async () => {
      const plain = await addMember(t.services, { companyId: t.tenant.companyId, email: 'plain@acme.test', role: 'member' });
      const admin = await addMember(t.services, { companyId: t.tenant.companyId, email: 'admin@acme.test', role: 'admin' });
      const before = await snapshot();

      const refused = await apiClient(t, plain.apiKey)('POST', membersUrl(), { email: 'p1@acme.test', fullName: 'P', role: 'member' });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().code, 'forbidden');
      const adminOwner = await apiClient(t, admin.apiKey)('POST', membersUrl(), { email: 'p2@acme.test', fullName: 'P', role: 'owner' });
      assert.equal(adminOwner.statusCode, 403, adminOwner.body);
      assert.deepEqual(await snapshot(), before, 'no user was created, no membership added');

      const byAdmin = await apiClient(t, admin.apiKey)('POST', membersUrl(), { email: 'p3@acme.test', fullName: 'P', role: 'admin' });
      assert.equal(byAdmin.statusCode, 201, byAdmin.body);
      assert.equal(byAdmin.json().member.role, 'admin');
      const byOwner = await api('POST', membersUrl(), { email: 'p4@acme.test', fullName: 'P', role: 'owner' });
      assert.equal(byOwner.statusCode, 201, byOwner.body);
      assert.equal(byOwner.json().member.role, 'owner');
    });

    it("answers 404 for another company's caller, an unknown company or a scope that does not match, changing nothing", async () => {
      const before = await snapshot();
      const body = { email: 'sneaky@acme.test', fullName: 'S', role: 'owner' };
      for (const [client, url] of [
        [other.api, membersUrl()],
        [api, membersUrl(newId())],
        [api, `${membersUrl()}?companyId=${other.companyId}`],
        [api, membersUrl(other.companyId)],
      ] as const) {
        const res = await client('POST', url, body);
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      assert.deepEqual(await snapshot(), before);
    });

    it('rejects bad member input with 400 and details, never 5xx', async () => {
      const before = await snapshot();
      const good = { email: 'bad@acme.test', fullName: 'B', role: 'member' };
      const cases: [string, unknown, string][] = [
        [membersUrl('not-an-id'), good, 'params.companyId'],
        [membersUrl(), { ...good, email: 'not-an-email' }, 'body.email'],
        [membersUrl(), { ...good, email: 5 }, 'body.email'],
        [membersUrl(), { ...good, fullName: '  ' }, 'body.fullName'],
        [membersUrl(), { email: good.email, role: 'member' }, 'body.fullName'],
        [membersUrl(), { email: good.email, fullName: 'B' }, 'body.role'],
        [membersUrl(), { ...good, role: 'boss' }, 'body.role'],
        [membersUrl(), { ...good, password: 'x' }, 'body.password'],
        [`${membersUrl()}?teamId=${t.tenant.teamId}`, good, 'querystring.teamId'],
      ];
      for (const [url, body, field] of cases) {
        const res = await api('POST', url, body);
        assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          `${field} named in ${JSON.stringify(res.json().details)}`,
        );
      }
      assert.deepEqual(await snapshot(), before);
    });

    it('adds one new email once when several requests race: one 201, the others 409', async () => {
      const body = { email: 'race@acme.test', fullName: 'Racer', role: 'member' };
      const answers = await Promise.all(Array.from({ length: 6 }, () => api('POST', membersUrl(), body)));
      const statuses = answers.map((a) => a.statusCode).sort();
      assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409], answers.map((a) => a.body).join('\n'));
      const users = await t.services.db.selectFrom('users').select('id').where('email', '=', 'race@acme.test').execute();
      assert.equal(users.length, 1);
      const memberships = await t.services.db
        .selectFrom('company_members')
        .select('role')
        .where('user_id', '=', (users[0] as { id: string }).id)
        .execute();
      assert.equal(memberships.length, 1);
    });
  });
}

describeTiers('company routes', {
  engines: ['sqlite'],
  calls: async (api, _, t) => {
    await api('GET', '/api/v1/companies');
    await api('POST', '/api/v1/companies', { name: 'N' });
    await api('POST', `/api/v1/companies/${t.tenant.companyId}/members`, { email: 'a@b.test', fullName: 'A', role: 'member' });
  },
  expected: [
    ['GET /api/v1/companies', 'very-low'],
    ['POST /api/v1/companies', 'high'],
    ['POST /api/v1/companies/:companyId/members', 'high'],
  ],
});
