/**
 * API keys that can do less, on the account page in a real browser: a person signed in with a
 * password makes a read-only key limited to one team with a last day, and the API enforces what the
 * page chose; the list shows each key's scope, teams, expiry, last use and its address; an expired
 * key says so; revoke asks first. axe scans the section.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from '@playwright/test';
import { ARTIFACTS, chromiumMissing, keepFailure, launch } from '../support/browser.ts';
import { addTeam } from '../support/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../support/people.ts';
import { axe } from './board-support.ts';

interface ApiKeyRecord {
  _id: string;
  name: string;
  access: string;
  teams: string[] | null;
  expiresAt: string | null;
}

describe('API keys that can do less, in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;
  let designTeam: string;

  const call = (method: string, url: string, token: string, payload?: object) =>
    t.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

  before(async () => {
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await givePassword(t.services, 'owner@acme.test');
    designTeam = await addTeam(t.services, t.tenant.companyId, 'Design', [t.tenant.userId]);
    // the owner reads dates in Berlin: the key's last day ends at midnight there
    assert.equal((await call('PATCH', '/api/v1/me', t.tenant.apiKey, { timeZone: 'Europe/Berlin' })).statusCode, 200);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  test('a read-only key for one team until a day, its last use, its expiry, revoked', async () => {
    const context = await browser.newContext({ baseURL, serviceWorkers: 'block' });
    await context.tracing.start({ screenshots: true, snapshots: true });
    const page: Page = await context.newPage();
    const confirmations: string[] = [];
    page.on('dialog', (dialog) => {
      confirmations.push(dialog.message());
      void dialog.accept();
    });
    let failed = true;
    try {
      await page.goto('/sign-in');
      await page.getByRole('textbox', { name: 'Email' }).fill('owner@acme.test');
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/boards/);
      await page.goto('/account');
      const keys = page.getByRole('region', { name: 'API keys' });

      // the choices: read and change by default, teams unchecked (every team), no last day
      assert.equal(await keys.getByRole('radio', { name: 'Read and change' }).isChecked(), true);
      assert.equal(await keys.getByRole('group', { name: 'Teams' }).getByRole('checkbox').count(), 2);
      await keys.getByRole('textbox', { name: 'Key name' }).fill('reporting');
      await keys.getByRole('radio', { name: 'Read only' }).check();
      await keys.getByRole('group', { name: 'Teams' }).getByRole('checkbox', { name: 'Design' }).check();
      await keys.getByLabel('Expires after (optional)').fill('2030-01-31');
      await keys.getByRole('button', { name: 'Create API key' }).click();
      const token = await keys.getByRole('group', { name: 'New token of reporting' }).getByRole('textbox').inputValue();

      // what the API made of the choices, and enforces
      const listed = (await call('GET', '/api/v1/api-keys', t.tenant.apiKey)).json() as { apiKeys: ApiKeyRecord[] };
      const made = listed.apiKeys.find((key) => key.name === 'reporting');
      assert.deepEqual(
        { access: made?.access, teams: made?.teams, expiresAt: made?.expiresAt },
        { access: 'read-only', teams: [designTeam], expiresAt: '2030-01-31T22:59:59.000Z' },
      );
      const reached = (await call('GET', '/api/v1/teams', token)).json() as { teams: { name: string }[] };
      assert.deepEqual(
        reached.teams.map((team) => team.name),
        ['Design'],
      );
      assert.equal((await call('POST', '/api/v1/boards', token, { teamId: designTeam, name: 'Not allowed' })).statusCode, 403);
      // the form is empty again, back to its defaults
      assert.equal(await keys.getByRole('textbox', { name: 'Key name' }).inputValue(), '');
      assert.equal(await keys.getByRole('radio', { name: 'Read and change' }).isChecked(), true);

      // the list: scope, teams, last day, and (after a use) when and from where
      await keys.getByRole('button', { name: 'Done' }).click();
      const row = keys.getByRole('listitem').filter({ hasText: 'reporting' });
      await row.getByText('read only · teams: Design · expires 1/31/2030, 11:59:59 PM').waitFor();
      await row.getByText('never used').waitFor();
      await page.reload();
      await row.getByText(/^last used .* from 127\.0\.0\.1$/).waitFor();
      // the tenant's own key has every team and no last day
      const full = keys.getByRole('listitem').filter({ has: page.getByText('read and change · every team · does not expire') });
      assert.equal(await full.count(), 1);
      await axe(page, 'the API keys of the account page');
      await keys.screenshot({ path: join(ARTIFACTS, 'account-api-keys.png') });

      // a key past its last day says so
      await t.services.db
        .updateTable('api_keys')
        .set({ expires_at: '2026-01-02T10:00:00.000Z' })
        .where('id', '=', made?._id ?? '')
        .execute();
      await page.reload();
      await row.getByText('Expired', { exact: true }).waitFor();
      await row.getByText(/expired 1\/2\/2026, 11:00:00\sAM/).waitFor();

      // revoke asks, then the key is gone and refused
      await keys.getByRole('button', { name: 'Revoke reporting' }).click();
      await keys.getByRole('status').filter({ hasText: 'Key reporting revoked.' }).waitFor();
      assert.deepEqual(confirmations, ['Revoke the key "reporting"? Its token stops working at once.']);
      await row.waitFor({ state: 'detached' });
      assert.equal((await call('GET', '/api/v1/me', token)).statusCode, 401);
      failed = false;
    } finally {
      await keepFailure('api-keys', context, page, failed);
      await context.close();
    }
  });
});
