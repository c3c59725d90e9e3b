/**
 * Passkeys over the API (docs/people.md, "Passkeys"): what can be checked without an authenticator.
 * Registration options ask for a discoverable credential and a verified user for this site; a
 * forged answer is refused and stores nothing; an API key manages none; another person's passkey is
 * a 404; a passkey-alone sign-in with a forged answer counts as a failed sign-in of the address; a
 * person with a passkey is asked for it after the password. `test/browser/passkeys.test.ts` does the
 * real ceremonies in Chromium with a virtual authenticator.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { addMember } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp, testConfig } from '../support/harness.ts';
import { type BrowserSession, givePassword, sessionHeaders, signInAs, TEST_PASSWORD } from '../support/people.ts';

const MEMBER = 'pat@acme.test';
const FORGED = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA', attestationObject: 'AAAA' },
  clientExtensionResults: {},
};

for (const engine of ENGINES) {
  describe(`passkeys over the API [${engine}]`, () => {
    let t: TestApp;
    let session: BrowserSession;
    let memberId = '';

    before(async () => {
      t = await buildTestApp(engine, {
        config: { people: { ...testConfig().people, signInFailures: { perEmail: 10, perAddress: 3, windowSeconds: 900 } } },
      });
      memberId = (await addMember(t.services, { companyId: t.tenant.companyId, email: MEMBER, role: 'member' })).userId;
      await givePassword(t.services, MEMBER);
      session = await signInAs(t.app, MEMBER);
    });
    after(() => t.dispose());

    const post = (url: string, payload: object, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url, headers, payload });

    it('registration options ask for a discoverable credential and a verified user, for this host', async () => {
      const res = await post('/api/v1/me/passkeys/options', {}, { ...sessionHeaders(session), host: 'tasks.example.test' });
      assert.equal(res.statusCode, 200, res.body);
      const { options } = res.json() as {
        options: { rp: { id: string; name: string }; user: { name: string }; challenge: string; authenticatorSelection: Record<string, string> };
      };
      assert.equal(options.rp.id, 'tasks.example.test');
      assert.equal(options.rp.name, 'Taskboard');
      assert.equal(options.user.name, MEMBER);
      assert.equal(options.authenticatorSelection.residentKey, 'required');
      assert.equal(options.authenticatorSelection.userVerification, 'required');
      assert.match(options.challenge, /^[\w-]{20,}$/);
    });

    it('refuses a forged answer with a 400 and stores nothing; the registration is used up', async () => {
      const res = await post('/api/v1/me/passkeys', { name: 'Laptop', response: FORGED }, sessionHeaders(session));
      assert.equal(res.statusCode, 400, res.body);
      const again = await post('/api/v1/me/passkeys', { name: 'Laptop', response: FORGED }, sessionHeaders(session));
      assert.equal(again.statusCode, 400, again.body);
      assert.match((again.json() as { message: string }).message, /start again/);
      const listed = await t.app.inject({ method: 'GET', url: '/api/v1/me/passkeys', headers: sessionHeaders(session) });
      assert.deepEqual((listed.json() as { passkeys: unknown[] }).passkeys, []);
    });

    it('an API key manages no passkeys', async () => {
      assert.equal((await post('/api/v1/me/passkeys/options', {}, bearer(t.tenant.apiKey))).statusCode, 403);
    });

    it("another person's passkey is a 404, and stays", async () => {
      const id = newId();
      await t.storage.db
        .insertInto('passkeys')
        .values({
          id,
          user_id: t.tenant.userId,
          credential_id: 'owner-credential',
          public_key: 'AAAA',
          counter: 0,
          transports: '["internal"]',
          name: 'Owner laptop',
          created_at: new Date().toISOString(),
          last_used_at: null,
        })
        .execute();
      const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/me/passkeys/${id}`, headers: sessionHeaders(session) });
      assert.equal(res.statusCode, 404, res.body);
      assert.ok(await t.storage.db.selectFrom('passkeys').select('id').where('id', '=', id).executeTakeFirst());
    });

    it('a passkey-alone sign-in: discoverable options; a forged answer is a failed sign-in of the address, then 429', async () => {
      const started = await post('/api/v1/auth/passkey/options', {});
      assert.equal(started.statusCode, 200, started.body);
      const { handle, options } = started.json() as { handle: string; options: { allowCredentials?: unknown[]; userVerification: string } };
      assert.equal(options.userVerification, 'required');
      assert.ok(!options.allowCredentials || options.allowCredentials.length === 0);
      const address = { remoteAddress: '203.0.113.9' };
      const first = await t.app.inject({ method: 'POST', url: '/api/v1/auth/passkey', payload: { handle, response: FORGED }, ...address });
      assert.equal(first.statusCode, 401, first.body);
      assert.equal(first.headers['set-cookie'], undefined);
      for (let i = 0; i < 2; i++) {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/passkey', payload: { handle: 'nothing', response: FORGED }, ...address });
        assert.equal(res.statusCode, 401, res.body);
      }
      const throttled = await t.app.inject({ method: 'POST', url: '/api/v1/auth/passkey', payload: { handle, response: FORGED }, ...address });
      assert.equal(throttled.statusCode, 429, throttled.body);
      const failures = await t.storage.db.selectFrom('audit_log').select('details').where('kind', '=', 'sign_in.failed').execute();
      assert.ok(failures.some((row) => JSON.parse(row.details).reason === 'passkey_refused'));
    });

    it('a person with a passkey is asked for it after the password, with their passkeys offered', async () => {
      const step = await post('/api/v1/auth/sign-in', { email: 'owner@acme.test', password: TEST_PASSWORD });
      // the owner has no password in this world: give one, then sign in
      assert.equal(step.statusCode, 401);
      await givePassword(t.services, 'owner@acme.test');
      const asked = await post('/api/v1/auth/sign-in', { email: 'owner@acme.test', password: TEST_PASSWORD });
      assert.equal(asked.statusCode, 200, asked.body);
      const { secondFactor } = asked.json() as { secondFactor: { challenge: string; methods: string[] } };
      assert.deepEqual(secondFactor.methods, ['passkey']);
      const options = await post('/api/v1/auth/sign-in/passkey', { challenge: secondFactor.challenge });
      assert.equal(options.statusCode, 200, options.body);
      const offered = (options.json() as { options: { allowCredentials: { id: string }[] } }).options.allowCredentials;
      assert.deepEqual(
        offered.map((credential) => credential.id),
        ['owner-credential'],
      );
      const forged = await post('/api/v1/auth/sign-in/second-factor', { challenge: secondFactor.challenge, passkey: { ...FORGED, id: 'owner-credential' } });
      assert.equal(forged.statusCode, 401, forged.body);
      assert.equal(forged.headers['set-cookie'], undefined);
      // the owner's company shows the passkey as a factor
      const factors = await t.app.inject({ method: 'GET', url: `/api/v1/companies/${t.tenant.companyId}/second-factors`, headers: bearer(t.tenant.apiKey) });
      const members = (factors.json() as { members: { user: string; methods: string[] }[] }).members;
      assert.deepEqual(members.find((member) => member.user === t.tenant.userId)?.methods, ['passkey']);
      assert.deepEqual(members.find((member) => member.user === memberId)?.methods, []);
    });
  });
}
