/**
 * Every link the product mails lands on a page that finishes the job, in a real browser: the
 * invitation (a new person, a signed-in person with the same email, one with another email, an
 * account that must sign in first; used, withdrawn and expired links in words) and the password
 * reset (from "Forgot password?" and from an admin's link). The links are read from the mails a real
 * SMTP server received; each page is checked with axe, on a desk and on a phone, with no JavaScript
 * error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import type { App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { chromiumMissing, keepFailure, launch } from '../support/browser.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../support/people.ts';
import { freePort, startSmtp, type TestSmtp } from '../support/smtp.ts';
import { axe } from './board-support.ts';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const NEW_PASSWORD = 'copper kettle meadow 19';

describe('links the product mails, in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let browser: Browser;
  let baseURL: string;
  let boardId: string;

  async function api<T = Record<string, unknown>>(method: string, url: string, payload?: object): Promise<T> {
    const res = await t.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${t.tenant.apiKey}` }, ...(payload ? { payload } : {}) });
    assert.ok(res.statusCode < 300, `${method} ${url} → ${res.statusCode} ${res.body}`);
    return res.json() as T;
  }

  /** Sends what the outbox holds through the real SMTP server, and answers the link in the newest mail to `to`. */
  async function linkMailedTo(to: string, path: '/invitations' | '/reset'): Promise<string> {
    await (t.app as App).mailer?.tick();
    const mail = smtp.received.filter((received) => received.to.includes(to)).at(-1);
    assert.ok(mail, `no mail to ${to}`);
    const link = new RegExp(`(http://\\S+${path}#\\S+)`).exec(mail.text)?.[1];
    assert.ok(link, `no ${path} link in: ${mail.text}`);
    assert.ok(link.startsWith(baseURL), link);
    return link;
  }

  async function invite(email: string, extra: object = {}) {
    return api<{ invitation: { _id: string } }>('POST', `/api/v1/companies/${t.tenant.companyId}/invitations`, { email, role: 'member', ...extra });
  }

  /** A browser context (desk or phone) whose page must end with no JavaScript error. */
  async function inBrowser(name: string, options: Parameters<Browser['newContext']>[0], steps: (page: Page, context: BrowserContext) => Promise<void>) {
    const context = await browser.newContext({ baseURL, ...options });
    await context.tracing.start({ screenshots: true, snapshots: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    let failed = true;
    try {
      await steps(page, context);
      assert.deepEqual(errors, [], 'JavaScript errors on the page');
      failed = false;
    } finally {
      await keepFailure(`people-links-${name}`, context, page, failed);
      await context.close();
    }
  }

  async function signIn(page: Page, email: string, password = TEST_PASSWORD) {
    await page.goto('/sign-in');
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/boards/);
  }

  before(async () => {
    smtp = await startSmtp();
    const port = await freePort();
    baseURL = `http://127.0.0.1:${port}`;
    const people = loadConfig({ SMTP_URL: smtp.url, MAIL_POLL_MS: '600000', PUBLIC_URL: baseURL }).people;
    t = await buildTestApp('sqlite', { config: { people } });
    await t.app.listen({ port, host: '127.0.0.1' });
    await givePassword(t.services, 'owner@acme.test');
    boardId = (await api<{ board: { _id: string } }>('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Roadmap' })).board._id;
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
    await smtp?.close();
  });

  test('a new person accepts a mailed invitation from a board, on a desk, and lands on the board', async () => {
    await invite('nina@acme.test', { board: boardId });
    const link = await linkMailedTo('nina@acme.test', '/invitations');
    await inBrowser('new-desk', {}, async (page) => {
      await page.goto(link);
      await page.getByRole('heading', { name: 'Join Acme on Taskboard' }).waitFor();
      await page.getByText('Olive Owner invited you to join Acme as a member.').waitFor();
      const joins = page.getByRole('list');
      await joins.getByText('the board Roadmap').waitFor();
      await joins.getByText('the team Core').waitFor();
      // the password's rules are read before typing, with the field
      const password = page.getByLabel('Password', { exact: true });
      assert.match((await password.getAttribute('aria-describedby')) ?? '', /.+/);
      await page.getByText('At least 12 characters', { exact: false }).waitFor();
      await axe(page, 'the invitation page');
      await page.getByRole('textbox', { name: 'Full name' }).fill('Nina New');
      await password.fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Join Acme' }).click();
      await page.waitForURL(`**/boards/${boardId}`);
      await page.getByRole('heading', { name: 'Roadmap' }).first().waitFor();
      assert.equal(new URL(page.url()).hash, '', 'the token is not left in the address');
    });
    // the same link again: used, said in words, with whom to ask
    await inBrowser('used', PHONE, async (page) => {
      await page.goto(link);
      await page.getByRole('alert').filter({ hasText: 'This invitation has been used already.' }).waitFor();
      await page.getByText('Ask Olive Owner at Acme to invite you again.').waitFor();
      await axe(page, 'a used invitation');
    });
  });

  test("Share on the board invites by mail into the board's team; the invitee lands on the board", async () => {
    await inBrowser('share', {}, async (page) => {
      await signIn(page, 'owner@acme.test');
      await page.goto(`/boards/${boardId}`);
      await page.getByRole('button', { name: 'Share' }).click();
      const dialog = page.getByRole('dialog', { name: 'Share Roadmap' });
      await dialog.getByRole('list', { name: 'Members of this board' }).getByText('Olive Owner').waitFor();
      await axe(page, 'the share dialog');
      await dialog.getByRole('textbox', { name: 'Email to invite' }).fill('sam@acme.test');
      await dialog.getByRole('button', { name: 'Send invitation' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Invitation mailed to sam@acme.test.' }).waitFor();
      await dialog.getByRole('list', { name: 'Pending invitations' }).getByText('sam@acme.test', { exact: false }).waitFor();
    });
    const link = await linkMailedTo('sam@acme.test', '/invitations');
    const mail = smtp.received.filter((received) => received.to.includes('sam@acme.test')).at(-1);
    assert.match(mail?.subject ?? '', /the board Roadmap in Acme/);
    await inBrowser('share-accept', PHONE, async (page) => {
      await page.goto(link);
      await page.getByText('the board Roadmap').waitFor();
      await page.getByRole('textbox', { name: 'Full name' }).fill('Sam Shared');
      await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Join Acme' }).tap();
      await page.waitForURL(`**/boards/${boardId}`);
      await page.getByRole('heading', { name: 'Roadmap' }).first().waitFor();
    });
  });

  test('a new person accepts on a phone and lands on the boards of the team', async () => {
    await invite('pia@acme.test', { teams: [t.tenant.teamId] });
    const link = await linkMailedTo('pia@acme.test', '/invitations');
    await inBrowser('new-phone', PHONE, async (page) => {
      await page.goto(link);
      await page.getByRole('heading', { name: 'Join Acme on Taskboard' }).waitFor();
      await axe(page, 'the invitation page on a phone');
      const form = page.getByRole('form', { name: 'Create your account to accept.' });
      const width = await form.evaluate((element) => element.getBoundingClientRect().width);
      assert.ok(width <= 390, `the form fits the phone: ${width}px`);
      await page.getByRole('textbox', { name: 'Full name' }).fill('Pia Phone');
      await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Join Acme' }).tap();
      await page.waitForURL(/\/boards$/);
      await page.getByRole('heading', { name: 'Core' }).waitFor();
      await page.getByRole('main').getByRole('link', { name: 'Roadmap' }).waitFor();
    });
  });

  test('withdrawn and expired invitations say so; a cut link says it is not complete', async () => {
    const withdrawn = await invite('wes@acme.test');
    const withdrawnLink = await linkMailedTo('wes@acme.test', '/invitations');
    await api('DELETE', `/api/v1/companies/${t.tenant.companyId}/invitations/${withdrawn.invitation._id}`);
    const expired = await invite('eve@acme.test');
    const expiredLink = await linkMailedTo('eve@acme.test', '/invitations');
    await t.services.db.updateTable('invitations').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', expired.invitation._id).execute();
    await inBrowser('gone', {}, async (page) => {
      await page.goto(withdrawnLink);
      await page.getByRole('alert').filter({ hasText: 'This invitation was withdrawn.' }).waitFor();
      await page.goto(expiredLink);
      await page.reload();
      await page.getByRole('alert').filter({ hasText: 'This invitation has expired' }).waitFor();
      await page.getByText('Ask Olive Owner at Acme to invite you again.').waitFor();
      await axe(page, 'an expired invitation');
      await page.goto(`${expiredLink.slice(0, -10)}`);
      await page.reload();
      await page.getByRole('alert').filter({ hasText: 'This invitation link is not complete.' }).waitFor();
    });
  });

  test('signed in with the invited email: one click; with another email: sign out and continue', async () => {
    await bootstrap(t.services, { company: 'Hooli', team: 'Nucleus', email: 'hank@hooli.test', fullName: 'Hank Hooli' });
    await givePassword(t.services, 'hank@hooli.test');
    await invite('hank@hooli.test', { board: boardId });
    const hankLink = await linkMailedTo('hank@hooli.test', '/invitations');
    await invite('otto@acme.test');
    const ottoLink = await linkMailedTo('otto@acme.test', '/invitations');
    await inBrowser('signed-in', {}, async (page) => {
      await signIn(page, 'hank@hooli.test');
      await page.goto(hankLink);
      await page.getByText('You are signed in as Hank Hooli (hank@hooli.test).').waitFor();
      await axe(page, 'the invitation, signed in');
      await page.getByRole('button', { name: 'Join Acme' }).click();
      await page.waitForURL(`**/boards/${boardId}`);
      await page.getByRole('heading', { name: 'Roadmap' }).first().waitFor();

      await page.goto(ottoLink);
      await page.getByRole('alert').filter({ hasText: 'You are signed in as hank@hooli.test, but this invitation is for otto@acme.test.' }).waitFor();
      await page.getByRole('button', { name: 'Sign out and continue' }).click();
      await page.getByRole('textbox', { name: 'Full name' }).fill('Otto Other');
      await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Join Acme' }).click();
      await page.waitForURL(/\/boards$/);
      await page.getByRole('link', { name: 'Otto Other, account' }).waitFor();
    });
  });

  test('an account with a password signs in on the invitation to accept it', async () => {
    await bootstrap(t.services, { company: 'Initech', team: 'TPS', email: 'ivy@initech.test', fullName: 'Ivy Initech' });
    await givePassword(t.services, 'ivy@initech.test');
    await invite('ivy@initech.test', { board: boardId });
    const link = await linkMailedTo('ivy@initech.test', '/invitations');
    await inBrowser('existing', PHONE, async (page) => {
      await page.goto(link);
      await page.getByText('ivy@initech.test already has an account. Sign in to accept the invitation.').waitFor();
      await axe(page, 'the invitation for an existing account');
      await page.getByLabel('Password', { exact: true }).fill('not her password at all');
      await page.getByRole('button', { name: 'Sign in and join' }).click();
      await page.getByRole('alert').filter({ hasText: /.+/ }).waitFor();
      await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in and join' }).click();
      await page.waitForURL(`**/boards/${boardId}`);
    });
  });

  test('"Forgot password?" mails a reset link that sets a new password, signs in and ends the old sessions', async () => {
    await inBrowser('reset', {}, async (page, context) => {
      await signIn(page, 'nina@acme.test', NEW_PASSWORD);
      const old = await context.browser()!.newContext({ baseURL });
      const oldPage = await old.newPage();
      await signIn(oldPage, 'nina@acme.test', NEW_PASSWORD);

      const fresh = await context.browser()!.newContext({ baseURL, ...PHONE });
      const phone = await fresh.newPage();
      const errors: string[] = [];
      phone.on('pageerror', (error) => errors.push(error.message));
      await phone.goto('/sign-in');
      await phone.getByRole('link', { name: 'Forgot password?' }).tap();
      await phone.getByRole('heading', { name: 'Reset your password' }).waitFor();
      await axe(phone, 'the forgotten password page');
      await phone.getByRole('textbox', { name: 'Email' }).fill('nina@acme.test');
      await phone.getByRole('button', { name: 'Send reset link' }).tap();
      await phone.getByRole('status').filter({ hasText: 'If nina@acme.test has an account here, a mail with a reset link is on its way.' }).waitFor();
      const link = await linkMailedTo('nina@acme.test', '/reset');

      await phone.goto(link);
      await phone.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await phone.getByText('For nina@acme.test.', { exact: false }).waitFor();
      await axe(phone, 'the reset page');
      await phone.getByLabel('New password', { exact: true }).fill('short');
      await phone.getByRole('button', { name: 'Save password and sign in' }).tap();
      // the browser's own check stops a password under 12 characters: nothing was sent
      assert.equal(
        await phone.getByLabel('New password', { exact: true }).evaluate((input) => (input as unknown as { validity: { valid: boolean } }).validity.valid),
        false,
      );
      await phone.getByLabel('New password', { exact: true }).fill('password1234');
      await phone.getByRole('button', { name: 'Save password and sign in' }).tap();
      await phone
        .getByRole('alert')
        .filter({ hasText: /common/i })
        .waitFor();
      await phone.getByLabel('New password', { exact: true }).fill('granite lantern harbour 77');
      await phone.getByRole('button', { name: 'Save password and sign in' }).tap();
      await phone.waitForURL(/\/boards/);
      // on a phone the account is in the header's menu
      await phone.getByRole('button', { name: 'Menu', exact: true }).tap();
      await phone.getByRole('button', { name: 'Nina New, account' }).waitFor();
      assert.deepEqual(errors, []);

      // the sessions from before the reset have ended
      await oldPage.reload();
      await oldPage.waitForURL(/\/sign-in/);
      // the same link again says it was used, and where to get a new one
      await phone.goto(link);
      await phone.getByRole('alert').filter({ hasText: 'This reset link has been used already.' }).waitFor();
      await phone.getByRole('link', { name: 'Ask for a new link' }).waitFor();
      await old.close();
      await fresh.close();
      await signIn(page, 'nina@acme.test', 'granite lantern harbour 77');
    });
  });

  test("an admin's reset link for a member works the same way", async () => {
    const nina = await t.services.db.selectFrom('users').select('id').where('email', '=', 'nina@acme.test').executeTakeFirstOrThrow();
    const { url } = await api<{ url: string }>('POST', `/api/v1/companies/${t.tenant.companyId}/members/${nina.id}/password-reset`);
    assert.ok(url.startsWith(`${baseURL}/reset#`), url);
    await inBrowser('admin-reset', {}, async (page) => {
      await page.goto(url);
      await page.getByText('For nina@acme.test.', { exact: false }).waitFor();
      await page.getByLabel('New password', { exact: true }).fill('harbour granite lantern 88');
      await page.getByRole('button', { name: 'Save password and sign in' }).click();
      await page.waitForURL(/\/boards/);
      await page.getByRole('link', { name: 'Nina New, account' }).waitFor();
    });
  });
});
