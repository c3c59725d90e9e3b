/**
 * No secret leaves by a side door: a person's whole sign-in life (sign-in, a failed sign-in,
 * password change, invitation create/show/accept, password reset by mail and by an admin's link,
 * API key create, sign-out, a request with an ended session) runs with the app's log captured,
 * a webhook receiving the company's events and mail going to a real SMTP server (down once, so the
 * worker's failure path logs too); then no password, session token, CSRF token, invitation or
 * reset token, API key, webhook secret or argon2 hash may appear in a log line, an event row, a
 * webhook body or an error body. (The answers that hand a token over, the mails and the outbox
 * hold them by design, and are not searched.)
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { Clock } from '../../src/domain/shared/clock.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { givePassword } from '../support/people.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { freePort, startSmtp, type TestSmtp } from '../support/smtp.ts';

const PASSWORDS = {
  first: 'amber falcon meadow 4417',
  wrong: 'cobalt walrus tundra 8203',
  changed: 'saffron glacier violin 5529',
  invitee: 'juniper harbor quartz 7731',
  reset: 'mosaic lantern pepper 3306',
};

for (const engine of ENGINES) {
  describe(`no secret in logs, events, webhooks or error bodies [${engine}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    let smtp: TestSmtp | undefined;
    let port: number;
    const logLines: string[] = [];
    const errorBodies: string[] = [];
    const secrets = new Map<string, string>();
    const clock: Clock & { at: number } = {
      at: Date.now(),
      now() {
        return this.at;
      },
    };

    const keep = (what: string, value: string | undefined) => {
      assert.ok(value, `${what} was handed over`);
      secrets.set(what, value);
    };

    before(async () => {
      port = await freePort();
      t = await buildTestApp(engine, {
        clock,
        logger: {
          level: 'trace',
          stream: new Writable({
            write(chunk, _encoding, done) {
              logLines.push(String(chunk));
              done();
            },
          }),
        },
        config: {
          people: loadConfig({
            SMTP_URL: `smtp://127.0.0.1:${port}`,
            MAIL_POLL_MS: '600000',
            MAIL_TIMEOUT_MS: '2000',
            PUBLIC_URL: 'https://tasks.example.test',
          }).people,
        },
      });
      receiver = await startReceiver();
    });
    after(async () => {
      await t.dispose();
      await receiver.close();
      await smtp?.close();
    });

    /** A request; any answer of 400 or more is kept to be searched. */
    async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: object) {
      const res = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
      if (res.statusCode >= 400) errorBodies.push(res.body);
      return res;
    }

    const sessionOf = (res: { headers: Record<string, unknown>; json(): unknown }) => {
      const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
      const token = cookie.split('=')[1];
      const csrfToken = (res.json() as { csrfToken: string | null }).csrfToken ?? undefined;
      return { cookie, token, csrfToken };
    };

    async function keepHashes(): Promise<void> {
      const rows = await t.services.db.selectFrom('users').select(['email', 'password_hash']).execute();
      for (const row of rows) if (row.password_hash) secrets.set(`argon2 hash of ${row.email} (${row.password_hash.slice(-8)})`, row.password_hash);
    }

    it('runs every sign-in flow', async () => {
      const ownerKey = t.tenant.apiKey;
      keep('the bootstrap API key', ownerKey);
      const hook = await call('POST', `/api/v1/webhooks?companyId=${t.tenant.companyId}`, bearer(ownerKey), { url: receiver.url, types: ['*'] });
      assert.equal(hook.statusCode, 201, hook.body);
      keep('the webhook secret', (hook.json() as { secret: string }).secret);

      for (const [what, password] of Object.entries(PASSWORDS)) keep(`the ${what} password`, password);
      await givePassword(t.services, 'owner@acme.test', PASSWORDS.first);
      await keepHashes();

      // a failed sign-in, then a good one
      assert.equal((await call('POST', '/api/v1/auth/sign-in', {}, { email: 'owner@acme.test', password: PASSWORDS.wrong })).statusCode, 401);
      const signedIn = await call('POST', '/api/v1/auth/sign-in', {}, { email: 'owner@acme.test', password: PASSWORDS.first });
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      const first = sessionOf(signedIn);
      keep('the first session token', first.token);
      keep('the first CSRF token', first.csrfToken);
      const asOwner = { cookie: first.cookie, 'x-csrf-token': first.csrfToken ?? '' };

      // a password change: a wrong current password first
      assert.equal(
        (await call('PATCH', '/api/v1/me/password', asOwner, { currentPassword: PASSWORDS.wrong, newPassword: PASSWORDS.changed })).statusCode >= 400,
        true,
      );
      const changed = await call('PATCH', '/api/v1/me/password', asOwner, { currentPassword: PASSWORDS.first, newPassword: PASSWORDS.changed });
      assert.equal(changed.statusCode, 200, changed.body);
      await keepHashes();

      // an API key made with the session
      const key = await call('POST', '/api/v1/api-keys', asOwner, { name: 'script' });
      assert.equal(key.statusCode, 201, key.body);
      keep('the created API key', (key.json() as { token: string }).token);

      // an invitation: made, shown, refused once (a weak password), accepted
      const invited = await call('POST', `/api/v1/companies/${t.tenant.companyId}/invitations`, asOwner, {
        email: 'nina@acme.test',
        role: 'member',
        teams: [t.tenant.teamId],
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const invitationToken = /#(tbi_[A-Za-z0-9_-]+)$/.exec((invited.json() as { url: string }).url)?.[1];
      keep('the invitation token', invitationToken);
      assert.equal((await call('GET', `/api/v1/invitations/${invitationToken}`)).statusCode, 200);
      assert.equal((await call('POST', `/api/v1/invitations/${invitationToken}/accept`, {}, { fullName: 'Nina', password: 'short' })).statusCode, 400);
      const accepted = await call('POST', `/api/v1/invitations/${invitationToken}/accept`, {}, { fullName: 'Nina', password: PASSWORDS.invitee });
      assert.equal(accepted.statusCode, 200, accepted.body);
      const nina = sessionOf(accepted);
      keep("the invitee's session token", nina.token);
      keep("the invitee's CSRF token", nina.csrfToken);
      assert.equal((await call('GET', `/api/v1/invitations/${invitationToken}`)).statusCode, 404, 'a used invitation');
      await keepHashes();

      // a reset by mail: the mail server is down at the first attempt, up at the next
      assert.equal((await call('POST', '/api/v1/auth/password-reset', {}, { email: 'nina@acme.test' })).statusCode, 202);
      clock.at = Math.max(clock.at, Date.now());
      assert.equal((await t.app.mailer?.tick())?.failed, 2, 'the invitation and the reset mail wait');
      smtp = await startSmtp(port);
      clock.at += 3_600_000;
      assert.equal((await t.app.mailer?.tick())?.sent, 2);
      const mail = smtp.received.find((received) => received.subject === 'Reset your Taskboard password');
      const resetToken = /#(tbr_[A-Za-z0-9_-]+)/.exec(mail?.text ?? '')?.[1];
      keep('the mailed reset token', resetToken);
      const reset = await call('POST', `/api/v1/auth/password-reset/${resetToken}`, {}, { password: PASSWORDS.reset });
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal((await call('POST', `/api/v1/auth/password-reset/${resetToken}`, {}, { password: PASSWORDS.reset })).statusCode, 404, 'a used reset');
      await keepHashes();

      // an admin's reset link for a member
      const ninaId = (accepted.json() as { user: { _id: string } }).user._id;
      const link = await call('POST', `/api/v1/companies/${t.tenant.companyId}/members/${ninaId}/password-reset`, asOwner);
      assert.equal(link.statusCode, 201, link.body);
      keep("the admin's reset token", /#(tbr_[A-Za-z0-9_-]+)$/.exec((link.json() as { url: string }).url)?.[1]);

      // sign-out, then the ended session and a forged key are refused
      assert.equal((await call('POST', '/api/v1/auth/sign-out', asOwner)).statusCode, 204);
      assert.equal((await call('GET', '/api/v1/me', asOwner)).statusCode, 401);
      assert.equal((await call('GET', '/api/v1/me', { cookie: nina.cookie })).statusCode, 401, 'the reset ended her sessions');
      assert.equal((await call('GET', '/api/v1/me', bearer(`${ownerKey.slice(0, -4)}AAAA`))).statusCode, 401);
      assert.equal((await call('POST', '/api/v1/auth/sign-in', {}, { email: 'nina@acme.test', password: PASSWORDS.invitee })).statusCode, 401);
    });

    it('none of them appears in the log, the events, the webhook bodies or an error body', async () => {
      // the company's events reach the receiver (a member joined); wait for them so there is something to search
      await receiver.until((received) => received.some((r) => r.body.includes('company.member.added')), 20_000, 'the member.added delivery');
      const events = await t.services.db.selectFrom('events').selectAll().execute();
      const places: Record<string, string[]> = {
        'the log': logLines,
        'the event record': events.map((row) => JSON.stringify(row)),
        'a webhook body': receiver.received.map((r) => `${JSON.stringify(r.headers)}\n${r.body}`),
        'an error body': errorBodies,
      };
      assert.ok(logLines.length > 20, 'the log was captured');
      assert.ok(
        logLines.some((line) => line.includes('mail not sent')),
        "the mail worker's failure was logged",
      );
      assert.ok(errorBodies.length >= 8, 'the error answers were kept');
      assert.ok(secrets.size >= 15, `${secrets.size} secrets`);
      const leaks: string[] = [];
      for (const [place, texts] of Object.entries(places)) {
        for (const text of texts) {
          for (const [what, secret] of secrets) if (text.includes(secret)) leaks.push(`${what} in ${place}: ${text.slice(0, 300)}`);
          if (/\$argon2/.test(text)) leaks.push(`an argon2 hash in ${place}: ${text.slice(0, 300)}`);
        }
      }
      assert.deepEqual(leaks, []);
    });
  });
}
