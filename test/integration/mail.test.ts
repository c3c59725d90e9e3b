/**
 * The mail worker against a real SMTP server (`smtp-server`, started here), reading what it received:
 * invitation and reset mails whose links work, notifications gathered per person per minute into one
 * digest (an injected clock, no sleeps), a server down then back (kept, retried, delivered once), a
 * server that accepts and never answers (cut by MAIL_TIMEOUT_MS), and two instances on one
 * PostgreSQL sending each mail once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { type AppConfig, loadConfig } from '../../src/config.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { toggleMembers } from '../../src/domain/cards/members.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import { DIGEST_WINDOW_MS } from '../../src/domain/mail/notification-mail.ts';
import { retryDelayMs } from '../../src/domain/mail/worker.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import type { Clock } from '../../src/domain/shared/clock.ts';
import { openStorage } from '../../src/storage/open.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, needsPostgres, type TestApp } from '../support/harness.ts';
import { givePassword, signInAs } from '../support/people.ts';
import { eventually } from '../support/receiver.ts';
import { freePort, startSilentServer, startSmtp, type TestSmtp } from '../support/smtp.ts';

const PUBLIC_URL = 'https://tasks.example.test';
const TIMEOUT_MS = 2000;
const NEW_PASSWORD = 'granite lantern harbour 77';
const METRICS_TOKEN = 'metrics-token-0123456789';

/**
 * A clock the test moves on. Messages are written with the system's time (as every record is), so
 * before each pass the clock catches up with the system's when it is behind: it never goes back.
 */
function manualClock(at: number): Clock & { at: number; catchUp(): void } {
  return {
    at,
    now() {
      return this.at;
    },
    catchUp() {
      this.at = Math.max(this.at, Date.now());
    },
  };
}

/** The people settings with mail on at `port`; passes only when ticked (the poll is ten minutes). */
function mailConfig(port: number): Pick<AppConfig, 'people'> {
  return {
    people: loadConfig({
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: 'Taskboard <board@acme.test>',
      MAIL_TIMEOUT_MS: String(TIMEOUT_MS),
      MAIL_POLL_MS: '600000',
      PUBLIC_URL,
    }).people,
  };
}

async function outbox(t: TestApp, to: string) {
  return t.services.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', to).orderBy('created_at').orderBy('id').execute();
}

