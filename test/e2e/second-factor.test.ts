/**
 * A second factor (docs/people.md, "Second factor"): an authenticator app set up with a QR code and
 * a confirming code, ten single-use recovery codes, the code asked after the password (no session
 * before it), the failure limits of sign-in applied to codes, no code used twice, the secret sealed at
 * rest, disabling with the password and a code, and the audit log's entries. Codes are computed here
 * with otplib at the app's clock, which the test moves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateSync } from 'otplib';
import { manualClock } from '../support/clock.ts';
import { addMember } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp, testConfig } from '../support/harness.ts';
import { type BrowserSession, givePassword, sessionHeaders, signInAs, TEST_PASSWORD } from '../support/people.ts';

const OWNER = 'owner@acme.test';
const MEMBER = 'mia@acme.test';

for (const engine of ENGINES) {
  describe(`second factor: an authenticator app [${engine}]`, () => {
    let t: TestApp;
    const clock = manualClock(Date.parse('2026-03-02T10:00:05Z'));
    let secret = '';
    let recoveryCodes: string[] = [];
    let session: BrowserSession;
    let memberId = '';

    before(async () => {
      t = await buildTestApp(engine, {
        clock,
        config: { people: { ...testConfig().people, signInFailures: { perEmail: 4, perAddress: 1000, windowSeconds: 900 } } },
      });
      await givePassword(t.services, OWNER);
      memberId = (await addMember(t.services, { companyId: t.tenant.companyId, email: MEMBER, role: 'member' })).userId;
      await givePassword(t.services, MEMBER);
      session = await signInAs(t.app, MEMBER);
    });
    after(() => t.dispose());

    const codeNow = (offsetSeconds = 0) => generateSync({ secret, epoch: Math.floor(clock.now() / 1000) + offsetSeconds });
    const post = (url: string, payload: object, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url, headers, payload });
    const passwordStep = async (email = MEMBER) => {
      const res = await post('/api/v1/auth/sign-in', { email, password: TEST_PASSWORD });
      assert.equal(res.statusCode, 200, res.body);
      return res;
    };
    async function auditKinds(): Promise<{ kind: string; details: Record<string, unknown> }[]> {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/companies/${t.tenant.companyId}/audit-log?limit=100`, headers: bearer(t.tenant.apiKey) });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { entries: { kind: string; details: Record<string, unknown> }[] }).entries;
    }

    it('sets up an app: a secret, its otpauth URL and an SVG QR code; the status says it is not on until confirmed', async () => {
      const started = await post('/api/v1/me/second-factors/totp', {}, sessionHeaders(session));
      assert.equal(started.statusCode, 200, started.body);
      const body = started.json() as { secret: string; otpauthUrl: string; qrCode: string };
      assert.match(body.secret, /^[A-Z2-7]{32}$/);
      assert.match(body.otpauthUrl, /^otpauth:\/\/totp\/Taskboard:mia%40acme\.test\?.*secret=/);
      assert.match(body.qrCode, /^data:image\/svg\+xml;base64,/);
      assert.match(Buffer.from(body.qrCode.split(',')[1]!, 'base64').toString(), /^<svg/);
      assert.equal(started.headers['cache-control'], 'no-store');
      secret = body.secret;

      const status = await t.app.inject({ method: 'GET', url: '/api/v1/me/second-factors', headers: sessionHeaders(session) });
      assert.deepEqual((status.json() as { totp: unknown }).totp, { enabled: false, confirmedAt: null });
      // not on yet: the password alone still signs in
      const plain = await passwordStep();
      assert.ok((plain.json() as { csrfToken?: string }).csrfToken);
    });

    it('keeps the secret sealed at rest: the row holds no Base32 secret', async () => {
      const rows = await t.storage.db.selectFrom('totp_factors').selectAll().execute();
      assert.equal(rows.length, 1);
      assert.ok(!rows[0]!.secret_sealed.includes(secret));
      assert.match(rows[0]!.secret_sealed, /^[\w-]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    });

    it('refuses a wrong confirming code, then turns on with the right one and answers ten recovery codes once', async () => {
      const wrong = await post('/api/v1/me/second-factors/totp/confirm', { code: '000000' === codeNow() ? '111111' : '000000' }, sessionHeaders(session));
      assert.equal(wrong.statusCode, 400, wrong.body);
      assert.equal((wrong.json() as { details: { field: string }[] }).details[0]!.field, 'body.code');

      const confirmed = await post('/api/v1/me/second-factors/totp/confirm', { code: codeNow() }, sessionHeaders(session));
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      recoveryCodes = (confirmed.json() as { recoveryCodes: string[] }).recoveryCodes;
      assert.equal(recoveryCodes.length, 10);
      assert.equal(new Set(recoveryCodes).size, 10);
      for (const code of recoveryCodes) assert.match(code, /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);

      const stored = await t.storage.db.selectFrom('recovery_codes').select('code_hash').execute();
      assert.equal(stored.length, 10);
      for (const row of stored) assert.ok(!recoveryCodes.includes(row.code_hash));

      const status = await t.app.inject({ method: 'GET', url: '/api/v1/me/second-factors', headers: sessionHeaders(session) });
      const body = status.json() as { totp: { enabled: boolean }; recoveryCodesLeft: number };
      assert.equal(body.totp.enabled, true);
      assert.equal(body.recoveryCodesLeft, 10);

      const again = await post('/api/v1/me/second-factors/totp', {}, sessionHeaders(session));
      assert.equal(again.statusCode, 409, again.body);
      assert.ok((await auditKinds()).some((entry) => entry.kind === 'second_factor.enrolled' && entry.details.method === 'totp'));
    });

    it('an API key cannot manage second factors', async () => {
      const res = await post('/api/v1/me/second-factors/totp', {}, bearer(t.tenant.apiKey));
      assert.equal(res.statusCode, 403, res.body);
    });

    it('the password step then answers a challenge and no session; the code finishes the sign-in with a new session', async () => {
      clock.at += 30_000;
      const step = await passwordStep();
      assert.equal(step.headers['set-cookie'], undefined);
      const body = step.json() as {
        secondFactor: { challenge: string; methods: string[]; enrol: boolean; expiresAt: string };
        user?: unknown;
        csrfToken?: unknown;
      };
      assert.equal(body.user, undefined);
      assert.equal(body.csrfToken, undefined);
      assert.deepEqual(body.secondFactor.methods, ['totp', 'recovery_code']);
      assert.equal(body.secondFactor.enrol, false);
      assert.match(body.secondFactor.challenge, /^tbc_/);

      const finished = await post('/api/v1/auth/sign-in/second-factor', { challenge: body.secondFactor.challenge, code: codeNow() });
      assert.equal(finished.statusCode, 200, finished.body);
      const cookie = String(finished.headers['set-cookie']).split(';')[0]!;
      assert.match(cookie, /^taskboard_session=tbs_/);
      const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });
      assert.equal(me.statusCode, 200);

      // the challenge worked once
      const replay = await post('/api/v1/auth/sign-in/second-factor', { challenge: body.secondFactor.challenge, code: codeNow() });
      assert.equal(replay.statusCode, 401, replay.body);
    });

    it('refuses a code used once already (the same time step), even with a new challenge', async () => {
      const used = codeNow();
      const challenge = ((await passwordStep()).json() as { secondFactor: { challenge: string } }).secondFactor.challenge;
      const reused = await post('/api/v1/auth/sign-in/second-factor', { challenge, code: used });
      assert.equal(reused.statusCode, 401, reused.body);
      clock.at += 30_000;
      const next = await post('/api/v1/auth/sign-in/second-factor', { challenge, code: codeNow() });
      assert.equal(next.statusCode, 200, next.body);
    });

    it('accepts a code of the step before (a phone 30 s behind), but not one three steps off', async () => {
      clock.at += 60_000;
      const challenge = ((await passwordStep()).json() as { secondFactor: { challenge: string } }).secondFactor.challenge;
      const far = await post('/api/v1/auth/sign-in/second-factor', { challenge, code: codeNow(-90) });
      assert.equal(far.statusCode, 401, far.body);
      const late = await post('/api/v1/auth/sign-in/second-factor', { challenge, code: codeNow(-30) });
      assert.equal(late.statusCode, 200, late.body);
    });

    it('a recovery code works once, in any case and with spaces', async () => {
      const first = recoveryCodes[0]!;
      const challenge = ((await passwordStep()).json() as { secondFactor: { challenge: string } }).secondFactor.challenge;
      const used = await post('/api/v1/auth/sign-in/second-factor', { challenge, recoveryCode: ` ${first.toUpperCase().replaceAll('-', ' ')} ` });
      assert.equal(used.statusCode, 200, used.body);
      const again = ((await passwordStep()).json() as { secondFactor: { challenge: string } }).secondFactor.challenge;
      const twice = await post('/api/v1/auth/sign-in/second-factor', { challenge: again, recoveryCode: first });
      assert.equal(twice.statusCode, 401, twice.body);
      const status = await t.app.inject({ method: 'GET', url: '/api/v1/me/second-factors', headers: sessionHeaders(session) });
      assert.equal((status.json() as { recoveryCodesLeft: number }).recoveryCodesLeft, 9);
      const kinds = await auditKinds();
      assert.ok(kinds.some((entry) => entry.kind === 'sign_in.succeeded' && entry.details.secondFactor === 'recovery_code'));
      assert.ok(kinds.some((entry) => entry.kind === 'sign_in.failed' && entry.details.reason === 'wrong_recovery_code'));
    });

    it('wrong codes count as failed sign-ins: past the email limit every attempt is a 429, the right code too', async () => {
      clock.at += 30_000;
      // the previous test left one failure of this email; the limit is 4
      const challenge = ((await passwordStep()).json() as { secondFactor: { challenge: string } }).secondFactor.challenge;
      const wrong = codeNow() === '123456' ? '654321' : '123456';
      for (let i = 0; i < 3; i++) {
        const res = await post('/api/v1/auth/sign-in/second-factor', { challenge, code: wrong });
        assert.equal(res.statusCode, 401, res.body);
      }
      const throttled = await post('/api/v1/auth/sign-in/second-factor', { challenge, code: codeNow() });
      assert.equal(throttled.statusCode, 429, throttled.body);
      assert.ok(Number(throttled.headers['retry-after']) > 0);
      const password = await post('/api/v1/auth/sign-in', { email: MEMBER, password: TEST_PASSWORD });
      assert.equal(password.statusCode, 429, password.body);
      const failures = (await auditKinds()).filter((entry) => entry.kind === 'sign_in.failed' && entry.details.reason === 'wrong_code');
      assert.ok(failures.length >= 3);

      // the window passes: the right code signs in again
      clock.at += 901_000;
      const fresh = ((await passwordStep()).json() as { secondFactor: { challenge: string } }).secondFactor.challenge;
      const ok = await post('/api/v1/auth/sign-in/second-factor', { challenge: fresh, code: codeNow() });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    it('a challenge admits five wrong codes, then the password must be given again', async () => {
      const nothing = await post('/api/v1/auth/sign-in/second-factor', { challenge: 'tbc_nothing', code: '123456' });
      assert.equal(nothing.statusCode, 401);
      const challenge = ((await passwordStep()).json() as { secondFactor: { challenge: string } }).secondFactor.challenge;
      const row = await t.storage.db.selectFrom('sign_in_challenges').select('token_hash').execute();
      assert.ok(row.length >= 1);
      await t.storage.db.updateTable('sign_in_challenges').set({ attempts: 5 }).execute();
      const res = await post('/api/v1/auth/sign-in/second-factor', { challenge, code: codeNow() });
      assert.equal(res.statusCode, 401, res.body);
      assert.match((res.json() as { message: string }).message, /expired/);
    });

    it('a challenge lives five minutes', async () => {
      clock.at += 30_000;
      const challenge = ((await passwordStep()).json() as { secondFactor: { challenge: string } }).secondFactor.challenge;
      clock.at += 5 * 60_000 + 1000;
      const res = await post('/api/v1/auth/sign-in/second-factor', { challenge, code: codeNow() });
      assert.equal(res.statusCode, 401, res.body);
    });

    it('a password reset link sets the password but asks for the code before a session', async () => {
      clock.at += 30_000;
      const issued = await t.app.inject({
        method: 'POST',
        url: `/api/v1/companies/${t.tenant.companyId}/members/${memberId}/password-reset`,
        headers: bearer(t.tenant.apiKey),
      });
      assert.equal(issued.statusCode, 201, issued.body);
      const token = new URL((issued.json() as { url: string }).url).hash.slice(1);
      const reset = await post(`/api/v1/auth/password-reset/${token}`, { password: TEST_PASSWORD });
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal(reset.headers['set-cookie'], undefined);
      const challenge = (reset.json() as { secondFactor: { challenge: string } }).secondFactor.challenge;
      const finished = await post('/api/v1/auth/sign-in/second-factor', { challenge, code: codeNow() });
      assert.equal(finished.statusCode, 200, finished.body);
      session = await (async () => {
        const cookie = String(finished.headers['set-cookie']).split(';')[0]!;
        return { cookie, csrfToken: (finished.json() as { csrfToken: string }).csrfToken, setCookie: '' };
      })();
    });

    it('disabling needs the password and a code; then the password alone signs in', async () => {
      clock.at += 30_000;
      const wrongPassword = await post('/api/v1/me/second-factors/totp/disable', { password: 'not it at all', code: codeNow() }, sessionHeaders(session));
      assert.equal(wrongPassword.statusCode, 400, wrongPassword.body);
      const wrongCode = await post(
        '/api/v1/me/second-factors/totp/disable',
        { password: TEST_PASSWORD, code: codeNow() === '000000' ? '111111' : '000000' },
        sessionHeaders(session),
      );
      assert.equal(wrongCode.statusCode, 400, wrongCode.body);
      const stillOn = await t.app.inject({ method: 'GET', url: '/api/v1/me/second-factors', headers: sessionHeaders(session) });
      assert.equal((stillOn.json() as { totp: { enabled: boolean } }).totp.enabled, true);

      const off = await post('/api/v1/me/second-factors/totp/disable', { password: TEST_PASSWORD, code: codeNow() }, sessionHeaders(session));
      assert.equal(off.statusCode, 200, off.body);
      const plain = await passwordStep();
      assert.ok((plain.json() as { csrfToken?: string }).csrfToken);
      assert.equal(await t.storage.db.selectFrom('recovery_codes').select('id').executeTakeFirst(), undefined);

      const kinds = await auditKinds();
      assert.ok(kinds.some((entry) => entry.kind === 'second_factor.disabled'));
      assert.ok(kinds.some((entry) => entry.kind === 'second_factor.failed' && entry.details.reason === 'wrong_password'));
      assert.ok(kinds.some((entry) => entry.kind === 'second_factor.failed' && entry.details.reason === 'wrong_code'));
    });

    it('the audit log holds no secret, code or recovery code', async () => {
      const rows = await t.storage.db.selectFrom('audit_log').selectAll().execute();
      const text = JSON.stringify(rows);
      assert.ok(!text.includes(secret));
      for (const code of recoveryCodes) assert.ok(!text.includes(code));
      assert.ok(!/"code":/.test(text));
    });
  });
}
