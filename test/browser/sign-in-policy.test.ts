/**
 * A company's "single sign-on only" in a real browser: an owner finds the switch on the members
 * page of the administration, turns it on (axe checks the part), and a member's password is then
 * refused on the sign-in page with a sentence saying why; the owner turns it off again. A server
 * without single sign-on shows the switch off and explained. With SHOTS_DIR set, the part is
 * photographed light, dark and on a 390 px phone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, CDPSession, Page } from '@playwright/test';
import { chromiumMissing, keepFailure, launch, shootPage } from '../support/browser.ts';
import { addMember } from '../support/fixtures.ts';
import { bearer, buildTestApp, type TestApp, testConfig } from '../support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../support/people.ts';
import { axe } from './board-support.ts';

const OWNER = 'owner@acme.test';
const MEMBER = 'mo@acme.test';

async function serve(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  // localhost, not an address: passkeys need a domain
  return `http://localhost:${typeof address === 'object' && address ? address.port : 0}`;
}

async function passwordStep(page: Page, email: string) {
  await page.goto('/sign-in');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function virtualAuthenticator(cdp: CDPSession): Promise<void> {
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

describe('single sign-on only in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;

  before(async () => {
    const base = testConfig().people;
    // a provider is set up (never reached here: nobody clicks through to it)
    t = await buildTestApp('sqlite', {
      config: {
        people: {
          ...base,
          oidc: { ...base.oidc, issuer: 'http://127.0.0.1:9', clientId: 'taskboard', redirectUrl: 'http://127.0.0.1:9/api/v1/auth/oidc/callback' },
        },
      },
    });
    baseURL = await serve(t);
    await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: MEMBER, fullName: 'Mo Member', role: 'member' });
    await givePassword(t.services, OWNER);
    await givePassword(t.services, MEMBER);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  test("an owner turns it on; a member's password is refused with a sentence saying why; the owner turns it off", async () => {
    const owner = await browser.newContext({ baseURL });
    const someone = await browser.newContext({ baseURL });
    await owner.tracing.start({ screenshots: true, snapshots: true });
    const page = await owner.newPage();
    const memberPage = await someone.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    let failed = true;
    try {
      await passwordStep(page, OWNER);
      await page.waitForURL(/\/boards/);
      await page.getByRole('link', { name: 'Administration' }).click();
      const part = page.getByRole('region', { name: 'Single sign-on' });
      const only = part.getByRole('checkbox', { name: 'Members sign in with single sign-on only' });
      await part.getByText(/Owners keep their passwords/).waitFor();
      assert.equal(await only.isChecked(), false);
      assert.equal(await only.isEnabled(), true);
      await only.click();
      await part.getByText('Members now sign in with single sign-on only.').waitFor();
      assert.equal(await only.isChecked(), true);
      await axe(page, 'the single sign-on part of the members page');
      await part.scrollIntoViewIfNeeded();
      await shootPage(page, 'admin-single-sign-on');

      await passwordStep(memberPage, MEMBER);
      await memberPage.getByRole('alert').filter({ hasText: "Your company signs you in only through your organisation's sign-in" }).waitFor();
      assert.match(memberPage.url(), /\/sign-in/);
      await axe(memberPage, 'the refused sign-in');
      await shootPage(memberPage, 'sign-in-single-sign-on-only');

      await only.click();
      await part.getByText('Members may sign in with a password again.').waitFor();
      await passwordStep(memberPage, MEMBER);
      await memberPage.waitForURL(/\/boards/);
      assert.deepEqual(errors, [], 'JavaScript errors on the page');
      failed = false;
    } finally {
      await keepFailure('sign-in-policy', owner, page, failed);
      await owner.close();
      await someone.close();
    }
  });

  test("a member's passkey alone is refused too, with the same sentence", async () => {
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    let failed = true;
    try {
      await virtualAuthenticator(await context.newCDPSession(page));
      await passwordStep(page, MEMBER);
      await page.waitForURL(/\/boards/);
      await page.goto('/account');
      const part = page.getByRole('region', { name: 'Passkeys' });
      await part.getByRole('textbox', { name: 'Passkey name' }).fill('Work laptop');
      await part.getByRole('button', { name: 'Add a passkey' }).click();
      await part.getByText('Passkey “Work laptop” added.').waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL('**/sign-in');
      const on = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/companies/${t.tenant.companyId}/sign-in-policy`,
        headers: bearer(t.tenant.apiKey),
        payload: { singleSignOnOnly: true },
      });
      assert.equal(on.statusCode, 200, on.body);
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.getByRole('alert').filter({ hasText: "Your company signs you in only through your organisation's sign-in" }).waitFor();
      assert.equal((await page.request.get('/api/v1/me')).status(), 401, 'no session');
      failed = false;
    } finally {
      await keepFailure('sign-in-policy-passkey', context, page, failed);
      await context.close();
    }
  });

  test('a server without single sign-on shows the switch off, saying why', async () => {
    const bare = await buildTestApp('sqlite');
    const bareURL = await serve(bare);
    await givePassword(bare.services, OWNER);
    const context = await browser.newContext({ baseURL: bareURL });
    const page = await context.newPage();
    let failed = true;
    try {
      await passwordStep(page, OWNER);
      await page.waitForURL(/\/boards/);
      await page.getByRole('link', { name: 'Administration' }).click();
      const part = page.getByRole('region', { name: 'Single sign-on' });
      await part.getByText(/This server has no single sign-on set up/).waitFor();
      assert.equal(await part.getByRole('checkbox', { name: 'Members sign in with single sign-on only' }).isDisabled(), true);
      failed = false;
    } finally {
      await keepFailure('sign-in-policy-bare', context, page, failed);
      await context.close();
      await bare.dispose();
    }
  });
});
