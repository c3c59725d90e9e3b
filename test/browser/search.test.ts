/**
 * The header's search box in a real browser (Debian's Chromium, headless): `/` focuses it (not
 * while typing in a field), results come as you type, grouped by type, the arrow keys move the
 * active option (aria-activedescendant), Enter opens the card (and its comment), Escape closes the
 * list; an accessibility scan with the results open. The board filter takes the same operators.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';

async function axe(page: Page, what: string) {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    bad.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(' | ')}`),
    [],
    `serious or critical accessibility violations on ${what}`,
  );
}

describe('the search box in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;
  const ids: Record<string, string> = {};

  async function api(method: string, path: string, body?: unknown) {
    const response = await fetch(`${baseURL}${path}`, {
      method,
      headers: { Authorization: `Bearer ${t.tenant.apiKey}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, { _id: string }>;
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }

  before(async () => {
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    browser = await launch();
    ids.board = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Roadmap' })).board?._id ?? '';
    ids.doing = (await api('POST', '/api/v1/lists', { board: ids.board, name: 'Doing' })).list?._id ?? '';
    ids.login = (await api('POST', '/api/v1/cards', { list: ids.doing, name: 'Fix login page', description: 'The menu breaks' })).card?._id ?? '';
    ids.logout = (await api('POST', '/api/v1/cards', { list: ids.doing, name: 'Logout flow', description: 'mentions login' })).card?._id ?? '';
    ids.other = (await api('POST', '/api/v1/cards', { list: ids.doing, name: 'Write release notes' })).card?._id ?? '';
    ids.comment = (await api('POST', `/api/v1/cards/${ids.other}/comments`, { content: 'Needs a login reviewer' })).comment?._id ?? '';
    ids.label = (await api('POST', `/api/v1/boards/${ids.board}/labels`, { name: 'bug', color: '000000000000000000000004' })).label?._id ?? '';
    await api('POST', `/v2/cards/${ids.logout}/labels`, { labels: [ids.label] });
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  test('/ focuses the box; results as you type, grouped; keys choose and open', async (context) => {
    const browserContext = await contextWithKey(browser, baseURL, t.tenant.apiKey, { viewport: { width: 1280, height: 800 } });
    const page = await browserContext.newPage();
    let failed = true;
    try {
      await page.goto('/boards');
      const box = page.getByRole('combobox', { name: 'Search' });
      // typing "/" in a field types it
      const boardName = page.getByRole('textbox', { name: 'Board name' });
      await boardName.fill('a');
      await boardName.press('/');
      assert.equal(await boardName.inputValue(), 'a/');
      assert.equal(await box.evaluate((element) => element === element.ownerDocument.activeElement), false);
      await boardName.blur();
      // elsewhere it focuses the search box
      await page.keyboard.press('/');
      assert.equal(await box.evaluate((element) => element === element.ownerDocument.activeElement), true);
      assert.equal(await box.inputValue(), '');

      await page.keyboard.type('logi');
      const results = page.getByRole('listbox', { name: 'Search results' });
      const cards = results.getByRole('group', { name: 'Cards' });
      const comments = results.getByRole('group', { name: 'Comments' });
      // the answer to all four letters, not an earlier one shown meanwhile (its arrival resets the active option)
      await results.and(page.locator('[aria-busy="false"]')).waitFor();
      await cards.getByRole('option', { name: /Fix login page/ }).waitFor();
      await comments.getByRole('option', { name: /Needs a login reviewer/ }).waitFor();
      assert.equal(await cards.getByRole('option').count(), 2);
      assert.equal(await box.getAttribute('aria-expanded'), 'true');
      await axe(page, 'the search results');

      // the arrow keys move the active option; Escape closes the list
      await box.press('ArrowDown');
      const first = results.getByRole('option').first();
      assert.equal(await first.getAttribute('aria-selected'), 'true');
      assert.equal(await box.getAttribute('aria-activedescendant'), await first.getAttribute('id'));
      await box.press('ArrowDown');
      const second = results.getByRole('option').nth(1);
      assert.equal(await second.getAttribute('aria-selected'), 'true');
      assert.equal(await box.getAttribute('aria-activedescendant'), await second.getAttribute('id'));
      await box.press('ArrowUp');
      assert.equal(await box.getAttribute('aria-activedescendant'), await first.getAttribute('id'));
      await box.press('Escape');
      assert.equal(await box.getAttribute('aria-expanded'), 'false');
      assert.equal(await box.getAttribute('aria-activedescendant'), null);

      // Enter opens the active card on its board, its dialog open
      await box.press('ArrowDown');
      const name = (await first.getByText(/^(Fix login page|Logout flow)$/).textContent()) ?? '';
      await box.press('Enter');
      await page.waitForURL(`**/boards/${ids.board}?card=*`);
      const opened = new URL(page.url()).searchParams.get('card');
      assert.equal(opened, name === 'Fix login page' ? ids.login : ids.logout);
      await page.getByRole('dialog').waitFor();

      // a comment opens its card, with the comment named in the address to scroll to
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      await page.keyboard.press('/');
      await page.keyboard.type('reviewer');
      const comment = page.getByRole('listbox', { name: 'Search results' }).getByRole('option', { name: /Needs a login reviewer/ });
      await comment.waitFor();
      await comment.click();
      await page.waitForURL(`**/boards/${ids.board}?card=${ids.other}&item=${ids.comment}`);
      await page.getByRole('dialog').getByText('Needs a login reviewer').waitFor();

      // a malformed query says what is wrong, in the box's status
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      await page.keyboard.press('/');
      await page.keyboard.type('"login');
      await page.getByRole('status').filter({ hasText: 'never closed' }).waitFor();
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
    }
  });

  test("the board's filter takes the search operators", async (context) => {
    const browserContext = await contextWithKey(browser, baseURL, t.tenant.apiKey, { viewport: { width: 1280, height: 800 } });
    const page = await browserContext.newPage();
    let failed = true;
    try {
      await page.goto(`/boards/${ids.board}`);
      const doing = page.getByRole('region', { name: 'Doing', exact: true });
      const card = (name: string) => doing.getByRole('button', { name: new RegExp(`^${name}`) });
      await card('Write release notes').waitFor();
      await page.getByRole('searchbox', { name: 'Filter cards' }).fill('log label:bug');
      await page.waitForURL(/q=log/);
      await card('Fix login page').waitFor({ state: 'detached' });
      await card('Logout flow').waitFor();
      assert.equal(await card('Write release notes').count(), 0);
      await page.getByRole('searchbox', { name: 'Filter cards' }).fill('login -page');
      await card('Fix login page').waitFor({ state: 'detached' });
      await card('Logout flow').waitFor();
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
    }
  });
});