for (const engine of ENGINES) {
  describe(`mail [${engine}]`, () => {
    let t: TestApp;
    let port: number;
    let smtp: TestSmtp | undefined;
    // the outbox's own times are the system's: the clock starts there and only moves on
    const clock = manualClock(Date.now());
    const mailTo = (address: string) => (smtp?.received ?? []).filter((mail) => mail.to.includes(address));

    before(async () => {
      port = await freePort();
      smtp = await startSmtp(port);
      t = await buildTestApp(engine, { clock, config: { ...mailConfig(port), metrics: { token: METRICS_TOKEN, port: undefined, host: '127.0.0.1' } } });
      // the first pass sets the notification cursor; what came before mail was on is not mailed
      await mailer().tick();
    });
    after(async () => {
      await t.dispose();
      await smtp?.close();
    });

    const mailer = () => {
      assert.ok(t.app.mailer, 'SMTP_URL is set: the app has a mail worker');
      const job = t.app.mailer;
      return {
        tick: () => {
          clock.catchUp();
          return job.tick();
        },
      };
    };

    /**
     * Passes until `count` notifications have become mail rows (on PostgreSQL the event feed holds
     * back what committed behind a transaction still running anywhere on the server); answers the
     * mails those passes sent.
     */
    async function gather(count: number): Promise<number> {
      let gathered = 0;
      let sent = 0;
      await eventually(
        async () => {
          const pass = await mailer().tick();
          gathered += pass.gathered;
          sent += pass.sent;
          return gathered;
        },
        (total) => total >= count,
        20_000,
        `${count} notifications to be gathered`,
      );
      assert.equal(gathered, count);
      return sent;
    }

    /** `taskboard_mail_sends_total` by outcome, as a scrape of /metrics shows it now. */
    async function mailSends(): Promise<{ sent: number; failed: number }> {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      assert.equal(res.statusCode, 200);
      const count = (outcome: string) => Number(new RegExp(`^taskboard_mail_sends_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(res.body)?.[1] ?? 0);
      return { sent: count('sent'), failed: count('failed') };
    }

    async function invite(email: string): Promise<string> {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/companies/${t.tenant.companyId}/invitations`,
        headers: bearer(t.tenant.apiKey),
        payload: { email, role: 'member', teams: [t.tenant.teamId] },
      });
      assert.equal(res.statusCode, 201, res.body);
      return (res.json() as { url: string }).url;
    }

    it('mails an invitation from the configured sender; the link in it opens the invitation', async () => {
      const url = await invite('nina@acme.test');
      assert.deepEqual(mailTo('nina@acme.test'), [], 'nothing is sent by the request itself');
      const pass = await mailer().tick();
      assert.equal(pass.sent, 1);
      const [mail, ...more] = mailTo('nina@acme.test');
      assert.ok(mail);
      assert.deepEqual(more, []);
      assert.equal(mail.from, 'board@acme.test');
      assert.equal(mail.subject, 'Olive Owner invited you to Acme on Taskboard');
      assert.ok(mail.text.includes(url), mail.text);
      const token = /#(tbi_[A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
      assert.ok(token);
      const preview = await t.app.inject({ method: 'GET', url: `/api/v1/invitations/${token}` });
      assert.equal(preview.statusCode, 200, preview.body);
      const [row] = await outbox(t, 'nina@acme.test');
      assert.ok(row?.sent_at);
      assert.equal(row.attempts, 1);
      assert.equal((await mailer().tick()).sent, 0, 'a sent mail is not sent again');
      assert.equal(mailTo('nina@acme.test').length, 1);
    });

    it('mails a password reset link that sets a new password; an unknown email gets nothing', async () => {
      await givePassword(t.services, 'owner@acme.test');
      for (const email of ['owner@acme.test', 'nobody@acme.test']) {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email } });
        assert.equal(res.statusCode, 202, res.body);
      }
      await mailer().tick();
      assert.deepEqual(mailTo('nobody@acme.test'), []);
      const [mail, ...more] = mailTo('owner@acme.test');
      assert.ok(mail);
      assert.deepEqual(more, []);
      assert.equal(mail.subject, 'Reset your Taskboard password');
      const token = /#(tbr_[A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
      assert.ok(token, mail.text);
      const reset = await t.app.inject({ method: 'POST', url: `/api/v1/auth/password-reset/${token}`, payload: { password: NEW_PASSWORD } });
      assert.equal(reset.statusCode, 200, reset.body);
      await signInAs(t.app, 'owner@acme.test', NEW_PASSWORD);
    });

    async function setLanguage(locale: string | null): Promise<void> {
      const res = await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: bearer(t.tenant.apiKey), payload: { locale } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as { user: { locale: string | null } }).user.locale, locale);
    }

    it("mails a reset link in the recipient's language, and an invitation in the inviter's to a newcomer", async () => {
      await setLanguage('de');
      try {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email: 'owner@acme.test' } });
        assert.equal(res.statusCode, 202, res.body);
        await mailer().tick();
        const reset = mailTo('owner@acme.test').at(-1);
        assert.equal(reset?.subject, 'Setzen Sie Ihr Taskboard-Passwort zurück');
        assert.ok(reset.text.includes('Neues Passwort wählen (1 Stunde gültig):'), reset.text);
        assert.ok(/#tbr_[A-Za-z0-9_-]+/.test(reset.text), 'the link is in it');
        await setLanguage('ar');
        await invite('omar@acme.test');
        await mailer().tick();
        const [invitation] = mailTo('omar@acme.test');
        assert.equal(invitation?.subject, 'دعاك Olive Owner إلى Acme على Taskboard');
      } finally {
        await setLanguage(null);
      }
      await t.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email: 'owner@acme.test' } });
      await mailer().tick();
      assert.equal(mailTo('owner@acme.test').at(-1)?.subject, 'Reset your Taskboard password', 'no language chosen: English');
    });

    it('gathers the notifications of a minute into one mail, to the people who asked for them only', async () => {
      const ann = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ann@acme.test', fullName: 'Ann' });
      const bob = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'bob@acme.test', fullName: 'Bob' });
      const optIn = await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: bearer(ann.apiKey), payload: { emailNotifications: true } });
      assert.equal(optIn.statusCode, 200, optIn.body);
      assert.equal((optIn.json() as { user: { emailNotifications: boolean } }).user.emailNotifications, true);

      const owner: Caller = await authenticate(t.services, t.tenant.apiKey);
      const { boardId, listIds } = await seedBoard(t.services, t.tenant, { lists: 1 });
      const list = listIds[0] as string;
      const first = await createCard(t.services, owner, {}, { list, name: 'Write the plan' });
      const second = await createCard(t.services, owner, {}, { list, name: 'Ship the plan' });
      await toggleMembers(t.services, owner, first._id, {}, [ann.userId, bob.userId]);
      await toggleMembers(t.services, owner, second._id, {}, [ann.userId]);

      // Ann's two notifications; Bob did not ask
      assert.equal(await gather(2), 0, 'the minute is not over');
      assert.deepEqual(mailTo('ann@acme.test'), []);

      clock.at += DIGEST_WINDOW_MS - 1000;
      assert.equal((await mailer().tick()).sent, 0);
      clock.at += 1000;
      assert.equal((await mailer().tick()).sent, 1);
      const [digest, ...more] = mailTo('ann@acme.test');
      assert.ok(digest);
      assert.deepEqual(more, []);
      assert.equal(digest.subject, '2 new notifications on Taskboard');
      assert.ok(digest.text.includes('Olive Owner added you to “Write the plan” on Board'), digest.text);
      assert.ok(digest.text.includes('Olive Owner added you to “Ship the plan” on Board'), digest.text);
      assert.ok(digest.text.includes(`${PUBLIC_URL}/boards/${boardId}?card=${first._id}`), digest.text);
      assert.deepEqual(mailTo('bob@acme.test'), []);

      // the outbox agrees with the notifications table: one row per notification of Ann's, each sent
      const notifications = await t.services.db.selectFrom('notifications').select('id').where('user_id', '=', ann.userId).execute();
      const rows = await outbox(t, 'ann@acme.test');
      assert.equal(rows.length, notifications.length);
      assert.ok(rows.every((row) => row.sent_at !== null && row.kind === 'notification'));

      // a later notification opens a window of its own: a mail of its own, alone
      const third = await createCard(t.services, owner, {}, { list, name: 'Review the plan' });
      await toggleMembers(t.services, owner, third._id, {}, [ann.userId]);
      assert.equal(await gather(1), 0);
      clock.at += DIGEST_WINDOW_MS;
      assert.equal((await mailer().tick()).sent, 1);
      const last = mailTo('ann@acme.test')[1];
      assert.equal(last?.subject, 'Olive Owner added you to “Review the plan” on Board');
      assert.equal(mailTo('ann@acme.test').length, 2);

      // Ann opts out as Bob opts in: of two notifications of one change, only Bob's becomes mail
      const optOut = await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: bearer(ann.apiKey), payload: { emailNotifications: false } });
      assert.equal((optOut.json() as { user: { emailNotifications: boolean } }).user.emailNotifications, false);
      await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: bearer(bob.apiKey), payload: { emailNotifications: true } });
      const fourth = await createCard(t.services, owner, {}, { list, name: 'Celebrate' });
      await toggleMembers(t.services, owner, fourth._id, {}, [ann.userId, bob.userId]);
      assert.equal(await gather(1), 0);
      clock.at += DIGEST_WINDOW_MS;
      assert.equal((await mailer().tick()).sent, 1);
      assert.equal(mailTo('ann@acme.test').length, 2);
      assert.equal(mailTo('bob@acme.test')[0]?.subject, 'Olive Owner added you to “Celebrate” on Board');
    });

    it('names each kind of notification in its line: assignment, comment, cheer, reply and due reminder', async () => {
      const cara = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'cara@acme.test', fullName: 'Cara' });
      assert.equal(
        (await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: bearer(cara.apiKey), payload: { emailNotifications: true } })).statusCode,
        200,
      );
      const owner: Caller = await authenticate(t.services, t.tenant.apiKey);
      const { listIds } = await seedBoard(t.services, t.tenant, { lists: 1 });
      clock.catchUp();
      const card = await createCard(
        t.services,
        owner,
        {},
        { list: listIds[0] as string, name: 'Launch', dueDate: new Date(clock.at + 30 * 60_000).toISOString() },
      );
      await toggleMembers(t.services, owner, card._id, {}, [cara.userId]);
      const post = async (key: string, url: string, payload: object) => {
        const res = await t.app.inject({ method: 'POST', url, headers: bearer(key), payload });
        assert.equal(res.statusCode, 201, res.body);
        return res.json() as Record<string, { _id: string }>;
      };
      await post(t.tenant.apiKey, `/api/v1/cards/${card._id}/comments`, { content: 'Ready?' });
      const mine = (await post(cara.apiKey, `/api/v1/cards/${card._id}/comments`, { content: 'Almost' })).comment?._id;
      await post(t.tenant.apiKey, `/api/v1/comments/${mine}/cheers`, { content: '👏' });
      await post(t.tenant.apiKey, `/api/v1/comments/${mine}/discussions`, { content: 'Great' });
      assert.equal(await t.app.reminders.tick(), 1, 'the one-hour due reminder');

      assert.equal(await gather(5), 0);
      clock.at += DIGEST_WINDOW_MS;
      assert.equal((await mailer().tick()).sent, 1);
      const [mail, ...more] = mailTo('cara@acme.test');
      assert.ok(mail);
      assert.deepEqual(more, []);
      assert.equal(mail.subject, '5 new notifications on Taskboard');
      for (const line of [
        'Olive Owner added you to “Launch” on Board',
        'Olive Owner commented on “Launch” on Board',
        'Olive Owner cheered you on “Launch” on Board',
        'Olive Owner replied to your comment on “Launch” on Board',
        '“Launch” on Board is due within an hour',
      ])
        assert.ok(mail.text.includes(`- ${line}\n  ${PUBLIC_URL}/boards/`), `${line} in:\n${mail.text}`);
    });

    it('keeps a mail while the server is down, tries again later and delivers it once when it is back', async () => {
      await smtp?.close();
      smtp = undefined;
      await invite('dora@acme.test');
      const before = await mailSends();
      const down = await mailer().tick();
      assert.deepEqual([down.sent, down.failed], [0, 1]);
      const [row] = await outbox(t, 'dora@acme.test');
      assert.ok(row);
      assert.equal(row.sent_at, null);
      assert.equal(row.attempts, 1);
      assert.match(row.last_error ?? '', /ECONNREFUSED/);
      assert.equal(row.next_attempt_at, new Date(clock.at + retryDelayMs(1)).toISOString());
      assert.deepEqual(await mailSends(), { sent: before.sent, failed: before.failed + 1 });

      smtp = await startSmtp(port);
      const early = await mailer().tick();
      assert.deepEqual([early.sent, early.failed], [0, 0], 'not due before its next attempt');
      assert.deepEqual(mailTo('dora@acme.test'), []);
      clock.at += retryDelayMs(1);
      assert.equal((await mailer().tick()).sent, 1);
      assert.equal(mailTo('dora@acme.test').length, 1);
      const [sent] = await outbox(t, 'dora@acme.test');
      assert.ok(sent?.sent_at);
      assert.equal(sent.last_error, null);
      assert.equal(sent.attempts, 2);
      assert.deepEqual(await mailSends(), { sent: before.sent + 1, failed: before.failed + 1 });
    });

    it('cuts a server that accepts the connection and never answers, and sends once a server answers', async () => {
      await smtp?.close();
      smtp = undefined;
      const silent = await startSilentServer(port);
      try {
        await invite('sam@acme.test');
        assert.equal(silent.accepted, 0, 'the request did not wait on the mail server');
        const pass = await mailer().tick();
        assert.deepEqual([pass.sent, pass.failed], [0, 1]);
        assert.equal(silent.accepted, 1);
        const [row] = await outbox(t, 'sam@acme.test');
        assert.match(row?.last_error ?? '', /greeting|timeout/i);
        await eventually(
          async () => silent.closedByPeer,
          (closed) => closed === 1,
          10_000,
          'the worker to close its connection',
        );
      } finally {
        await silent.close();
      }
      smtp = await startSmtp(port);
      clock.at += retryDelayMs(1);
      assert.equal((await mailer().tick()).sent, 1);
      assert.equal(mailTo('sam@acme.test').length, 1);
    });
  });
}

