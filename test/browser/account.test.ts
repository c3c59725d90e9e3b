/**
 * The account page in a real browser, as a person uses it after signing in with a password: name and
 * photo, email notifications, sessions (end one, end all others), API keys (token shown once,
 * copied, rotated, revoked) and the password change with the server's refusals; the API confirms
 * each outcome, and axe finds no serious or critical violation.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from '@playwright/test';
import ICAL from 'ical.js';
import { ARTIFACTS, chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { givePassword, signInAs, TEST_PASSWORD } from '../support/people.ts';
import { axe } from './board-support.ts';

const NEW_PASSWORD = 'amber lighthouse giraffe 7';
const PHOTO = 'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" width="8" height="8"%3E%3Crect width="8" height="8" fill="teal"/%3E%3C/svg%3E';

describe('the account page in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;
  let email: string;

  /** The status of GET /api/v1/me with a bearer token or a session cookie. */
  async function meStatus(headers: Record<string, string>) {
    return (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers })).statusCode;
  }
  async function me() {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${t.tenant.apiKey}` } });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { user: { email: string; fullName: string; photoUrl: string; emailNotifications: boolean } }).user;
  }

  before(async () => {
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    email = (await me()).email;
    await givePassword(t.services, email);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  test('name and photo, email choice, sessions, API keys and password, as a person', async (context) => {
    const browserContext = await browser.newContext({ baseURL });
    await browserContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
    await browserContext.tracing.start({ screenshots: true, snapshots: true });
    const page = await browserContext.newPage();
    const confirmations: string[] = [];
    page.on('dialog', (dialog) => {
      confirmations.push(dialog.message());
      void dialog.accept();
    });
    let failed = true;
    try {
      // two other browsers are signed in too
      const phone = await signInAs(t.app, email, TEST_PASSWORD, { 'user-agent': 'Phone browser' });
      const tablet = await signInAs(t.app, email, TEST_PASSWORD, { 'user-agent': 'Tablet browser' });

      await page.goto('/sign-in');
      await page.getByRole('textbox', { name: 'Email' }).fill(email);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/boards/);
      const before = await me();
      await page.getByRole('link', { name: `${before.fullName}, account` }).click();
      await page.waitForURL('**/account');
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      await axe(page, 'the account page');

      // name and photo
      const profile = page.getByRole('region', { name: 'Profile' });
      await profile.getByRole('textbox', { name: 'Full name' }).fill('Grace Hopper');
      await profile.getByRole('textbox', { name: 'Photo URL' }).fill(PHOTO);
      await profile.getByRole('button', { name: 'Save profile' }).click();
      await profile.getByRole('status').filter({ hasText: 'Profile saved.' }).waitFor();
      await page.getByRole('link', { name: 'Grace Hopper, account' }).waitFor();
      assert.equal(await profile.getByRole('img', { name: 'Your photo' }).getAttribute('src'), PHOTO);
      const named = await me();
      assert.equal(named.fullName, 'Grace Hopper');
      assert.equal(named.photoUrl, PHOTO);

      // email notifications
      const mail = page.getByRole('region', { name: 'Email notifications' }).getByRole('checkbox', { name: 'Email me my notifications' });
      assert.equal(await mail.isChecked(), named.emailNotifications);
      await mail.click();
      await page
        .getByRole('region', { name: 'Email notifications' })
        .getByRole('status')
        .filter({ hasText: /will (not )?be mailed/ })
        .waitFor();
      assert.equal(await mail.isChecked(), !named.emailNotifications);
      assert.equal((await me()).emailNotifications, !named.emailNotifications);

      // sessions: this one marked, end one, then all others
      const sessions = page.getByRole('region', { name: 'Sessions' });
      await sessions.getByRole('listitem').filter({ hasText: 'Phone browser' }).waitFor();
      assert.equal(await sessions.getByRole('listitem').count(), 3);
      // this browser, named as a person knows it
      await sessions
        .getByRole('listitem')
        .filter({ hasText: 'This session' })
        .filter({ hasText: /^Chrome on Linux from 127\.0\.0\.1/ })
        .waitFor();
      await sessions.getByRole('button', { name: 'End session Phone browser from 127.0.0.1' }).click();
      await sessions.getByRole('listitem').filter({ hasText: 'Phone browser' }).waitFor({ state: 'detached' });
      assert.equal(await meStatus({ cookie: phone.cookie }), 401);
      assert.equal(await meStatus({ cookie: tablet.cookie }), 200);
      await sessions.getByRole('button', { name: 'End all other sessions' }).click();
      await sessions.getByText('No other sessions.').waitFor();
      assert.equal(await meStatus({ cookie: tablet.cookie }), 401);
      assert.deepEqual(confirmations.length, 2);
      assert.equal(await sessions.getByRole('listitem').count(), 1);

      // API keys: the token shown once, copied, rotated, revoked
      const keys = page.getByRole('region', { name: 'API keys' });
      await keys.getByRole('textbox', { name: 'Key name' }).fill('ci');
      await keys.getByRole('button', { name: 'Create API key' }).click();
      const fresh = keys.getByRole('group', { name: 'New token of ci' });
      const token = await fresh.getByRole('textbox', { name: 'New token of ci' }).inputValue();
      assert.equal(await meStatus({ authorization: `Bearer ${token}` }), 200);
      await fresh.getByRole('button', { name: 'Copy' }).click();
      await fresh.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), token);
      await keys.getByRole('listitem').filter({ hasText: 'ci' }).waitFor();
      await axe(page, 'the account page with a new token');
      await page.screenshot({ path: join(ARTIFACTS, 'account-page.png'), fullPage: true });
      await fresh.getByRole('button', { name: 'Done' }).click();
      await fresh.waitFor({ state: 'detached' });
      assert.equal(await page.getByText(token).count(), 0);

      await keys.getByRole('button', { name: 'Rotate ci' }).click();
      const rotated = await keys.getByRole('group', { name: 'New token of ci' }).getByRole('textbox').inputValue();
      assert.notEqual(rotated, token);
      assert.equal(await meStatus({ authorization: `Bearer ${token}` }), 401);
      assert.equal(await meStatus({ authorization: `Bearer ${rotated}` }), 200);
      await keys.getByRole('button', { name: 'Done' }).click();

      await keys.getByRole('button', { name: 'Revoke ci' }).click();
      await keys.getByRole('status').filter({ hasText: 'Key ci revoked.' }).waitFor();
      await keys.getByRole('button', { name: 'Revoke ci' }).waitFor({ state: 'detached' });
      assert.equal(await meStatus({ authorization: `Bearer ${rotated}` }), 401);
      assert.equal(await meStatus({ authorization: `Bearer ${t.tenant.apiKey}` }), 200);

      // the password: the server's refusals shown, then the change, which ends the other sessions
      const laptop = await signInAs(t.app, email, TEST_PASSWORD, { 'user-agent': 'Laptop browser' });
      await page.reload();
      await sessions.getByRole('listitem').filter({ hasText: 'Laptop browser' }).waitFor();
      const password = page.getByRole('region', { name: 'Password' });
      await password.getByLabel('Current password').fill('not my password at all');
      await password.getByLabel('New password').fill(NEW_PASSWORD);
      await password.getByRole('button', { name: 'Change password' }).click();
      await password.getByRole('alert').filter({ hasText: 'The current password is wrong' }).waitFor();
      await password.getByLabel('Current password').fill(TEST_PASSWORD);
      await password.getByLabel('New password').fill('qwerty123456');
      await password.getByRole('button', { name: 'Change password' }).click();
      await password.getByRole('alert').filter({ hasText: 'most common' }).waitFor();
      await password.getByLabel('New password').fill(NEW_PASSWORD);
      await password.getByRole('button', { name: 'Change password' }).click();
      await password.getByRole('status').filter({ hasText: 'Password changed.' }).waitFor();
      assert.equal(await password.getByLabel('New password').inputValue(), '');
      assert.equal(await meStatus({ cookie: laptop.cookie }), 401);
      await sessions.getByRole('listitem').filter({ hasText: 'Laptop browser' }).waitFor({ state: 'detached' });
      await signInAs(t.app, email, NEW_PASSWORD);
      // this browser's session goes on
      await page.reload();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
      await browserContext.close();
    }
  });

  test('a calendar link of My Tasks: shown once, read by a calendar app, revoked', async (context) => {
    const browserContext = await contextWithKey(browser, baseURL, t.tenant.apiKey);
    const page = await browserContext.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    let failed = true;
    try {
      const bearer = { authorization: `Bearer ${t.tenant.apiKey}`, 'content-type': 'application/json' };
      const post = async (url: string, payload: object) => {
        const res = await t.app.inject({ method: 'POST', url, headers: bearer, payload });
        assert.ok(res.statusCode < 300, res.body);
        return res.json();
      };
      const board = (await post(`/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Launch' })).board._id as string;
      const list = (await post('/api/v1/lists', { board, name: 'To do' })).list._id as string;
      const card = (await post('/api/v1/cards', { list, name: 'Book the venue', dueDate: '2031-06-01T10:00:00.000Z' })).card._id as string;
      const userId = (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer })).json().user._id as string;
      await post(`/v2/cards/${card}/members`, { members: [userId] });

      await page.goto('/account');
      const feeds = page.getByRole('region', { name: 'Calendar feeds' });
      await feeds.getByText('No calendar links yet.').waitFor();
      await feeds.getByRole('combobox', { name: 'Show' }).selectOption({ label: 'My Tasks: the cards I am a member of' });
      await feeds.getByRole('button', { name: 'Create a calendar link' }).click();
      const fresh = feeds.getByRole('group', { name: 'Your calendar link' });
      const url = await fresh.getByRole('textbox', { name: 'Your calendar link' }).inputValue();
      await axe(page, 'the account page with a new calendar link');

      // what a calendar app reads from it: no cookie, no key
      const read = await fetch(url);
      assert.equal(read.status, 200);
      const events = new ICAL.Component(ICAL.parse(await read.text())).getAllSubcomponents('vevent').map((event) => new ICAL.Event(event));
      assert.deepEqual(
        events.map((event) => [event.summary, event.startDate.toJSDate().toISOString()]),
        [['Book the venue', '2031-06-01T10:00:00.000Z']],
      );

      await fresh.getByRole('button', { name: 'Done' }).click();
      assert.equal(await page.getByText(url).count(), 0);
      // the read shows on the next visit
      await page.reload();
      const row = feeds.getByRole('listitem').filter({ hasText: 'My Tasks' });
      await row.getByText(/last read/).waitFor();
      await row.getByRole('button', { name: 'Revoke the calendar link of My Tasks' }).click();
      await feeds.getByRole('status').filter({ hasText: 'The calendar link of My Tasks is revoked.' }).waitFor();
      await feeds.getByText('No calendar links yet.').waitFor();
      assert.equal((await fetch(url)).status, 404);
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
      await browserContext.close();
    }
  });
});
