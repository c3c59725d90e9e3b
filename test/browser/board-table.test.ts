/**
 * The board as a table: one row per card under the board's filters, sorted by a column, columns
 * chosen and ordered (remembered for the person and board, and in a shareable URL), a cell edited in
 * place, arrow keys between cells, and a change made elsewhere shown live.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from '@playwright/test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

// evaluate's callbacks run in the page (the suite's own type check has no DOM library)
declare const document: { activeElement: { getAttribute(name: string): string | null } | null };

describe('the board as a table', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  const grid = (page: Page) => page.getByRole('grid', { name: 'Cards of Launch board' });
  const headers = async (page: Page) => (await grid(page).getByRole('columnheader').allInnerTexts()).map((text) => text.trim());
  const names = async (page: Page) => (await grid(page).getByRole('row').locator('.table-name').allInnerTexts()).map((text) => text.trim());

  test('sort, choose and order columns, edit a cell, move by keys, filter, and stay live', async (context) => {
    const banana = await f.newCard('Banana');
    const apple = await f.newCard('Apple', f.lists.doing);
    const cherry = await f.newCard('Cherry');
    const estimate = (
      (await f.api('POST', `/api/v1/boards/${f.boardId}/custom-fields`, { name: 'Estimate', type: 'number', unit: 'h' })).customField as { _id: string }
    )._id;
    await f.api('PATCH', `/api/v1/cards/${banana}/custom-fields`, { values: [{ field: estimate, value: 5 }] });
    await f.api('PATCH', `/api/v1/cards/${apple}/custom-fields`, { values: [{ field: estimate, value: 2 }] });

    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      await page.goto(`/boards/${f.boardId}`);
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Table' }).click();
      await grid(page).waitFor();
      assert.match(page.url(), /view=table/);
      await page.getByRole('status').filter({ hasText: '3 cards' }).waitFor();
      assert.deepEqual(await headers(page), ['', 'Name', 'List', 'Labels', 'Members', 'Start date', 'Due date', 'Checklist', 'Estimate']);
      await axe(page, 'the board table');

      // sort by name, then the other way; the URL keeps it, so a reload (a shared link) shows the same
      await grid(page).getByRole('columnheader', { name: 'Name' }).getByRole('button').click();
      await grid(page).getByRole('columnheader', { name: 'Name' }).and(page.locator('[aria-sort="ascending"]')).waitFor();
      assert.deepEqual(await names(page), ['Apple', 'Banana', 'Cherry']);
      await grid(page).getByRole('columnheader', { name: 'Name' }).getByRole('button').click();
      await grid(page).getByRole('columnheader', { name: 'Name' }).and(page.locator('[aria-sort="descending"]')).waitFor();
      assert.deepEqual(await names(page), ['Cherry', 'Banana', 'Apple']);
      await page.reload();
      await grid(page).getByRole('columnheader', { name: 'Name' }).and(page.locator('[aria-sort="descending"]')).waitFor();
      assert.deepEqual(await names(page), ['Cherry', 'Banana', 'Apple']);

      // by a custom field: cards without a value go last
      await grid(page).getByRole('columnheader', { name: 'Estimate' }).getByRole('button').click();
      await grid(page).getByRole('columnheader', { name: 'Estimate' }).and(page.locator('[aria-sort="ascending"]')).waitFor();
      assert.deepEqual(await names(page), ['Apple', 'Banana', 'Cherry']);

      // columns: Labels hidden, Estimate moved left of Checklist; remembered for this board without the URL
      await page.getByRole('button', { name: 'Columns' }).click();
      const chooser = page.getByRole('dialog', { name: 'Choose columns' });
      await chooser.getByRole('checkbox', { name: 'Labels' }).uncheck();
      await chooser.getByRole('button', { name: 'Move Estimate left' }).click();
      await page.keyboard.press('Escape');
      assert.deepEqual(await headers(page), ['', 'Name', 'List', 'Members', 'Start date', 'Due date', 'Estimate', 'Checklist']);
      await page.goto(`/boards/${f.boardId}?view=table`);
      await grid(page).waitFor();
      assert.deepEqual(await headers(page), ['', 'Name', 'List', 'Members', 'Start date', 'Due date', 'Estimate', 'Checklist']);

      // arrow keys move between cells; Enter on a field's cell edits it in place
      const appleRow = grid(page).getByRole('row').filter({ hasText: 'Apple' });
      await appleRow.getByRole('gridcell').first().focus();
      for (let step = 0; step < 6; step++) await page.keyboard.press('ArrowRight');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-colindex')), '7');
      await page.keyboard.press('Enter');
      const editor = grid(page).getByRole('textbox', { name: 'Edit Estimate of Apple' });
      await editor.fill('7.5');
      const saved = page.waitForResponse((response) => response.url().endsWith(`/cards/${apple}/custom-fields`) && response.ok());
      await editor.press('Enter');
      await saved;
      await appleRow.getByRole('gridcell').nth(6).filter({ hasText: '7.5 h' }).waitFor();
      const values = ((await f.api('GET', `/api/v1/cards/${apple}`)).card as { customFields: { field: string; value: unknown }[] }).customFields;
      assert.deepEqual(values, [{ field: estimate, value: 7.5 }]);
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-colindex')), '7', 'the focus is back on the cell');

      // a name edited in place (F2), and a change made elsewhere, both shown
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('F2');
      await grid(page).getByRole('textbox', { name: 'Edit Name of Apple' }).fill('Apricot');
      await grid(page).getByRole('textbox', { name: 'Edit Name of Apple' }).press('Enter');
      await grid(page).getByRole('row').filter({ hasText: 'Apricot' }).waitFor();
      await f.api('PATCH', `/api/v1/cards/${cherry}`, { name: 'Cherry pie' }, f.alice.apiKey);
      await grid(page).getByRole('row').filter({ hasText: 'Cherry pie' }).waitFor();

      // rows selected (a click, and Space in the first cell) and moved in one request, then one archived
      await grid(page).getByRole('checkbox', { name: 'Select Banana' }).check();
      await page.keyboard.press('Home');
      await grid(page).getByRole('row').filter({ hasText: 'Cherry pie' }).getByRole('gridcell').first().focus();
      await page.keyboard.press('Space');
      const selection = page.getByRole('group', { name: 'Selected cards' });
      await selection.getByText('2 cards selected').waitFor();
      await selection.getByRole('combobox', { name: 'List to move or copy to' }).selectOption({ label: 'Doing' });
      const moved = page.waitForResponse((response) => response.url().endsWith('/api/v1/cards/move-multi-team'));
      await selection.getByRole('button', { name: 'Move to list' }).click();
      assert.equal((await moved).status(), 200);
      await grid(page).getByRole('row').filter({ hasText: 'Banana' }).filter({ hasText: 'Doing' }).waitFor();
      for (const id of [banana, cherry]) assert.equal(((await f.api('GET', `/api/v1/cards/${id}`)).card as { list: string }).list, f.lists.doing);
      await selection.waitFor({ state: 'detached' });
      await grid(page).getByRole('checkbox', { name: 'Select Apricot' }).check();
      await selection.getByRole('button', { name: 'Archive' }).click();
      await grid(page).getByRole('row').filter({ hasText: 'Apricot' }).waitFor({ state: 'detached' });
      assert.equal(((await f.api('GET', `/api/v1/cards/${apple}`)).card as { archived: { status: boolean } }).archived.status, true);

      // the board's filter applies to the table
      await page.getByRole('searchbox', { name: 'Filter cards' }).fill('Banana');
      await page
        .getByRole('status')
        .filter({ hasText: /^1 card$/ })
        .waitFor();
      assert.deepEqual(await names(page), ['Banana']);
      await axe(page, 'the filtered board table');
    });
  });
});