describe('mail with two instances on one PostgreSQL', needsPostgres, () => {
  let t: TestApp;
  let b: App;
  let smtp: TestSmtp;
  const clock = manualClock(Date.now());

  before(async () => {
    smtp = await startSmtp();
    t = await buildTestApp('postgres', { clock, config: mailConfig(smtp.port) });
    const second = openStorage(t.url);
    b = await buildApp({ config: t.config, storage: second, rateLimiter: null, logger: false, clock });
    b.addHook('onClose', async () => second.close());
    await b.ready();
    await Promise.all([t.app.mailer?.tick(), b.mailer?.tick()]);
  });
  after(async () => {
    await b.close();
    await t.dispose();
    await smtp.close();
  });

  it('gathers each notification once and sends each mail once', async () => {
    const [a, other] = [t.app.mailer, b.mailer];
    assert.ok(a && other);
    const invited = Array.from({ length: 12 }, (_, i) => `guest${i}@acme.test`);
    for (const email of invited) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/companies/${t.tenant.companyId}/invitations`,
        headers: bearer(t.tenant.apiKey),
        payload: { email, role: 'member' },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    const ann = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ann@acme.test' });
    await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: bearer(ann.apiKey), payload: { emailNotifications: true } });
    const owner = await authenticate(t.services, t.tenant.apiKey);
    const { listIds } = await seedBoard(t.services, t.tenant, { lists: 1 });
    for (let i = 0; i < 3; i++) {
      const card = await createCard(t.services, owner, {}, { list: listIds[0] as string, name: `Card ${i}` });
      await toggleMembers(t.services, owner, card._id, {}, [ann.userId]);
    }

    clock.catchUp();
    let sent = 0;
    let gathered = 0;
    await eventually(
      async () => {
        const passes = await Promise.all([a.tick(), other.tick()]);
        sent += passes.reduce((sum, pass) => sum + pass.sent, 0);
        gathered += passes.reduce((sum, pass) => sum + pass.gathered, 0);
        return gathered;
      },
      (total) => total >= 3,
      20_000,
      "Ann's three notifications to be gathered",
    );
    assert.equal(gathered, 3, 'each notification gathered by one instance');
    assert.equal(sent, invited.length, 'each invitation sent by one instance');
    clock.at += DIGEST_WINDOW_MS;
    await Promise.all([a.tick(), other.tick()]);

    const received = smtp.received.flatMap((mail) => mail.to);
    assert.deepEqual([...received].sort(), [...invited, 'ann@acme.test'].sort());
    const digest = smtp.received.find((mail) => mail.to.includes('ann@acme.test'));
    assert.equal(digest?.subject, '3 new notifications on Taskboard');
  });
});

for (const engine of ENGINES) {
  describe(`mail worker stop [${engine}]`, () => {
    it('abandons a send to a server that never answers instead of waiting out its timeouts; the mail waits for the next process', async () => {
      const port = await freePort();
      const silent = await startSilentServer(port);
      const clock = manualClock(Date.now());
      // timeouts far longer than the test: only the stop can end the send
      const config = mailConfig(port);
      const t = await buildTestApp(engine, { clock, config: { people: { ...config.people, mail: { ...config.people.mail, timeoutMs: 600_000 } } } });
      try {
        const mailer = t.app.mailer;
        assert.ok(mailer);
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/v1/companies/${t.tenant.companyId}/invitations`,
          headers: bearer(t.tenant.apiKey),
          payload: { email: 'sam@acme.test', role: 'member' },
        });
        assert.equal(res.statusCode, 201, res.body);
        clock.catchUp();
        const pass = mailer.tick();
        await eventually(
          async () => silent.accepted,
          (accepted) => accepted === 1,
          10_000,
          'the worker to connect',
        );
        await mailer.stop();
        assert.deepEqual(await pass, { gathered: 0, summaries: 0, sent: 0, failed: 1 });
        const [row] = await outbox(t, 'sam@acme.test');
        assert.equal(row?.sent_at, null);
        assert.equal(row?.last_error, 'abandoned: the server is stopping');
      } finally {
        await t.dispose();
        await silent.close();
      }
    });
  });
}
