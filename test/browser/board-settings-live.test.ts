/**
 * The board menu's dialogs stay live: a label renamed in one browser shows in another's board and
 * open labels dialog, and a card archived elsewhere shows in an open archived items dialog, without
 * a reload. The stream's wake-up differs by engine: both are run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { apiCaller, cardIn, makeBoard } from './board-support.ts';

// evaluate's callbacks run in the page (the suite's own type check has no DOM library)
declare const window: { notReloaded?: boolean };

for (const engine of ENGINES)
  describe(`the board menu's dialogs live across browsers [${engine}]`, { skip: chromiumMissing }, () => {
    let t: TestApp;
    let browser: Browser;
    let baseURL = '';
    const api = apiCaller(
      () => baseURL,
      () => t.tenant.apiKey,
    );

    before(async () => {
      t = await buildTestApp(engine);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      browser = await launch();
    });
    after(async () => {
      await browser?.close();
      await t?.dispose();
    });

    test('a label renamed in one browser, a card archived by another client: shown in the other browser at once', async (context) => {
      const { boardId, cards } = await makeBoard(api, t.tenant.teamId, 'Shared', { 'To do': ['Tagged', 'Soon archived'] });
      const colour = (await api<{ colors: { _id: string }[] }>('GET', '/api/v1/label-colors')).colors[0]?._id;
      const { label } = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Bug', color: colour });
      await api('POST', `/v2/cards/${cards.get('Tagged')}/labels`, { labels: [label._id] });

      const contexts: [string, BrowserContext, Page][] = [];
      const open = async (name: string) => {
        const browserContext = await contextWithKey(browser, baseURL, t.tenant.apiKey, { viewport: { width: 1280, height: 800 } });
        const page = await browserContext.newPage();
        contexts.push([name, browserContext, page]);
        await page.goto(`/boards/${boardId}`);
        await cardIn(page, 'To do', 'Tagged').filter({ hasText: 'Bug' }).waitFor();
        await page.getByRole('button', { name: 'Board menu' }).click();
        await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Labels', exact: true }).click();
        await page.getByRole('dialog', { name: 'Labels of Shared' }).getByRole('button', { name: 'Edit label Bug' }).waitFor();
        return page;
      };
      let failed = true;
      try {
        const watcher = await open('watcher');
        await watcher.evaluate(() => {
          window.notReloaded = true;
        });
        const editor = await open('editor');
        const dialog = editor.getByRole('dialog', { name: 'Labels of Shared' });
        await dialog.getByRole('button', { name: 'Edit label Bug' }).click();
        await dialog.getByRole('form', { name: 'Edit label Bug' }).getByLabel('Label name').fill('Defect');
        await dialog.getByRole('form', { name: 'Edit label Bug' }).getByRole('button', { name: 'Save' }).click();

        // the watcher's open dialog and the card behind it both show the new name
        await watcher.getByRole('dialog', { name: 'Labels of Shared' }).getByRole('button', { name: 'Edit label Defect' }).waitFor();
        await cardIn(watcher, 'To do', 'Tagged').filter({ hasText: 'Defect' }).waitFor();

        // an archived items dialog open in the watcher hears of a card archived elsewhere
        await watcher.keyboard.press('Escape');
        await watcher.getByRole('button', { name: 'Board menu' }).click();
        await watcher.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Archived items', exact: true }).click();
        const archive = watcher.getByRole('dialog', { name: 'Archived items of Shared' });
        await archive.getByText('No archived cards.').waitFor();
        await api('PATCH', `/api/v1/cards/${cards.get('Soon archived')}/archive`, {});
        await archive.getByRole('button', { name: 'Restore card Soon archived' }).waitFor();
        assert.equal(await watcher.evaluate(() => window.notReloaded), true);
        failed = false;
      } finally {
        for (const [name, browserContext, page] of contexts) {
          await keepFailure(`${context.name} (${name})`, browserContext, page, failed);
          await browserContext.close();
        }
      }
    });
  });
