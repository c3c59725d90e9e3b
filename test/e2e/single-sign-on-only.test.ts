/**
 * A company's "sign in with single sign-on only" (docs/people.md): owners turn it on through the API
 * (recorded in the audit log); its members are then refused passwords of this server, password
 * resets, password changes and passkeys alone with a 403 in the contract's error form, while single
 * sign-on still signs them in; its owners keep their passwords (break-glass). Admins and members
 * cannot change it; a server without single sign-on cannot turn it on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppConfig } from '../../src/config.ts';
import { addMember } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, otherCompany, type TestApp, testConfig } from '../support/harness.ts';
import { signInAt, startProvider, type TestProvider } from '../support/oidc-provider.ts';
import { givePassword, sessionHeaders, signInAs, TEST_PASSWORD } from '../support/people.ts';

const CALLBACK = 'http://localhost/api/v1/auth/oidc/callback';
const MEMBER = 'mo@acme.test';
const OWNER = 'owner@acme.test';

interface Policy {
  singleSignOnOnly: boolean;
  singleSignOnAvailable: boolean;
}

for (const engine of ENGINES) {
  describe(`sign in with single sign-on only [${engine}]`, () => {
    let provider: TestProvider;
    let t: TestApp;
    let memberId = '';
    let memberKey = '';
    let adminKey = '';

    before(async () => {
      provider = await startProvider(CALLBACK);
      const base = testConfig().people;
      const config: Partial<AppConfig> = {
        people: {
          ...base,
          // mail is set up (to a port nobody answers, and never polled): a reset request would queue a mail
          mail: { ...base.mail, smtpUrl: 'smtp://127.0.0.1:9', pollMs: 600_000 },
          oidc: {
            ...base.oidc,
            issuer: provider.issuer,
            clientId: provider.clientId,
            clientSecret: provider.clientSecret,
            redirectUrl: CALLBACK,
            timeoutMs: 30_000,
          },
        },
      };
      t = await buildTestApp(engine, { config });
      ({ userId: memberId, apiKey: memberKey } = await addMember(t.services, { companyId: t.tenant.companyId, email: MEMBER, role: 'member' }));
      adminKey = (await addMember(t.services, { companyId: t.tenant.companyId, email: 'ada@acme.test', role: 'admin' })).apiKey;
      await givePassword(t.services, MEMBER);
      await givePassword(t.services, OWNER);
    });
    after(async () => {
      await t?.dispose();
      await provider?.close();
    });

    const policyUrl = () => `/api/v1/companies/${t.tenant.companyId}/sign-in-policy`;
    const call = (method: 'GET' | 'PATCH' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
      t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    const signIn = (email: string, password = TEST_PASSWORD) => call('POST', '/api/v1/auth/sign-in', {}, { email, password });
    const setPolicy = (key: string, singleSignOnOnly: boolean) => call('PATCH', policyUrl(), bearer(key), { singleSignOnOnly });
    async function memberResetLink(): Promise<string> {
      const res = await call('POST', `/api/v1/companies/${t.tenant.companyId}/members/${memberId}/password-reset`, bearer(t.tenant.apiKey));
      assert.equal(res.statusCode, 201, res.body);
      return /#(tbr_[A-Za-z0-9_-]+)$/.exec((res.json() as { url: string }).url)![1]!;
    }

    it('owners read and set it; admins and members are refused, another company finds nothing', async () => {
      const read = await call('GET', policyUrl(), bearer(t.tenant.apiKey));
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual({ ...(read.json() as Policy), message: undefined }, { message: undefined, singleSignOnOnly: false, singleSignOnAvailable: true });
      for (const key of [adminKey, memberKey]) {
        assert.equal((await call('GET', policyUrl(), bearer(key))).statusCode, 403);
        assert.equal((await setPolicy(key, true)).statusCode, 403);
      }
      const other = await otherCompany(t);
      assert.equal((await other.api('GET', policyUrl())).statusCode, 404);
    });

    it('a server without single sign-on cannot turn it on (409)', async () => {
      const bare = await buildTestApp(engine);
      try {
        const res = await bare.app.inject({
          method: 'PATCH',
          url: `/api/v1/companies/${bare.tenant.companyId}/sign-in-policy`,
          headers: bearer(bare.tenant.apiKey),
          payload: { singleSignOnOnly: true },
        });
        assert.equal(res.statusCode, 409, res.body);
        assert.equal((res.json() as { code: string }).code, 'conflict');
      } finally {
        await bare.dispose();
      }
    });

    let linkBefore = '';
    let memberSession: Awaited<ReturnType<typeof signInAs>> | undefined;

    it('turned on by an owner, recorded in the audit log', async () => {
      // made while passwords still served: used after, they must be refused
      linkBefore = await memberResetLink();
      memberSession = await signInAs(t.app, MEMBER);
      const res = await setPolicy(t.tenant.apiKey, true);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as Policy).singleSignOnOnly, true);
      const audit = await call('GET', `/api/v1/companies/${t.tenant.companyId}/audit-log?limit=100`, bearer(t.tenant.apiKey));
      const entry = (audit.json() as { entries: { kind: string; actor: { _id: string } | null; details: Record<string, unknown> }[] }).entries.find(
        (one) => one.kind === 'company.single_sign_on_only.changed',
      );
      assert.ok(entry, audit.body);
      assert.equal(entry.actor?._id, t.tenant.userId);
      assert.deepEqual(entry.details, { singleSignOnOnly: true });
    });

    it("refuses a member's right password with a 403 naming single sign-on; a wrong one is the usual 401", async () => {
      const refused = await signIn(MEMBER);
      assert.equal(refused.statusCode, 403, refused.body);
      const body = refused.json() as { code: string; message: string; requestId: string; details: { reason: string }[] };
      assert.equal(body.code, 'forbidden');
      assert.match(body.message, /single sign-on only/);
      assert.equal(body.details[0]!.reason, 'single_sign_on_only');
      assert.equal(typeof body.requestId, 'string');
      assert.equal(refused.headers['set-cookie'], undefined);
      assert.equal((await signIn(MEMBER, 'not the password at all')).statusCode, 401);
      const failed = await t.storage.db.selectFrom('audit_log').select('details').where('kind', '=', 'sign_in.failed').execute();
      assert.ok(failed.some((row) => JSON.parse(row.details).reason === 'single_sign_on_only'));
    });

    it('refuses password resets and changes for members: the link made before, a new link, a change, and a mailed link is never sent', async () => {
      const used = await call('POST', `/api/v1/auth/password-reset/${linkBefore}`, {}, { password: 'a brand new password 9' });
      assert.equal(used.statusCode, 403, used.body);
      const issued = await call('POST', `/api/v1/companies/${t.tenant.companyId}/members/${memberId}/password-reset`, bearer(t.tenant.apiKey));
      assert.equal(issued.statusCode, 403, issued.body);
      const change = await call('PATCH', '/api/v1/me/password', sessionHeaders(memberSession!), {
        currentPassword: TEST_PASSWORD,
        newPassword: 'another new password 10',
      });
      assert.equal(change.statusCode, 403, change.body);
      const mailedBefore = await t.storage.db.selectFrom('audit_log').select('id').where('kind', '=', 'password.reset.mailed').execute();
      const request = await call('POST', '/api/v1/auth/password-reset', {}, { email: MEMBER });
      assert.equal(request.statusCode, 202, 'the answer is the same as for anyone');
      const mailedAfter = await t.storage.db.selectFrom('audit_log').select('id').where('kind', '=', 'password.reset.mailed').execute();
      assert.equal(mailedAfter.length, mailedBefore.length, 'no link went out');
    });

    it('an invitation is not accepted with a new password; single sign-on accepts it', async () => {
      const invited = await call('POST', `/api/v1/companies/${t.tenant.companyId}/invitations`, bearer(t.tenant.apiKey), {
        email: 'nel@acme.test',
        role: 'member',
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const token = /#(tbi_[A-Za-z0-9_-]+)$/.exec((invited.json() as { url: string }).url)![1]!;
      const accepted = await call('POST', `/api/v1/invitations/${token}/accept`, {}, { fullName: 'Nel New', password: 'a password of her own 11' });
      assert.equal(accepted.statusCode, 403, accepted.body);
      assert.equal((accepted.json() as { details: { reason: string }[] }).details[0]!.reason, 'single_sign_on_only');
      assert.equal(await t.storage.db.selectFrom('users').select('id').where('email', '=', 'nel@acme.test').executeTakeFirst(), undefined);
      // single sign-on accepts the invitation, still pending
      provider.accounts.set('nel', { email: 'nel@acme.test', email_verified: true, name: 'Nel New' });
      const start = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/start' });
      const back = await signInAt(String(start.headers.location), 'nel');
      const handle = String(start.headers['set-cookie']).split(';')[0]!;
      const callback = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, headers: { cookie: handle } });
      assert.equal(callback.headers.location, '/', callback.body);
      const nel = await t.storage.db
        .selectFrom('company_members')
        .innerJoin('users', 'users.id', 'company_members.user_id')
        .select('company_members.role')
        .where('users.email', '=', 'nel@acme.test')
        .where('company_members.company_id', '=', t.tenant.companyId)
        .executeTakeFirst();
      assert.equal(nel?.role, 'member');
    });

    it('an owner keeps the password (break-glass), its reset too', async () => {
      assert.equal((await signIn(OWNER)).statusCode, 200);
      const mailedBefore = await t.storage.db.selectFrom('audit_log').select('id').where('kind', '=', 'password.reset.mailed').execute();
      assert.equal((await call('POST', '/api/v1/auth/password-reset', {}, { email: OWNER })).statusCode, 202);
      const mailedAfter = await t.storage.db.selectFrom('audit_log').select('id').where('kind', '=', 'password.reset.mailed').execute();
      assert.equal(mailedAfter.length, mailedBefore.length + 1);
    });

    it('single sign-on still signs the member in', async () => {
      provider.accounts.set('mo', { email: MEMBER, email_verified: true, name: 'Mo' });
      const start = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/start' });
      const handle = String(start.headers['set-cookie']).split(';')[0]!;
      const back = await signInAt(String(start.headers.location), 'mo');
      const callback = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, headers: { cookie: handle } });
      assert.equal(callback.statusCode, 303, callback.body);
      assert.equal(callback.headers.location, '/');
      assert.match(String(callback.headers['set-cookie']), /taskboard_session=[^;]+/);
    });

    it('turned off, the member signs in with the password again', async () => {
      assert.equal((await setPolicy(t.tenant.apiKey, false)).statusCode, 200);
      assert.equal((await signIn(MEMBER)).statusCode, 200);
    });
  });
}
