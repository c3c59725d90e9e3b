/**
 * The header's search box in a real browser (Debian's Chromium, headless): `/` focuses it (not
 * while typing in a field), results come as you type, grouped by type, the arrow keys move the
 * active option (aria-activedescendant), Enter opens the card (and its comment), Escape closes the
 * list; an accessibility scan with the results open. A comment or checklist item found opens its
 * card scrolled to it. The board filter takes the same operators.
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

  /** Closes the open card dialog by its button, and waits until it is gone. */
  async function closeDialog(page: Page) {
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  /** Presses `/` and waits until the header's search box has the focus, ready to type in. */
  async function slashToSearch(page: Page) {
    await page.keyboard.press('/');
    const box = await page.getByRole('combobox', { name: 'Search' }).elementHandle();
    await page.waitForFunction((element) => element !== null && element === element.ownerDocument.activeElement, box);
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
      await closeDialog(page);
      await slashToSearch(page);
      await page.keyboard.type('reviewer');
      const comment = page.getByRole('listbox', { name: 'Search results' }).getByRole('option', { name: /Needs a login reviewer/ });
      await comment.waitFor();
      await comment.click();
      await page.waitForURL(`**/boards/${ids.board}?card=${ids.other}&item=${ids.comment}`);
      await page.getByRole('dialog').getByText('Needs a login reviewer').waitFor();

      // a malformed query says what is wrong, in the box's status
      await closeDialog(page);
      await slashToSearch(page);
      await page.keyboard.type('"login');
      await page.getByRole('status').filter({ hasText: 'never closed' }).waitFor();
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
    }
  });

  test('a comment or a checklist item found opens its card scrolled to it, marked', async (context) => {
    // far down a long card: comments show newest first, so the first one written is the last shown
    const later = (await api('POST', '/api/v1/lists', { board: ids.board, name: 'Later' })).list?._id ?? '';
    const card = (await api('POST', '/api/v1/cards', { list: later, name: 'Long discussion' })).card?._id ?? '';
    const comment = (await api('POST', `/api/v1/cards/${card}/comments`, { content: 'Walrus migration plan' })).comment?._id ?? '';
    for (let i = 0; i < 20; i++) await api('POST', `/api/v1/cards/${card}/comments`, { content: `Status update ${i}\n\nStill going.` });
    const checklist = (await api('POST', `/api/v1/cards/${card}/checklists`, { name: 'Steps' })).checklist?._id ?? '';
    for (let i = 0; i < 20; i++) await api('POST', `/api/v1/checklists/${checklist}/items`, { name: `Step ${i}` });
    const item = (await api('POST', `/api/v1/checklists/${checklist}/items`, { name: 'Narwhal inspection' })).checklistItem?._id ?? '';

    const browserContext = await contextWithKey(browser, baseURL, t.tenant.apiKey, { viewport: { width: 1280, height: 600 } });
    const page = await browserContext.newPage();
    let failed = true;
    try {
      const dialog = page.getByRole('dialog', { name: /Long discussion/ });
      const walrus = dialog.getByRole('article').filter({ hasText: 'Walrus migration plan' });
      const narwhal = dialog.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: 'Narwhal inspection' }) });
      // shown where a person can see it: the element itself is what shows at its middle (not clipped by a scrolled pane)
      const seen = (locator: typeof walrus) =>
        locator.evaluate((element) => {
          const box = element.getBoundingClientRect();
          const shown = element.ownerDocument.elementFromPoint(box.left + Math.min(box.width / 2, 40), box.top + Math.min(box.height / 2, 12));
          return shown !== null && element.contains(shown);
        });
      const waitSeenAndMarked = async (locator: typeof walrus) => {
        await locator.waitFor();
        const handle = await locator.elementHandle();
        await page.waitForFunction((element) => {
          if (!element || element.getAttribute('data-search-target') !== 'true') return false;
          const box = element.getBoundingClientRect();
          const shown = element.ownerDocument.elementFromPoint(box.left + Math.min(box.width / 2, 40), box.top + Math.min(box.height / 2, 12));
          return shown !== null && element.contains(shown);
        }, handle);
      };

      // opened without an item, the card shows its top and its newest comments only: neither is in sight
      await page.goto(`/boards/${ids.board}?card=${card}`);
      await dialog.getByRole('article').filter({ hasText: 'Status update 19' }).waitFor();
      await narwhal.waitFor();
      assert.equal(await walrus.count(), 0, 'the oldest comment is on a later page');
      assert.equal(await seen(narwhal), false, 'the last checklist item starts out of sight');
      await closeDialog(page);

      await slashToSearch(page);
      await page.keyboard.type('walrus');
      await page
        .getByRole('listbox', { name: 'Search results' })
        .getByRole('group', { name: 'Comments' })
        .getByRole('option', { name: /Walrus migration plan/ })
        .click();
      await page.waitForURL(`**/boards/${ids.board}?card=${card}&item=${comment}`);
      await waitSeenAndMarked(walrus);
      await axe(page, 'the card dialog opened at a comment');

      await closeDialog(page);
      await slashToSearch(page);
      await page.getByRole('combobox', { name: 'Search' }).fill('narwhal');
      await page
        .getByRole('listbox', { name: 'Search results' })
        .getByRole('option', { name: /Narwhal inspection/ })
        .click();
      await page.waitForURL(`**/boards/${ids.board}?card=${card}&item=${item}`);
      await waitSeenAndMarked(narwhal);
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
