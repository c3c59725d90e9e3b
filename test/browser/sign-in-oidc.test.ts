/**
 * Single sign-on in a real browser: the sign-in page offers it when the server has a provider, the
 * button leads to the provider's login, and the person comes back signed in; a refusal comes back
 * to the sign-in page with its sentence.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from '@playwright/test';
import { type App, buildApp } from '../../src/app.ts';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { chromiumMissing, keepFailure, launch } from '../support/browser.ts';
import { openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';
import { startProvider, type TestProvider } from '../support/oidc-provider.ts';

async function axe(page: Page, what: string) {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    bad.map((violation) => violation.id),
    [],
    `serious or critical accessibility violations on ${what}`,
  );
}

describe('single sign-on in a browser', { skip: chromiumMissing }, () => {
  let storage: TestStorage;
  let provider: TestProvider;
  let app: App;
  let browser: Browser;
  let baseURL: string;
  let owner: Awaited<ReturnType<typeof bootstrap>>;

  before(async () => {
    // The provider must know the app's callback before the app listens: a port picked here.
    const port = randomInt(20_000, 60_000);
    baseURL = `http://127.0.0.1:${port}`;
    const redirectUrl = `${baseURL}/api/v1/auth/oidc/callback`;
    provider = await startProvider(redirectUrl);
    provider.accounts.set('ada', { email: 'ada@example.test', email_verified: true, name: 'Ada at the provider' });
    provider.accounts.set('eve', { email: 'eve@example.test', email_verified: true });
    storage = await openTestStorage('sqlite');
    const config = testConfig();
    config.people = {
      ...config.people,
      oidc: { ...config.people.oidc, issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, redirectUrl },
    };
    app = await buildApp({ config, storage: storage.storage, rateLimiter: null, logger: false });
    await app.ready();
    owner = await bootstrap(app.services, { company: 'Analytical', team: 'Engines', email: 'ada@example.test', fullName: 'Ada Lovelace' });
    await app.listen({ port, host: '127.0.0.1' });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await storage?.dispose();
    await provider?.close();
  });

  test('the button leads through the provider and back, signed in', async (context) => {
    const browserContext = await browser.newContext({ baseURL });
    await browserContext.tracing.start({ screenshots: true, snapshots: true });
    const page = await browserContext.newPage();
    let failed = true;
    try {
      await page.goto('/sign-in');
      await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
      await page.waitForURL(`${provider.issuer}/**`);
      await page.getByRole('textbox', { name: 'Enter any login' }).fill('ada');
      await page.getByPlaceholder('and password').fill('anything');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.waitForURL(`${baseURL}/**`);
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await page.getByText('Ada Lovelace').waitFor();
      await page.getByRole('heading', { name: 'Engines' }).waitFor();

      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
      await browserContext.close();
    }
  });

  test('a verified email without an account is sent back with a sentence', async (context) => {
    const browserContext = await browser.newContext({ baseURL });
    await browserContext.tracing.start({ screenshots: true, snapshots: true });
    const page = await browserContext.newPage();
    let failed = true;
    try {
      await page.goto('/sign-in');
      await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
      await page.getByRole('textbox', { name: 'Enter any login' }).fill('eve');
      await page.getByPlaceholder('and password').fill('anything');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.waitForURL('**/sign-in?error=sso_not_invited');
      await page.getByRole('alert').filter({ hasText: 'Your email has no account here. Ask an administrator to invite you.' }).waitFor();
      await axe(page, 'the sign-in page with single sign-on and its refusal');
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
      await browserContext.close();
    }
  });

  test('an invitation offers single sign-on, which accepts it and lands on the invited board', async (context) => {
    const call = <T>(method: 'POST', url: string, payload: object) =>
      app.inject({ method, url, headers: { authorization: `Bearer ${owner.apiKey}` }, payload }).then((res) => res.json() as T);
    const board = await call<{ board: { _id: string } }>('POST', `/api/v1/boards?teamId=${owner.teamId}`, { name: 'Mill' });
    const invitation = await call<{ url: string }>('POST', `/api/v1/companies/${owner.companyId}/invitations`, {
      email: 'eve@example.test',
      role: 'member',
      board: board.board._id,
    });
    const browserContext = await browser.newContext({ baseURL });
    await browserContext.tracing.start({ screenshots: true, snapshots: true });
    const page = await browserContext.newPage();
    let failed = true;
    try {
      await page.goto(`/invitations${new URL(invitation.url).hash}`);
      await page.getByRole('heading', { name: 'Join Analytical on Taskboard' }).waitFor();
      await axe(page, 'the invitation with single sign-on');
      await page.getByRole('button', { name: 'Join with single sign-on' }).click();
      await page.getByRole('textbox', { name: 'Enter any login' }).fill('eve');
      await page.getByPlaceholder('and password').fill('anything');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.waitForURL(`**/boards/${board.board._id}`);
      await page.getByRole('heading', { name: 'Mill' }).first().waitFor();
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
      await browserContext.close();
    }
  });
});
