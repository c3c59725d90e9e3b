/**
 * A company that requires a second factor (docs/people.md): its owners turn the rule on, a member
 * without a factor is led through setting one up at the next sign-in before any session, owners see
 * who has one and reset a member's factors, each recorded in the audit log; admins and strangers are
 * refused. Codes are computed with otplib at the app's clock, which the test moves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateSync } from 'otplib';
import { manualClock } from '../support/clock.ts';
import { addMember } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, otherCompany, type TestApp } from '../support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../support/people.ts';

const MEMBER = 'mo@acme.test';

interface Factors {
  required: boolean;
  members: { user: string; email: string; methods: string[] }[];
}

for (const engine of ENGINES) {
  describe(`a company that requires a second factor [${engine}]`, () => {
    let t: TestApp;
    const clock = manualClock(Date.parse('2026-04-01T08:00:05Z'));
    let memberId = '';
    let adminKey = '';
    let secret = '';

    before(async () => {
      t = await buildTestApp(engine, { clock });
      memberId = (await addMember(t.services, { companyId: t.tenant.companyId, email: MEMBER, role: 'member' })).userId;
      adminKey = (await addMember(t.services, { companyId: t.tenant.companyId, email: 'ada@acme.test', role: 'admin' })).apiKey;
      await givePassword(t.services, MEMBER);
    });
    after(() => t.dispose());

    const url = (suffix = '') => `/api/v1/companies/${t.tenant.companyId}${suffix}`;
    const call = (method: 'GET' | 'PATCH' | 'POST' | 'DELETE', path: string, key: string | null, payload?: object) =>
      t.app.inject({ method, url: path, headers: key ? bearer(key) : {}, ...(payload ? { payload } : {}) });
    const codeNow = () => generateSync({ secret, epoch: Math.floor(clock.now() / 1000) });
    async function passwordStep() {
      const res = await call('POST', '/api/v1/auth/sign-in', null, { email: MEMBER, password: TEST_PASSWORD });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { csrfToken?: string; secondFactor?: { challenge: string; enrol: boolean; methods: string[] } };
    }
    async function auditKinds() {
      const res = await call('GET', url('/audit-log?limit=100'), t.tenant.apiKey);
      return (res.json() as { entries: { kind: string; actor: { _id: string } | null; target: { id: string } | null; details: Record<string, unknown> }[] })
        .entries;
    }

    it('owners see whether it is required and who has a factor; admins are refused, strangers find nothing', async () => {
      const read = await call('GET', url('/second-factors'), t.tenant.apiKey);
      assert.equal(read.statusCode, 200, read.body);
      const body = read.json() as Factors;
      assert.equal(body.required, false);
      assert.deepEqual(
        body.members.map((member) => [member.email, member.methods]),
        [
          ['owner@acme.test', []],
          [MEMBER, []],
          ['ada@acme.test', []],
        ],
      );
      assert.equal((await call('GET', url('/second-factors'), adminKey)).statusCode, 403);
      assert.equal((await call('PATCH', url('/second-factors'), adminKey, { required: true })).statusCode, 403);
      assert.equal((await call('DELETE', url(`/members/${memberId}/second-factors`), adminKey)).statusCode, 403);
      const stranger = await otherCompany(t);
      assert.equal((await call('GET', url('/second-factors'), stranger.apiKey)).statusCode, 404);
      assert.equal((await call('DELETE', url(`/members/${stranger.userId}/second-factors`), t.tenant.apiKey)).statusCode, 404);
    });

    it('once required, a member without a factor gets no session from the password: they set up an app, then sign in', async () => {
      const on = await call('PATCH', url('/second-factors'), t.tenant.apiKey, { required: true });
      assert.equal(on.statusCode, 200, on.body);
      assert.equal((on.json() as Factors).required, true);
      assert.ok((await auditKinds()).some((entry) => entry.kind === 'company.second_factor.required' && entry.details.required === true));

      const step = await passwordStep();
      assert.equal(step.csrfToken, undefined);
      assert.deepEqual(step.secondFactor && { enrol: step.secondFactor.enrol, methods: step.secondFactor.methods }, { enrol: true, methods: [] });
      const challenge = step.secondFactor!.challenge;

      // a code before any app is set up finishes nothing
      const early = await call('POST', '/api/v1/auth/sign-in/second-factor', null, { challenge, code: '123456' });
      assert.equal(early.statusCode, 404, early.body);

      const setup = await call('POST', '/api/v1/auth/sign-in/totp', null, { challenge });
      assert.equal(setup.statusCode, 200, setup.body);
      secret = (setup.json() as { secret: string }).secret;
      const finished = await call('POST', '/api/v1/auth/sign-in/second-factor', null, { challenge, code: codeNow() });
      assert.equal(finished.statusCode, 200, finished.body);
      assert.match(String(finished.headers['set-cookie']), /taskboard_session=tbs_/);
      assert.equal((finished.json() as { recoveryCodes: string[] }).recoveryCodes.length, 10);

      const read = (await call('GET', url('/second-factors'), t.tenant.apiKey)).json() as Factors;
      assert.deepEqual(read.members.find((member) => member.user === memberId)?.methods, ['totp']);
      const kinds = await auditKinds();
      assert.ok(kinds.some((entry) => entry.kind === 'second_factor.enrolled' && entry.target?.id === memberId));
      assert.ok(kinds.some((entry) => entry.kind === 'sign_in.succeeded' && entry.target?.id === memberId && entry.details.secondFactor === 'totp'));
    });

    it('the next sign-in asks for the code; a code challenge does not set up another app', async () => {
      clock.at += 30_000;
      const step = await passwordStep();
      assert.equal(step.secondFactor?.enrol, false);
      const setup = await call('POST', '/api/v1/auth/sign-in/totp', null, { challenge: step.secondFactor!.challenge });
      assert.equal(setup.statusCode, 409, setup.body);
      const finished = await call('POST', '/api/v1/auth/sign-in/second-factor', null, { challenge: step.secondFactor!.challenge, code: codeNow() });
      assert.equal(finished.statusCode, 200, finished.body);
    });

    it("an owner resets a member's factors: recorded with the owner as actor; the member sets one up again at the next sign-in", async () => {
      const reset = await call('DELETE', url(`/members/${memberId}/second-factors`), t.tenant.apiKey);
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal(await t.storage.db.selectFrom('recovery_codes').select('id').where('user_id', '=', memberId).executeTakeFirst(), undefined);
      const entry = (await auditKinds()).find((e) => e.kind === 'second_factor.reset');
      assert.ok(entry);
      assert.equal(entry.actor?._id, t.tenant.userId);
      assert.equal(entry.target?.id, memberId);
      assert.deepEqual(entry.details.methods, ['totp']);

      const read = (await call('GET', url('/second-factors'), t.tenant.apiKey)).json() as Factors;
      assert.deepEqual(read.members.find((member) => member.user === memberId)?.methods, []);
      assert.equal((await passwordStep()).secondFactor?.enrol, true);
    });

    it('no longer required: the password alone signs the member in again', async () => {
      const off = await call('PATCH', url('/second-factors'), t.tenant.apiKey, { required: false });
      assert.equal(off.statusCode, 200, off.body);
      const step = await passwordStep();
      assert.ok(step.csrfToken);
      assert.equal(step.secondFactor, undefined);
    });
  });
}
