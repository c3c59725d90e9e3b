/**
 * Two-step sign-in in a real browser: the account page sets up an authenticator app (the QR code,
 * a code from the "app", the recovery codes shown once), the sign-in page then asks for the code
 * after the password (a wrong one refused, the right one signs in), a recovery code works instead,
 * and the account page turns the app off with the password and a code. Codes are computed with
 * otplib at the server's clock, which the test moves; axe checks each new view. With SHOTS_DIR set,
 * the setup section and the code step are photographed light, dark and on a 390 px phone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from '@playwright/test';
import { generateSync } from 'otplib';
import { chromiumMissing, keepFailure, launch, shootPage } from '../support/browser.ts';
import { manualClock } from '../support/clock.ts';
import { addMember } from '../support/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../support/people.ts';
import { axe } from './board-support.ts';

const EMAIL = 'owner@acme.test';

describe('two-step sign-in in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;
  const clock = manualClock(Date.now());
  const codeAt = (secret: string) => generateSync({ secret, epoch: Math.floor(clock.now() / 1000) });

  before(async () => {
    t = await buildTestApp('sqlite', { clock });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await givePassword(t.services, EMAIL);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  async function passwordStep(page: Page, email = EMAIL) {
    await page.goto('/sign-in');
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  test('set up an app, sign in with its code and with a recovery code, turn it off', async () => {
    const browserContext = await browser.newContext({ baseURL });
    await browserContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
    await browserContext.tracing.start({ screenshots: true, snapshots: true });
    const page = await browserContext.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    let failed = true;
    try {
      await passwordStep(page);
      await page.waitForURL(/\/boards/);

      // set up: the QR code and the key, then a code of the app turns it on
      await page.goto('/account');
      const section = page.getByRole('region', { name: 'Two-step sign-in' });
      await section.getByText('Off.', { exact: true }).waitFor();
      const started = page.waitForResponse((response) => response.url().endsWith('/api/v1/me/second-factors/totp'));
      await section.getByRole('button', { name: 'Set up an authenticator app' }).click();
      const { secret } = (await (await started).json()) as { secret: string };
      const qr = section.getByRole('img', { name: 'QR code to scan with your authenticator app' });
      await qr.waitFor();
      assert.ok((await qr.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)) > 0, 'the QR code is drawn');
      await section.getByText(secret.slice(0, 4)).waitFor();
      await axe(page, 'the setup of an authenticator app');
      await section.scrollIntoViewIfNeeded();
      await shootPage(page, 'account-setup');

      await section.getByRole('textbox', { name: 'Code from the app' }).fill('000000' === codeAt(secret) ? '111111' : '000000');
      await section.getByRole('button', { name: 'Turn on' }).click();
      await section.getByRole('alert').waitFor();
      await section.getByRole('textbox', { name: 'Code from the app' }).fill(codeAt(secret));
      await section.getByRole('button', { name: 'Turn on' }).click();
      const codes = section.getByRole('group', { name: 'Your recovery codes' });
      await codes.waitFor();
      const recoveryCodes = await codes.getByRole('listitem').allTextContents();
      assert.equal(recoveryCodes.length, 10);
      await codes.getByRole('button', { name: 'Copy codes' }).click();
      await codes.getByText('Copied.').waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), `${recoveryCodes.join('\n')}\n`);
      const download = page.waitForEvent('download');
      await codes.getByRole('button', { name: 'Download' }).click();
      assert.equal((await download).suggestedFilename(), 'taskboard-recovery-codes.txt');
      await axe(page, 'the recovery codes');
      await shootPage(page, 'account-recovery-codes');
      await codes.getByRole('button', { name: 'I have saved them' }).click();
      await section.getByText(/^On since .*10 recovery codes left\.$/).waitFor();

      // sign out, then the password asks for the code
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL('**/sign-in');
      clock.at += 30_000;
      await passwordStep(page);
      await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
      assert.equal((await page.request.get('/api/v1/me')).status(), 401, 'no session before the code');
      await axe(page, 'the code step');
      await shootPage(page, 'sign-in-code-step');
      await page.getByRole('textbox', { name: 'Code from the app' }).fill(codeAt(secret) === '123456' ? '654321' : '123456');
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('alert').filter({ hasText: 'That code is not right.' }).waitFor();
      await page.getByRole('textbox', { name: 'Code from the app' }).fill(codeAt(secret));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL(/\/boards/);

      // a recovery code instead of the app
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL('**/sign-in');
      await passwordStep(page);
      await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
      await page.getByRole('textbox', { name: 'Recovery code' }).fill(recoveryCodes[3]!);
      await axe(page, 'the recovery code step');
      await shootPage(page, 'sign-in-recovery-step');
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL(/\/boards/);

      // turn it off with the password and a code
      clock.at += 30_000;
      await page.goto('/account');
      await section.getByText(/9 recovery codes left/).waitFor();
      const off = section.getByRole('form', { name: 'Turn off' });
      await off.getByLabel('Password').fill(TEST_PASSWORD);
      await off.getByRole('textbox', { name: 'Code or recovery code' }).fill(codeAt(secret));
      await off.getByRole('button', { name: 'Turn off two-step sign-in' }).click();
      await section.getByText('Two-step sign-in is off.').waitFor();
      await section.getByText('Off.', { exact: true }).waitFor();

      assert.deepEqual(errors, [], 'JavaScript errors on the page');
      failed = false;
    } finally {
      await keepFailure('second-factor', browserContext, page, failed);
      await browserContext.close();
    }
  });

  test('an owner requires it: a member sets up an app at the next sign-in; the owner sees it and resets it', async () => {
    const member = 'mo@acme.test';
    await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: member, fullName: 'Mo Member', role: 'member' });
    await givePassword(t.services, member);
    const owner = await browser.newContext({ baseURL });
    const someone = await browser.newContext({ baseURL });
    await owner.tracing.start({ screenshots: true, snapshots: true });
    const page = await owner.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    const memberPage = await someone.newPage();
    let failed = true;
    try {
      clock.at += 30_000;
      await passwordStep(page);
      await page.waitForURL(/\/boards/);
      await page.getByRole('link', { name: 'Administration' }).click();
      const part = page.getByRole('region', { name: 'Two-step sign-in' });
      await part.getByText('0 of 2 members have set it up.').waitFor();
      const rule = part.getByRole('checkbox', { name: 'Require two-step sign-in of every member' });
      await rule.click();
      await part.getByText('Members must now sign in with two steps.').waitFor();
      assert.equal(await rule.isChecked(), true);
      await axe(page, 'the two-step sign-in of the members');

      // the member: the password leads to setting up an app, before any board
      const started = memberPage.waitForResponse((response) => response.url().endsWith('/api/v1/auth/sign-in/totp'));
      await passwordStep(memberPage, member);
      await memberPage.getByRole('heading', { name: 'Set up two-step sign-in' }).waitFor();
      const { secret } = (await (await started).json()) as { secret: string };
      await memberPage.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
      await axe(memberPage, 'the setup at sign-in');
      await shootPage(memberPage, 'sign-in-enrol-step');
      await memberPage.getByRole('textbox', { name: 'Code from the app' }).fill(codeAt(secret));
      await memberPage.getByRole('button', { name: 'Turn on' }).click();
      const codes = memberPage.getByRole('group', { name: 'Your recovery codes' });
      await codes.waitFor();
      assert.equal(await codes.getByRole('listitem').count(), 10);
      await codes.getByRole('button', { name: 'Continue' }).click();
      await memberPage.waitForURL(/\/boards/);

      // the owner sees it set up, and resets it
      await page.reload();
      await part.getByText('1 of 2 members have set it up.').waitFor();
      await part.getByRole('listitem').filter({ hasText: 'Mo Member' }).getByText('Set up: authenticator app').waitFor();
      await shootPage(page, 'admin-two-step');
      await part.getByRole('button', { name: 'Reset the two-step sign-in of Mo Member' }).click();
      await part.getByText('The two-step sign-in of Mo Member is reset.').waitFor();
      await part.getByText('0 of 2 members have set it up.').waitFor();
      failed = false;
    } finally {
      await keepFailure('second-factor-company', owner, page, failed);
      await owner.close();
      await someone.close();
    }
  });
});
