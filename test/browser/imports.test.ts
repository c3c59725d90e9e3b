/**
 * Importing a Trello board from the boards page, as a person does: the team's "Import a board"
 * button, the file picker, the progress until the dialog links to the new board, which then opens
 * with its lists and cards; a malformed file is refused in the dialog with the server's words; axe
 * finds no serious or critical violation in the dialog.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { smallTrelloExport } from '../support/trello.ts';
import { axe, cardIn } from './board-support.ts';

describe('importing a Trello board in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;

  before(async () => {
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  test('pick the export, follow the import, open the board', async () => {
    const context = await contextWithKey(browser, baseURL, t.tenant.apiKey);
    const page = await context.newPage();
    let failed = true;
    try {
      await page.goto('/boards');
      await page.getByRole('button', { name: 'Import a board into Core' }).click();
      const dialog = page.getByRole('dialog', { name: 'Import a board into Core' });
      await dialog.waitFor();
      await axe(page, 'the import dialog');

      // a file that is no Trello export: the server's reason, in the dialog
      await dialog.getByLabel('Export file').setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"name": "Half') });
      await dialog.getByRole('button', { name: 'Start import' }).click();
      await dialog.getByRole('alert').filter({ hasText: 'not JSON' }).waitFor();

      await dialog
        .getByLabel('Export file')
        .setInputFiles({ name: 'launch.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(smallTrelloExport())) });
      await dialog.getByRole('button', { name: 'Start import' }).click();
      const open = dialog.getByRole('link', { name: 'Open Launch 🚀 — планы' });
      await open.waitFor();
      await dialog.getByRole('status').filter({ hasText: 'Imported Launch 🚀 — планы.' }).waitFor();
      assert.match((await dialog.textContent()) ?? '', /Zoë Unknown/);
      // what was left out is said in words, never by the report's keys
      const report = (await dialog.textContent()) ?? '';
      assert.match(report, /Power-Ups?/);
      assert.doesNotMatch(report, /powerUps|customFields|unmatched[A-Z]|: \d/);
      await axe(page, 'the import dialog once done');
      // the team's boards show it too
      await page.getByRole('main').getByRole('link', { name: 'Launch 🚀 — планы', exact: true }).waitFor();
      await open.click();
      await page.waitForURL('**/boards/*');
      await cardIn(page, 'To do', 'Write the press release').waitFor();
      await cardIn(page, 'To do', 'Second card').waitFor();
      await page.getByRole('region', { name: 'Doing', exact: true }).waitFor();
      failed = false;
    } finally {
      await keepFailure('import-dialog', context, page, failed);
      await context.close();
    }
  });
});
