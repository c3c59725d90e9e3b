/**
 * Export from the board menu: JSON (the documented document), a CSV of the cards and a zip with the
 * attached files, each saved as a file; while the answer comes, a progress bar and how much arrived.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { chromiumMissing, holdRequests } from '../support/browser.ts';
import { axe, boardSuite } from './board-support.ts';

describe('export from the board menu', { skip: chromiumMissing }, () => {
  const suite = boardSuite();

  test('JSON, CSV and zip with attachments, with progress', async () => {
    const { boardId, cards } = await suite.makeBoard('Launch plan', { Todo: ['Write the post', 'Pick a date'] });
    const form = new FormData();
    form.append('file', new Blob(['hello']), 'notes.txt');
    const upload = await fetch(`${suite.baseURL}/api/v1/cards/${cards.get('Write the post')}/attachments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${suite.t.tenant.apiKey}` },
      body: form,
    });
    assert.ok(upload.ok, await upload.text());
    await suite.onPage('export', { acceptDownloads: true }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await page.getByRole('heading', { name: 'Launch plan' }).waitFor();

      async function exportAs(choice: RegExp, hold = false) {
        await page.getByRole('button', { name: 'Board menu' }).click();
        await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Export…' }).click();
        const dialog = page.getByRole('dialog', { name: 'Export Launch plan' });
        await dialog.getByRole('radio', { name: choice }).check();
        const release = hold ? await holdRequests(page, '**/export*') : undefined;
        const download = page.waitForEvent('download');
        await dialog.getByRole('button', { name: 'Export', exact: true }).click();
        if (release) {
          // a large board's export takes a while: the dialog shows it is under way, and how much came
          await dialog.getByRole('progressbar', { name: 'Exporting' }).waitFor();
          await dialog.getByRole('status').filter({ hasText: 'received' }).waitFor();
          await dialog.getByRole('button', { name: 'Cancel export' }).waitFor();
          await axe(page, 'the export dialog while exporting');
          release();
        }
        const saved = await download;
        await dialog
          .getByRole('status')
          .filter({ hasText: `Saved ${saved.suggestedFilename()}` })
          .waitFor();
        const bytes = await readFile((await saved.path()) as string);
        await dialog.getByRole('button', { name: 'Close' }).click();
        return { name: saved.suggestedFilename(), bytes };
      }

      const json = await exportAs(/^JSON/, true);
      assert.match(json.name, /\.json$/);
      const document = JSON.parse(json.bytes.toString('utf8'));
      assert.equal(document.format, 'taskboard-board');
      assert.deepEqual(
        document.cards.map((card: { name: string }) => card.name),
        ['Write the post', 'Pick a date'],
      );

      const csv = await exportAs(/^CSV/);
      assert.match(csv.name, /\.csv$/);
      assert.match(csv.bytes.toString('utf8'), /Write the post/);

      const zip = await exportAs(/^Zip/);
      assert.match(zip.name, /\.zip$/);
      assert.equal(zip.bytes.subarray(0, 2).toString('latin1'), 'PK');
      assert.ok(zip.bytes.includes(Buffer.from('notes.txt')), 'the attached file is in the zip');
    });
  });
});
