/**
 * Passkeys in Chromium with a virtual authenticator (the DevTools protocol's WebAuthn domain: a
 * platform authenticator with resident keys and a verified user): register two under names, remove
 * one, sign in with a passkey alone (a discoverable credential, no email typed), and use one as the
 * second step after the password. The site is `localhost` (an address cannot be a relying party).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, CDPSession, Page } from '@playwright/test';
import { chromiumMissing, keepFailure, launch } from '../support/browser.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../support/people.ts';
import { axe } from './board-support.ts';

const EMAIL = 'owner@acme.test';
const SHOTS = process.env.SHOTS_DIR;

async function virtualAuthenticator(cdp: CDPSession): Promise<string> {
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

describe('passkeys in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;

  before(async () => {
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://localhost:${typeof address === 'object' && address ? address.port : 0}`;
    await givePassword(t.services, EMAIL);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  async function passwordStep(page: Page) {
    await page.goto('/sign-in');
    await page.getByRole('textbox', { name: 'Email' }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  test('register two, remove one, sign in with a passkey alone and as the second step', async () => {
    const context = await browser.newContext({ baseURL });
    await context.tracing.start({ screenshots: true, snapshots: true });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    let failed = true;
    try {
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const laptop = await virtualAuthenticator(cdp);

      await passwordStep(page);
      await page.waitForURL(/\/boards/);
      await page.goto('/account');
      const part = page.getByRole('region', { name: 'Passkeys' });
      await part.getByText('No passkeys yet.').waitFor();
      await part.getByRole('textbox', { name: 'Passkey name' }).fill('Work laptop');
      await part.getByRole('button', { name: 'Add a passkey' }).click();
      await part.getByText('Passkey “Work laptop” added.').waitFor();
      const stored = await cdp.send('WebAuthn.getCredentials', { authenticatorId: laptop });
      assert.equal(stored.credentials.length, 1);
      assert.equal(stored.credentials[0]!.isResidentCredential, true);

      // a second device: another authenticator, another passkey
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: laptop });
      await virtualAuthenticator(cdp);
      await part.getByRole('textbox', { name: 'Passkey name' }).fill('Phone');
      await part.getByRole('button', { name: 'Add a passkey' }).click();
      await part.getByText('Passkey “Phone” added.').waitFor();
      await part.getByText('Work laptop', { exact: true }).waitFor();
      await axe(page, 'the passkeys of the account page');
      if (SHOTS) {
        await part.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, 'account-passkeys-light.png'), fullPage: true });
      }
      await part.getByRole('button', { name: 'Remove the passkey Work laptop' }).click();
      await part.getByText('Passkey “Work laptop” removed.').waitFor();
      const listed = await page.request.get('/api/v1/me/passkeys');
      assert.deepEqual(
        ((await listed.json()) as { passkeys: { name: string }[] }).passkeys.map((passkey) => passkey.name),
        ['Phone'],
      );

      // a passkey alone signs in: no email, no password
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL('**/sign-in');
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.waitForURL(/\/boards/);
      assert.equal((await page.request.get('/api/v1/me')).status(), 200);

      // with a passkey, the password asks for it as the second step
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL('**/sign-in');
      await passwordStep(page);
      await page.getByRole('heading', { name: 'Confirm with a passkey' }).waitFor();
      assert.equal((await page.request.get('/api/v1/me')).status(), 401, 'no session before the passkey');
      await axe(page, 'the passkey step');
      if (SHOTS) await page.screenshot({ path: join(SHOTS, 'sign-in-passkey-step-light.png'), fullPage: true });
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.waitForURL(/\/boards/);

      const log = await t.storage.db.selectFrom('audit_log').select(['kind', 'details']).execute();
      assert.ok(log.some((entry) => entry.kind === 'passkey.added'));
      assert.ok(log.some((entry) => entry.kind === 'passkey.removed'));
      assert.ok(log.some((entry) => entry.kind === 'sign_in.succeeded' && JSON.parse(entry.details).method === 'passkey'));
      assert.ok(log.some((entry) => entry.kind === 'sign_in.succeeded' && JSON.parse(entry.details).secondFactor === 'passkey'));
      assert.deepEqual(errors, [], 'JavaScript errors on the page');
      failed = false;
    } finally {
      await keepFailure('passkeys', context, page, failed);
      await context.close();
    }
  });
});
