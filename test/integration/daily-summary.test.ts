/**
 * The daily summary mail against a real SMTP server, with an injected clock (no sleeps): a person who
 * chose it gets no minute digest, and one mail a day from 8:00 in their time zone, in their language,
 * with their cards due today, this week and overdue, and what changed on their cards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DateTime } from 'luxon';
import { loadConfig } from '../../src/config.ts';
import { manualClock } from '../support/clock.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

const PUBLIC_URL = 'https://tasks.example.test';
const ZONE = 'Asia/Tokyo';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Half an hour before the next 08:00 in Tokyo (no daylight saving there) after the system's now. Writes
 * are stamped by the system's clock, not the injected one, so the summary's 8:00 must come within the
 * day after them for them to count as what changed since the day before.
 */
function halfHourBeforeNextTokyoEight(): number {
  const now = DateTime.now().setZone(ZONE);
  let eight = now.set({ hour: 8, minute: 0, second: 0, millisecond: 0 });
  if (eight <= now) eight = eight.plus({ days: 1 });
  return eight.minus({ minutes: 30 }).toMillis();
}

for (const engine of ENGINES) {
  describe(`daily summary mail [${engine}]`, () => {
    let t: TestApp;
    let smtp: TestSmtp;
    let owner: Api;
    let ann: { userId: string; api: Api };
    let bea: { userId: string; api: Api };
    const clock = manualClock(halfHourBeforeNextTokyoEight());
    const mailTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));

    before(async () => {
      smtp = await startSmtp();
      const people = loadConfig({
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Taskboard <board@acme.test>',
        MAIL_TIMEOUT_MS: '2000',
        MAIL_POLL_MS: '600000',
        PUBLIC_URL,
      }).people;
      t = await buildTestApp(engine, { clock, config: { people } });
      owner = apiClient(t, t.tenant.apiKey);
      const a = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ann@acme.test', fullName: 'Ann' });
      const b = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'bea@acme.test', fullName: 'Bea' });
      ann = { userId: a.userId, api: apiClient(t, a.apiKey) };
      bea = { userId: b.userId, api: apiClient(t, b.apiKey) };
      // the first pass sets the notification cursor
      await tick();
    });
    after(async () => {
      await t.dispose();
      await smtp.close();
    });

    function tick() {
      assert.ok(t.app.mailer, 'SMTP_URL is set: the app has a mail worker');
      return t.app.mailer.tick();
    }

    it('takes a time zone and the daily cadence on PATCH /me, and refuses a zone it does not know', async () => {
      const me = (await ann.api('GET', '/api/v1/me')).json().user;
      assert.deepEqual([me.timeZone, me.emailCadence], [null, 'minute'], 'no zone chosen: the browser’s in the web app, UTC for mail');
      const set = await ann.api('PATCH', '/api/v1/me', { emailNotifications: true, emailCadence: 'daily', timeZone: ZONE });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual([set.json().user.timeZone, set.json().user.emailCadence], [ZONE, 'daily']);
      for (const timeZone of ['Mars/Base', '', 'UTC+1']) {
        const refused = await ann.api('PATCH', '/api/v1/me', { timeZone, fullName: 'Changed' });
        assert.equal(refused.statusCode, 400, refused.body);
        assert.ok(JSON.stringify(refused.json()).includes('timeZone'), refused.body);
      }
      assert.equal((await ann.api('GET', '/api/v1/me')).json().user.fullName, 'Ann', 'nothing written');
      assert.equal((await ann.api('PATCH', '/api/v1/me', { emailCadence: 'weekly' })).statusCode, 400);
      const german = await bea.api('PATCH', '/api/v1/me', { emailNotifications: true, emailCadence: 'daily', timeZone: ZONE, locale: 'de' });
      assert.equal(german.statusCode, 200, german.body);
    });

    it('sends no minute digest, then one summary from 8:00 in their zone, in their language, once a day', async () => {
      const { boardId, listIds } = await seedBoard(t.services, t.tenant, { lists: 1 });
      const list = listIds[0] as string;
      const card = async (name: string, due: number | null, members: string[]) => {
        const res = await owner('POST', '/api/v1/cards', { list, name, ...(due === null ? {} : { dueDate: new Date(due).toISOString() }) });
        assert.equal(res.statusCode, 201, res.body);
        const id = res.json().card._id as string;
        if (members.length) assert.equal((await owner('POST', `/v2/cards/${id}/members`, { members })).statusCode, 200);
        return id;
      };
      const eight = clock.at + 30 * MINUTE;
      const today = await card('Send the invoice', eight + 3 * HOUR, [ann.userId, bea.userId]);
      await card('Plan the offsite', eight + 2 * DAY, [ann.userId]);
      await card('Fix the printer', eight - 5 * HOUR, [ann.userId]);
      await card('Far away', eight + 20 * DAY, [ann.userId]);
      await card('Not hers', eight + HOUR, []);
      const done = await card('Done already', eight + HOUR, [ann.userId]);
      assert.equal((await owner('PATCH', `/api/v1/cards/${done}`, { complete: { status: true } })).statusCode, 200);
      assert.equal((await owner('POST', `/api/v1/cards/${today}/comments`, { content: 'Numbers are in' })).statusCode, 201);

      // gathered, but no digest rows: Ann and Bea chose the daily summary
      clock.at += MINUTE;
      await tick();
      clock.at += 2 * MINUTE;
      await tick();
      assert.deepEqual(mailTo('ann@acme.test'), [], 'no digest, and not 8:00 yet in Tokyo');
      const digestRows = await t.services.db.selectFrom('mail_outbox').select('id').where('kind', '=', 'notification').execute();
      assert.deepEqual(digestRows, []);

      clock.at = eight - 1000;
      await tick();
      assert.deepEqual(mailTo('ann@acme.test'), []);
      clock.at = eight;
      const pass = await tick();
      assert.equal(pass.summaries, 2);
      const [mail, ...more] = mailTo('ann@acme.test');
      assert.ok(mail);
      assert.deepEqual(more, []);
      assert.equal(mail.subject, 'Your day on Taskboard: 1 card due today, 1 overdue');
      const text = mail.text;
      const section = (title: string, next: string | null) => text.slice(text.indexOf(title), next ? text.indexOf(next) : undefined);
      assert.ok(section('Due today', 'Due this week').includes('“Send the invoice” on Board'), text);
      assert.ok(section('Due today', 'Due this week').includes(`${PUBLIC_URL}/boards/${boardId}?card=${today}`), text);
      assert.ok(section('Due this week', 'Overdue').includes('“Plan the offsite” on Board'), text);
      assert.ok(section('Overdue', 'What changed').includes('“Fix the printer” on Board'), text);
      const changes = section('What changed on your cards', null);
      assert.ok(changes.includes('Olive Owner added you to “Send the invoice” on Board'), text);
      assert.ok(changes.includes('Olive Owner commented on “Send the invoice” on Board'), text);
      const dueSections = section('Due today', 'What changed');
      for (const absent of ['Far away', 'Not hers', 'Done already']) assert.ok(!dueSections.includes(absent), `${absent} in:\n${text}`);
      assert.ok(!text.includes('Not hers'), 'not her card: not in what changed either');
      assert.ok(text.includes('daily summary'), 'the footer says why');

      const [german] = mailTo('bea@acme.test');
      assert.equal(german?.subject, 'Ihr Tag auf Taskboard: 1 Karte heute fällig, 0 überfällig');
      assert.ok(german?.text.includes('Heute fällig'), german?.text);

      // once a day: later that morning nothing more; the next morning at 8:00 the next one
      clock.at = eight + 2 * HOUR;
      assert.equal((await tick()).summaries, 0);
      clock.at = eight + DAY - MINUTE;
      assert.equal((await tick()).summaries, 0);
      clock.at = eight + DAY;
      assert.equal((await tick()).summaries, 2);
      assert.equal(mailTo('ann@acme.test').length, 2);
      const next = mailTo('ann@acme.test')[1];
      assert.ok(!next?.text.includes('commented on'), 'what changed is what changed since the last summary');
    });

    it("mails a mention in the minute's digest to a person who chose mail per minute", async () => {
      const cy = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'cy@acme.test', fullName: 'Cy Moss' });
      assert.equal((await apiClient(t, cy.apiKey)('PATCH', '/api/v1/me', { emailNotifications: true })).statusCode, 200);
      const { listIds } = await seedBoard(t.services, t.tenant, { lists: 1 });
      const made = await owner('POST', '/api/v1/cards', { list: listIds[0], name: 'Fix login' });
      const cardId = made.json().card._id as string;
      assert.equal((await owner('POST', `/api/v1/cards/${cardId}/comments`, { content: 'I pushed the fix, @CyMoss please check' })).statusCode, 201);
      // gathered at a next pass (on PostgreSQL the feed holds it back while any transaction that began
      // before it commits runs, another suite's too), sent a minute later
      const [mail] = await eventually(
        async () => {
          await tick();
          clock.at += MINUTE;
          await tick();
          return mailTo('cy@acme.test');
        },
        (mails) => mails.length > 0,
        20_000,
        "Cy's mail",
      );
      assert.equal(mail?.subject, 'Olive Owner mentioned you on “Fix login” on Board');
      assert.ok(mail?.text.includes(`${PUBLIC_URL}/boards/`), mail?.text);
    });
  });
}
