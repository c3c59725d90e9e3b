/**
 * The audit log page in a real browser, as a company's owner uses it after signing in with a
 * password: only owners have the link and the page; entries newest first, times in the owner's time
 * zone, kinds in words; filters by person, kind and days (whole days of that zone); Load more by the
 * cursor; the empty state; a CSV export downloaded and read. axe scans the page; screenshots in light,
 * dark and on a phone are kept with the test's artifacts.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { recordAudit } from '../../src/domain/audit/log.ts';
import { ARTIFACTS, chromiumMissing, contextWithKey, launch } from '../support/browser.ts';
import { keeping } from '../support/card-dialog.ts';
import { addMember } from '../support/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../support/people.ts';
import { axe } from './board-support.ts';

/** Seeded entries on one day: more than a page (50), so that Load more has something to load. */
const SEEDED = 55;
const SEED_START = Date.parse('2026-03-01T10:00:00Z');

describe('the audit log page in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;
  let companyId: string;
  let member: { userId: string; apiKey: string; email: string };

  async function api<T = Record<string, unknown>>(method: string, url: string, payload?: object, headers: Record<string, string> = {}): Promise<T> {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${t.tenant.apiKey}`, ...headers },
      ...(payload ? { payload } : {}),
    });
    assert.ok(res.statusCode < 300, `${method} ${url} → ${res.statusCode} ${res.body}`);
    return (res.body ? res.json() : {}) as T;
  }

  before(async () => {
    t = await buildTestApp('sqlite');
    companyId = t.tenant.companyId;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await givePassword(t.services, 'owner@acme.test');
    member = {
      email: 'mia@acme.test',
      ...(await addMember(t.services, { companyId, teamIds: [t.tenant.teamId], email: 'mia@acme.test', fullName: 'Mia Member', role: 'admin' })),
    };
    await givePassword(t.services, member.email);
    // a day of webhook changes by the owner, then a board deleted that night (the next day in Tokyo)
    for (let i = 0; i < SEEDED; i += 1) {
      await recordAudit(
        t.services.db,
        { userId: t.tenant.userId, client: { ip: '203.0.113.7', userAgent: 'curl/8.5.0' } },
        { kind: 'webhook.updated', company: companyId, target: { type: 'webhook', id: `wh${i}` }, details: { host: 'hooks.example.test', enabled: true } },
        new Date(SEED_START + i * 60_000).toISOString(),
      );
    }
    await recordAudit(
      t.services.db,
      { userId: t.tenant.userId },
      { kind: 'board.deleted', company: companyId, target: { type: 'board', id: 'b1' }, details: { name: 'Old plans' } },
      '2026-03-01T16:00:00.000Z',
    );
    // a wrong password of the admin, from a phone
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      payload: { email: member.email, password: 'not the password at all' },
      headers: {
        'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      },
    });
    assert.equal(refused.statusCode, 401);
    // the owner reads times in Tokyo
    await api('PATCH', '/api/v1/me', { timeZone: 'Asia/Tokyo' });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  async function run(name: string, context: BrowserContext, steps: (page: Page) => Promise<void>) {
    const page = await context.newPage();
    try {
      await keeping(`audit-${name}`, context, page, () => steps(page));
    } finally {
      await context.close();
    }
  }

  async function signInAsOwner(page: Page) {
    await page.goto('/sign-in');
    await page.getByRole('textbox', { name: 'Email' }).fill('owner@acme.test');
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/boards/);
  }

  test('an admin has no link to the audit log and cannot open it', async () => {
    await run('admin', await contextWithKey(browser, baseURL, member.apiKey), async (page) => {
      await page.goto('/boards');
      await page.getByRole('link', { name: 'Administration' }).click();
      const sections = page.getByRole('navigation', { name: 'Administration sections' });
      await sections.getByRole('link', { name: 'Members' }).waitFor();
      assert.equal(await sections.getByRole('link', { name: 'Audit log' }).count(), 0);
      await page.goto(`/admin/${companyId}/audit`);
      await page.getByText("Only this company's owners and admins can open its administration.").waitFor();
      assert.equal(await page.getByRole('table').count(), 0);
    });
  });

  test('the owner reads, filters, pages and exports the log', async () => {
    const context = await browser.newContext({ baseURL, serviceWorkers: 'block' });
    await context.tracing.start({ screenshots: true, snapshots: true });
    await run('owner', context, async (page) => {
      await signInAsOwner(page);
      await page.getByRole('link', { name: 'Administration' }).click();
      await page.getByRole('navigation', { name: 'Administration sections' }).getByRole('link', { name: 'Audit log' }).click();
      const log = page.getByRole('region', { name: 'Audit log' });
      const table = log.getByRole('table', { name: 'Audit log' });
      const rows = table.getByRole('row');
      /**
       * Presses `button` and waits for the first page the new filters ask for (`asked`: what its query
       * holds; none: no filter): the page drops the last filters' rows before it asks, so what shows
       * after this answer is the new filters' alone.
       */
      async function press(button: 'Show' | 'Clear filters', asked?: RegExp) {
        const answer = page.waitForResponse((response) => {
          const url = decodeURIComponent(response.url());
          return url.includes('/audit-log?') && !url.includes('cursor=') && (asked ? asked.test(url) : !/actor=|kind=|since=|until=/.test(url));
        });
        await log.getByRole('button', { name: button }).click();
        await answer;
      }

      // newest first: this sign-in, by the owner, from this browser's address
      const newest = rows.nth(1);
      await newest.getByRole('rowheader', { name: 'Signed in' }).waitFor();
      assert.match(String(await newest.textContent()), /Olive Owner[\s\S]*127\.0\.0\.1/);
      // a page of 50 (and the header row), then the rest by the cursor
      assert.equal(await rows.count(), 51);
      await log.getByText('50 entries shown').waitFor();
      await axe(page, 'the audit log');
      await page.screenshot({ path: join(ARTIFACTS, 'audit-log.png'), fullPage: true });
      const total = (await api<{ entries: unknown[] }>('GET', `/api/v1/companies/${companyId}/audit-log?limit=100`)).entries.length;
      assert.ok(total > SEEDED, `${total} entries`);
      await log.getByRole('button', { name: 'Load more' }).click();
      await log.getByText(`${total} entries shown`).waitFor();
      assert.equal(await log.getByRole('button', { name: 'Load more' }).count(), 0);

      // the kind in words, the admin's refused password with its reason and the phone it came from
      await log.getByRole('combobox', { name: 'What happened' }).selectOption({ label: 'Sign-in refused' });
      await press('Show', /kind=sign_in\.failed/);
      await log.getByText('1 entry shown').waitFor();
      const refused = rows.nth(1);
      await refused.getByRole('rowheader', { name: /Sign-in refused.*reason: wrong_password/ }).waitFor();
      assert.match(String(await refused.textContent()), /Mia Member[\s\S]*Safari on iOS/);

      // by person: only the owner's entries
      await press('Clear filters');
      await log.getByRole('combobox', { name: 'Person' }).selectOption({ label: 'Mia Member (mia@acme.test)' });
      await press('Show', new RegExp(`actor=${member.userId}`));
      await log.getByText('1 entry shown').waitFor();
      await log.getByRole('combobox', { name: 'Person' }).selectOption({ label: 'Olive Owner (owner@acme.test)' });
      await press('Show', new RegExp(`actor=${t.tenant.userId}`));
      await log.getByText('50 entries shown').waitFor();

      // days are the owner's (Tokyo): on 1 March the 55 changes (19:00 there), not the board deleted at 01:00 on the 2nd
      await press('Clear filters');
      await log.getByLabel('From', { exact: true }).fill('2026-03-01');
      await log.getByLabel('To', { exact: true }).fill('2026-03-01');
      await press('Show', /since=2026-02-28T15:00:00\.000Z&until=2026-03-01T15:00:00\.000Z/);
      await log.getByText('50 entries shown').waitFor();
      assert.equal(await table.getByRole('rowheader', { name: /Board deleted/ }).count(), 0);
      await log.getByRole('button', { name: 'Load more' }).click();
      await log.getByText(`${SEEDED} entries shown`).waitFor();
      // the first of them, at 10:00 UTC, is 19:00 in Tokyo
      assert.match(
        String(await rows.last().textContent()),
        /3\/1\/2026, 7:00:00\s?PM[\s\S]*Webhook changed[\s\S]*Webhook: hooks\.example\.test[\s\S]*203\.0\.113\.7[\s\S]*curl\/8\.5\.0/,
      );
      await log.getByLabel('From', { exact: true }).fill('2026-03-02');
      await log.getByLabel('To', { exact: true }).fill('2026-03-02');
      await press('Show', /since=2026-03-01T15:00:00\.000Z/);
      await log.getByText('1 entry shown').waitFor();
      await table.getByRole('rowheader', { name: /Board deleted/ }).waitFor();
      assert.match(String(await rows.nth(1).textContent()), /Board: Old plans/);

      // a day with nothing: said in words
      await log.getByLabel('From', { exact: true }).fill('2026-02-01');
      await log.getByLabel('To', { exact: true }).fill('2026-02-01');
      await press('Show', /since=2026-01-31T15:00:00\.000Z/);
      await log.getByText('No entries match these filters.').waitFor();
      assert.equal(await log.getByRole('table').count(), 0);
      await axe(page, 'the empty audit log');

      // the export of what the filters keep: the board deleted on 2 March
      await log.getByLabel('From', { exact: true }).fill('2026-03-02');
      await log.getByLabel('To', { exact: true }).fill('2026-03-02');
      await press('Show', /since=2026-03-01T15:00:00\.000Z/);
      await log.getByText('1 entry shown').waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), log.getByRole('link', { name: 'Export CSV' }).click()]);
      assert.equal(download.suggestedFilename(), 'audit-log.csv');
      const csv = await readFile(await download.path(), 'utf8');
      const lines = csv.trim().split(/\r?\n/);
      assert.match(lines[0] ?? '', /^id,at,kind,actor_id/);
      assert.equal(lines.length, 2, csv);
      assert.match(lines[1] ?? '', /board\.deleted/);
      const exported = await api<{ entries: { kind: string; details: Record<string, unknown> }[] }>(
        'GET',
        `/api/v1/companies/${companyId}/audit-log?kind=audit_log.exported`,
      );
      assert.equal(exported.entries[0]?.details.format, 'csv');
    });
  });
});
