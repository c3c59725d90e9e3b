/**
 * A whole team, as one story in real browsers, on both engines: the owner shares the board by mail
 * (a real SMTP server); two people accept from the mail, one on a desk and one on a phone, and land
 * on the board; all three see who is viewing it; a mention reaches its person live and by mail; an
 * archive is undone; the board is exported from its menu and imported again; "Forgot password?"
 * mails a reset that signs in with the new password and ends the old sessions. Every step by role
 * and name, axe on the pages the story adds to the others' tests.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import type { App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { chromiumMissing, keepFailure, launch } from '../support/browser.ts';
import { manualClock } from '../support/clock.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../support/people.ts';
import { freePort, startSmtp, type TestSmtp } from '../support/smtp.ts';
import { axe, cardIn } from './board-support.ts';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const ANA_PASSWORD = 'maple harbour violin 31';
const BO_PASSWORD = 'quartz meadow lantern 58';
const MINUTE = 60_000;

for (const engine of ENGINES) {
  describe(`a team's story in browsers [${engine}]`, { skip: chromiumMissing }, () => {
    let t: TestApp;
    let smtp: TestSmtp;
    let browser: Browser;
    let baseURL: string;
    let boardId: string;
    const clock = manualClock(Date.now());
    const contexts: BrowserContext[] = [];
    const errors: string[] = [];

    async function api<T = Record<string, unknown>>(method: string, url: string, payload?: object): Promise<T> {
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${t.tenant.apiKey}` },
        ...(payload ? { payload } : {}),
      });
      assert.ok(res.statusCode < 300, `${method} ${url} → ${res.statusCode} ${res.body}`);
      return res.json() as T;
    }
    const mailer = () => {
      const job = (t.app as App).mailer;
      assert.ok(job, 'SMTP_URL is set: the app has a mail worker');
      return job;
    };
    /** A pass of the mail worker, with the test's clock never behind the records' own (system) time. */
    const tick = () => {
      clock.at = Math.max(clock.at, Date.now());
      return mailer().tick();
    };
    const mailsTo = (to: string) => smtp.received.filter((mail) => mail.to.includes(to));
    /** Sends what the outbox holds, and answers the link to `path` in the newest mail to `to`. */
    async function linkMailedTo(to: string, path: '/invitations' | '/reset'): Promise<string> {
      await tick();
      const mail = mailsTo(to).at(-1);
      assert.ok(mail, `no mail to ${to}`);
      const link = new RegExp(`(http://\\S+${path}#\\S+)`).exec(mail.text)?.[1];
      assert.ok(link, `no ${path} link in: ${mail.text}`);
      return link;
    }
    async function browse(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ baseURL, acceptDownloads: true, ...options });
      await context.tracing.start({ screenshots: true, snapshots: true });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (error) => errors.push(`${error.message}`));
      return { context, page };
    }
    async function signIn(page: Page, email: string, password: string) {
      await page.goto('/sign-in');
      await page.getByRole('textbox', { name: 'Email' }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/boards/);
    }
    async function accept(page: Page, link: string, fullName: string, password: string, tap: boolean) {
      await page.goto(link);
      await page.getByRole('heading', { name: 'Join Acme on Taskboard' }).waitFor();
      await page.getByText('the board Roadmap').waitFor();
      await page.getByRole('textbox', { name: 'Full name' }).fill(fullName);
      await page.getByLabel('Password', { exact: true }).fill(password);
      const join = page.getByRole('button', { name: 'Join Acme' });
      await (tap ? join.tap() : join.click());
      await page.waitForURL(`**/boards/${boardId}`);
      await page.getByRole('heading', { name: 'Roadmap' }).first().waitFor();
    }
    const viewers = (page: Page) => page.getByRole('group', { name: /viewing now/ });
    const bell = (page: Page, unread: number) => page.getByRole('link', { name: `Notifications, ${unread} unread` });

    before(async () => {
      smtp = await startSmtp();
      const port = await freePort();
      baseURL = `http://127.0.0.1:${port}`;
      const people = loadConfig({ SMTP_URL: smtp.url, MAIL_POLL_MS: '600000', PUBLIC_URL: baseURL }).people;
      t = await buildTestApp(engine, { config: { people }, clock });
      await t.app.listen({ port, host: '127.0.0.1' });
      await givePassword(t.services, 'owner@acme.test');
      boardId = (await api<{ board: { _id: string } }>('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Roadmap' })).board._id;
      const list = (await api<{ list: { _id: string } }>('POST', '/api/v1/lists', { board: boardId, name: 'To do' })).list._id;
      for (const name of ['Fix login', 'Plan the launch']) await api('POST', '/api/v1/cards', { list, name });
      browser = await launch();
    });
    after(async () => {
      for (const context of contexts) await context.close().catch(() => {});
      await browser?.close();
      await t?.dispose();
      await smtp?.close();
    });

    test('invited by mail, together on the board, told, undone, exported and back, reset', async () => {
      const owner = await browse();
      let failed = true;
      try {
        // the owner shares the board with two people by mail
        await signIn(owner.page, 'owner@acme.test', TEST_PASSWORD);
        await owner.page.goto(`/boards/${boardId}`);
        await owner.page.getByRole('button', { name: 'Share' }).click();
        const share = owner.page.getByRole('dialog', { name: 'Share Roadmap' });
        for (const email of ['ana@acme.test', 'bo@acme.test']) {
          await share.getByRole('textbox', { name: 'Email to invite' }).fill(email);
          await share.getByRole('button', { name: 'Send invitation' }).click();
          await share
            .getByRole('status')
            .filter({ hasText: `Invitation mailed to ${email}.` })
            .waitFor();
        }
        await share.getByRole('button', { name: 'Close' }).click();

        // Ana accepts from her mail on a desk, Bo from his on a phone: both land on the board
        const ana = await browse();
        await accept(ana.page, await linkMailedTo('ana@acme.test', '/invitations'), 'Ana Lopez', ANA_PASSWORD, false);
        const bo = await browse(PHONE);
        await accept(bo.page, await linkMailedTo('bo@acme.test', '/invitations'), 'Bo Chen', BO_PASSWORD, true);

        // all three see who is viewing the board now
        await owner.page.reload();
        await viewers(owner.page).getByText('Ana Lopez').waitFor();
        await viewers(owner.page).getByText('Bo Chen').waitFor();
        await viewers(ana.page).getByText('Olive Owner').waitFor();
        await viewers(ana.page).getByText('Bo Chen').waitFor();
        await viewers(bo.page).getByText('Ana Lopez').waitFor();
        await axe(owner.page, 'the shared board with its viewers');

        // a mention reaches Ana live, and by mail once she asked for mail
        await ana.page.goto('/account');
        await ana.page.getByRole('checkbox', { name: 'Email me my notifications' }).check();
        await ana.page.getByRole('status').filter({ hasText: 'Your notifications will be mailed to you.' }).waitFor();
        await ana.page.goto(`/boards/${boardId}`);
        await bell(ana.page, 0).waitFor();
        await owner.page.goto(`/boards/${boardId}?card=${await cardIn(owner.page, 'To do', 'Fix login').getAttribute('data-card-id')}`);
        const dialog = owner.page.getByRole('dialog', { name: 'Fix login' });
        const box = dialog.getByRole('textbox', { name: 'Write a comment' });
        await box.fill('Pushed the fix, @An');
        await dialog.getByRole('listbox', { name: 'Team members' }).getByRole('option', { name: 'Ana Lopez' }).waitFor();
        await box.press('Enter');
        await box.pressSequentially('please check');
        const sent = performance.now();
        await dialog.getByRole('button', { name: 'Comment', exact: true }).click();
        await bell(ana.page, 1).waitFor();
        const liveMs = performance.now() - sent;
        // the digest goes a minute after the first notification: the clock moves, no one waits
        for (let pass = 0; pass < 20 && !mailsTo('ana@acme.test').some((mail) => mail.subject.includes('mentioned you')); pass++) {
          await tick();
          clock.at += MINUTE;
          await tick();
        }
        const mention = mailsTo('ana@acme.test').find((mail) => mail.subject.includes('mentioned you'));
        assert.equal(mention?.subject, 'Olive Owner mentioned you on “Fix login” on Roadmap');
        console.log(`# team story [${engine}]: a mention reached the other person's bell ${liveMs.toFixed(0)} ms after Send`);
        await dialog.getByRole('button', { name: 'Close' }).first().click();

        // an archive by the `c` shortcut, undone from its toast
        const plan = cardIn(owner.page, 'To do', 'Plan the launch');
        await plan.focus();
        await owner.page.keyboard.press('c');
        await plan.waitFor({ state: 'detached' });
        const toast = owner.page
          .getByRole('region', { name: /Notifications/ })
          .getByRole('listitem')
          .filter({ hasText: 'Plan the launch archived.' });
        await toast.getByRole('button', { name: 'Undo' }).click();
        await cardIn(owner.page, 'To do', 'Plan the launch').waitFor();
        await cardIn(ana.page, 'To do', 'Plan the launch').waitFor();

        // exported from the board menu, and imported again as a new board of the team
        await owner.page.getByRole('button', { name: 'Board menu' }).click();
        await owner.page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Export…' }).click();
        const exporting = owner.page.getByRole('dialog', { name: 'Export Roadmap' });
        await exporting.getByRole('radio', { name: /^JSON/ }).check();
        const download = owner.page.waitForEvent('download');
        await exporting.getByRole('button', { name: 'Export', exact: true }).click();
        const saved = await download;
        const exported = await readFile((await saved.path()) as string);
        await exporting.getByRole('button', { name: 'Close' }).click();
        await owner.page.goto('/boards');
        await owner.page.getByRole('button', { name: 'Import a board into Core' }).click();
        const importing = owner.page.getByRole('dialog', { name: 'Import a board into Core' });
        await importing.getByRole('combobox', { name: 'From' }).selectOption({ label: 'Taskboard (board export)' });
        await importing.getByLabel('Export file').setInputFiles({ name: saved.suggestedFilename(), mimeType: 'application/json', buffer: exported });
        await importing.getByRole('button', { name: 'Start import' }).click();
        const opened = importing.getByRole('link', { name: /^Open Roadmap/ });
        await opened.click();
        await owner.page.waitForURL((url) => url.pathname.startsWith('/boards/') && !url.pathname.endsWith(boardId));
        await cardIn(owner.page, 'To do', 'Fix login').waitFor();
        await cardIn(owner.page, 'To do', 'Plan the launch').waitFor();

        // Ana forgot her password: the mailed link sets a new one on her phone and ends her desk session
        const phone = await browse(PHONE);
        await phone.page.goto('/sign-in');
        await phone.page.getByRole('link', { name: 'Forgot password?' }).tap();
        await phone.page.getByRole('textbox', { name: 'Email' }).fill('ana@acme.test');
        await phone.page.getByRole('button', { name: 'Send reset link' }).tap();
        await phone.page.getByRole('status').filter({ hasText: 'a mail with a reset link is on its way' }).waitFor();
        await phone.page.goto(await linkMailedTo('ana@acme.test', '/reset'));
        await phone.page.getByLabel('New password', { exact: true }).fill('cobalt orchard kite 64');
        await phone.page.getByRole('button', { name: 'Save password and sign in' }).tap();
        await phone.page.waitForURL(/\/boards/);
        await ana.page.reload();
        await ana.page.waitForURL(/\/sign-in/);
        await signIn(ana.page, 'ana@acme.test', 'cobalt orchard kite 64');

        assert.deepEqual(errors, [], 'no JavaScript error on any page');
        failed = false;
      } finally {
        await keepFailure(`team-story-${engine}`, owner.context, owner.page, failed);
      }
    });
  });
}
