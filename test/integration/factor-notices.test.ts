/**
 * Security notices by mail, against a real SMTP server (`smtp-server`, started here): a person whose
 * authenticator app is turned off, whose passkey is removed, or whose factors an owner resets is
 * told, in their language, with the address the change came from and a link to the account page;
 * a refused change mails nothing, and a server without mail writes nothing to the outbox.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateSync } from 'otplib';
import { loadConfig } from '../../src/config.ts';
import { insertPasskey } from '../../src/storage/repositories/second-factors.ts';
import { addMember } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { givePassword, sessionHeaders, signInAs, TEST_PASSWORD } from '../support/people.ts';
import { freePort, startSmtp, type TestSmtp } from '../support/smtp.ts';

const PUBLIC_URL = 'https://tasks.example.test';

for (const engine of ENGINES) {
  describe(`factor notices by mail [${engine}]`, () => {
    let t: TestApp;
    let smtp: TestSmtp;
    const mailTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));

    before(async () => {
      const port = await freePort();
      smtp = await startSmtp(port);
      t = await buildTestApp(engine, {
        config: {
          people: loadConfig({ SMTP_URL: smtp.url, MAIL_FROM: 'Taskboard <board@acme.test>', MAIL_TIMEOUT_MS: '2000', MAIL_POLL_MS: '600000', PUBLIC_URL })
            .people,
        },
      });
    });
    after(async () => {
      await t?.dispose();
      await smtp?.close();
    });

    async function send(): Promise<void> {
      assert.ok(t.app.mailer, 'SMTP_URL is set: the app has a mail worker');
      await t.app.mailer.tick();
    }

    /** A member with a password, signed in; their authenticator app on. */
    async function personWithApp(email: string, fullName: string, locale?: 'de') {
      const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email, fullName, role: 'member' });
      await givePassword(t.services, email);
      const session = await signInAs(t.app, email);
      const headers = sessionHeaders(session);
      if (locale) assert.equal((await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers, payload: { locale } })).statusCode, 200);
      const started = await t.app.inject({ method: 'POST', url: '/api/v1/me/second-factors/totp', headers, payload: {} });
      assert.equal(started.statusCode, 200, started.body);
      const { secret } = started.json() as { secret: string };
      const confirmed = await t.app.inject({
        method: 'POST',
        url: '/api/v1/me/second-factors/totp/confirm',
        headers,
        payload: { code: generateSync({ secret }) },
      });
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      return { ...member, headers, recoveryCodes: (confirmed.json() as { recoveryCodes: string[] }).recoveryCodes };
    }

    it('tells a person who turned their app off, and nobody when the password was wrong', async () => {
      const mia = await personWithApp('mia@acme.test', 'Mia Member');
      const refused = await t.app.inject({
        method: 'POST',
        url: '/api/v1/me/second-factors/totp/disable',
        headers: mia.headers,
        payload: { password: 'not the password at all', code: mia.recoveryCodes[0] },
      });
      assert.equal(refused.statusCode, 400, refused.body);
      await send();
      assert.deepEqual(mailTo('mia@acme.test'), []);

      const off = await t.app.inject({
        method: 'POST',
        url: '/api/v1/me/second-factors/totp/disable',
        headers: mia.headers,
        payload: { password: TEST_PASSWORD, code: mia.recoveryCodes[0] },
      });
      assert.equal(off.statusCode, 200, off.body);
      await send();
      const [mail, ...more] = mailTo('mia@acme.test');
      assert.deepEqual(more, []);
      assert.ok(mail);
      assert.equal(mail.subject, 'Two-step sign-in was turned off for your Taskboard account');
      assert.match(mail.text, /turned off for mia@acme\.test on Taskboard \(from the address 127\.0\.0\.1\)/);
      assert.ok(mail.text.includes(`${PUBLIC_URL}/account`), mail.text);
      for (const code of mia.recoveryCodes) assert.ok(!mail.text.includes(code), 'no recovery code in the mail');
    });

    it('tells a person a passkey of theirs was removed, by its name', async () => {
      await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [], email: 'pia@acme.test', fullName: 'Pia Passkey', role: 'member' });
      await givePassword(t.services, 'pia@acme.test');
      const pia = sessionHeaders(await signInAs(t.app, 'pia@acme.test'));
      const me = (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: pia })).json() as { user: { _id: string } };
      await insertPasskey(t.services.db, {
        id: '0123456789abcdef01234567',
        user_id: me.user._id,
        credential_id: 'credential-laptop',
        public_key: 'public-key',
        transports: '[]',
        name: 'Work laptop',
        created_at: new Date().toISOString(),
        last_used_at: null,
      });
      const removed = await t.app.inject({ method: 'DELETE', url: '/api/v1/me/passkeys/0123456789abcdef01234567', headers: pia });
      assert.equal(removed.statusCode, 200, removed.body);
      await send();
      const [mail] = mailTo('pia@acme.test');
      assert.ok(mail);
      assert.equal(mail.subject, 'A passkey was removed from your Taskboard account');
      assert.match(mail.text, /The passkey “Work laptop” of pia@acme\.test was removed/);
    });

    it('tells a member, in their language, that an owner reset their factors and that the company requires one', async () => {
      const max = await personWithApp('max@acme.test', 'Max Mitglied', 'de');
      const required = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/companies/${t.tenant.companyId}/second-factors`,
        headers: bearer(t.tenant.apiKey),
        payload: { required: true },
      });
      assert.equal(required.statusCode, 200, required.body);
      const reset = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/companies/${t.tenant.companyId}/members/${max.userId}/second-factors`,
        headers: bearer(t.tenant.apiKey),
      });
      assert.equal(reset.statusCode, 200, reset.body);
      await send();
      const [mail, ...more] = mailTo('max@acme.test');
      assert.deepEqual(more, []);
      assert.ok(mail);
      assert.equal(mail.subject, 'Ein Inhaber hat Ihre zweistufige Anmeldung auf Taskboard zurückgesetzt');
      assert.match(mail.text, /^Olive Owner, Inhaber von Acme, hat die zweistufige Anmeldung von max@acme\.test/);
      assert.match(mail.text, /Acme verlangt die zweistufige Anmeldung/);

      // a second reset finds nothing to remove: no second mail
      const again = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/companies/${t.tenant.companyId}/members/${max.userId}/second-factors`,
        headers: bearer(t.tenant.apiKey),
      });
      assert.equal(again.statusCode, 200, again.body);
      await send();
      assert.equal(mailTo('max@acme.test').length, 1);
    });
  });
}

describe('factor notices without mail', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp('sqlite');
  });
  after(async () => {
    await t?.dispose();
  });

  it('writes nothing to the outbox when no mail is set up', async () => {
    await givePassword(t.services, 'owner@acme.test');
    const headers = sessionHeaders(await signInAs(t.app, 'owner@acme.test'));
    const started = await t.app.inject({ method: 'POST', url: '/api/v1/me/second-factors/totp', headers, payload: {} });
    const { secret } = started.json() as { secret: string };
    const confirmed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/me/second-factors/totp/confirm',
      headers,
      payload: { code: generateSync({ secret }) },
    });
    const [code] = (confirmed.json() as { recoveryCodes: string[] }).recoveryCodes;
    const off = await t.app.inject({ method: 'POST', url: '/api/v1/me/second-factors/totp/disable', headers, payload: { password: TEST_PASSWORD, code } });
    assert.equal(off.statusCode, 200, off.body);
    assert.deepEqual(await t.services.db.selectFrom('mail_outbox').select('id').execute(), []);
  });
});
