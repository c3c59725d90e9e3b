/**
 * Custom fields in the web app: defined in the board menu's dialog, set in the card dialog, shown on
 * the card's front, and seen live by a second browser on the board; deleting a field is confirmed
 * with how many cards hold a value of it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing, holdRequests } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';
import { cardIn } from './board-support.ts';

type Values = { field: string; value: unknown }[];

describe('custom fields in the web app', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  test('define fields, set them on a card, see them on its front and in another browser, delete one', async (context) => {
    const cardId = await f.newCard('Launch');
    const watcher = await f.open(f.alice.apiKey);
    const editor = await f.open();
    await keeping(`${context.name} (watcher)`, watcher.context, watcher.page, async () => {
      await keeping(context.name, editor.context, editor.page, async () => {
        const { page, confirmations } = editor;
        await page.goto(`/boards/${f.boardId}`);
        await cardIn(page, 'To do', 'Launch').waitFor();
        await watcher.page.goto(`/boards/${f.boardId}`);
        await cardIn(watcher.page, 'To do', 'Launch').waitFor();

        // define a number with a unit and a single select with two coloured options, both on card fronts
        await page.getByRole('button', { name: 'Board menu' }).click();
        await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Custom fields', exact: true }).click();
        const settings = page.getByRole('dialog', { name: 'Custom fields of Launch board' });
        await settings.getByText('This board has no custom fields yet.').waitFor();
        const form = settings.getByRole('form', { name: 'New field' });
        await form.getByLabel('Field name').fill('Estimate');
        await form.getByLabel('Type').selectOption({ label: 'Number' });
        await form.getByLabel('Unit').fill('h');
        await form.getByLabel('Show on card fronts').check();
        await form.getByRole('button', { name: 'Create field' }).click();
        await settings.getByRole('button', { name: 'Edit field Estimate' }).waitFor();

        await form.getByLabel('Field name').fill('Stage');
        await form.getByLabel('Type').selectOption({ label: 'Single select' });
        await form.getByLabel('Option 1', { exact: true }).fill('Design');
        await form.getByRole('button', { name: 'Add option' }).click();
        await form.getByLabel('Option 2', { exact: true }).fill('Build');
        await form.getByLabel('Colour of option 2').selectOption({ index: 3 });
        await form.getByLabel('Show on card fronts').check();
        await form.getByRole('button', { name: 'Create field' }).click();
        await settings.getByRole('button', { name: 'Edit field Stage' }).waitFor();
        await form.getByLabel('Field name').fill('Notes');
        await form.getByRole('button', { name: 'Create field' }).click();
        await settings.getByRole('button', { name: 'Edit field Notes' }).waitFor();
        await axe(page, 'the custom fields dialog');

        // reorder: Notes up above Stage, as the API then lists them
        await settings.getByRole('button', { name: 'Move Notes up' }).click();
        await settings.getByRole('listitem').nth(1).getByText('Notes', { exact: true }).waitFor();
        const fields = (await f.api('GET', `/api/v1/boards/${f.boardId}/custom-fields`)).customFields as { _id: string; name: string }[];
        assert.deepEqual(
          fields.map((field) => field.name),
          ['Estimate', 'Notes', 'Stage'],
        );
        await page.keyboard.press('Escape');

        // set the values in the card dialog
        await cardIn(page, 'To do', 'Launch').click();
        const dialog = page.getByRole('dialog', { name: 'Launch', exact: true });
        const section = dialog.getByRole('region', { name: 'Custom fields' });
        // each edit is one Set Card Custom Field Values request, answered before the next
        const saved = () =>
          page.waitForResponse(
            (response) => response.url().endsWith(`/cards/${cardId}/custom-fields`) && response.request().method() === 'PATCH' && response.ok(),
          );
        await section.getByLabel('Estimate').fill('3.5');
        await Promise.all([saved(), section.getByLabel('Estimate').press('Enter')]);
        await Promise.all([saved(), section.getByLabel('Stage').selectOption({ label: 'Build' })]);
        await section.getByLabel('Notes').fill('Check the launch codes');
        await Promise.all([saved(), section.getByLabel('Notes').blur()]);
        const byName = new Map(fields.map((field) => [field.name, field._id]));
        await axe(page, 'the card dialog with custom fields');
        await page.keyboard.press('Escape');

        // the front shows the fields chosen for it (not Notes), here and in the other browser without a reload
        for (const one of [page, watcher.page]) {
          const front = cardIn(one, 'To do', 'Launch');
          await front.filter({ hasText: 'Estimate: 3.5 h' }).filter({ hasText: 'Build' }).waitFor();
          assert.equal(await front.filter({ hasText: 'Check the launch codes' }).count(), 0);
        }

        const values = ((await f.api('GET', `/api/v1/cards/${cardId}`)).card as { customFields: Values }).customFields;
        assert.deepEqual(
          new Map(values.map((one) => [one.field, typeof one.value])),
          new Map([
            [byName.get('Estimate'), 'number'],
            [byName.get('Stage'), 'string'],
            [byName.get('Notes'), 'string'],
          ]),
        );
        assert.equal(values.find((one) => one.field === byName.get('Estimate'))?.value, 3.5);

        // a value set elsewhere reaches the open board too
        await f.api('PATCH', `/api/v1/cards/${cardId}/custom-fields`, { values: [{ field: byName.get('Estimate'), value: 8 }] });
        await cardIn(watcher.page, 'To do', 'Launch').filter({ hasText: 'Estimate: 8 h' }).waitFor();

        // deleting a field is confirmed with how many cards hold a value of it
        await page.getByRole('button', { name: 'Board menu' }).click();
        await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Custom fields', exact: true }).click();
        await settings.getByText('1 card has a value').first().waitFor();
        await settings.getByRole('button', { name: 'Delete field Estimate' }).click();
        await settings.getByRole('button', { name: 'Edit field Estimate' }).waitFor({ state: 'detached' });
        assert.deepEqual(confirmations, ['Delete the field "Estimate"? Its value is cleared from the 1 card that has one.']);
        await page.keyboard.press('Escape');
        await cardIn(watcher.page, 'To do', 'Launch').filter({ hasText: 'Estimate' }).waitFor({ state: 'detached' });
        await cardIn(watcher.page, 'To do', 'Launch').filter({ hasText: 'Build' }).waitFor();
      });
    });
  });
  test('a field typed over a change made meanwhile: the 412 names the field, the words are kept', async (context) => {
    const cardId = await f.newCard('Conflicted');
    const notes = (
      (await f.api('POST', `/api/v1/boards/${f.boardId}/custom-fields`, { name: 'Remarks', type: 'text', showOnCard: true })).customField as { _id: string }
    )._id;
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Conflicted');
      const box = dialog.getByRole('region', { name: 'Custom fields' }).getByLabel('Remarks');
      await box.fill('Mine');

      // the dialog's own read of the card is held back, so it still knows the card as it was when
      // the save below is refused (as on a slow network): the next save must go on the card read then
      const release = await holdRequests(page, `**/api/v1/cards/${cardId}`);

      // meanwhile Alice sets the field; the dialog hears of it (the front behind shows her value) while the words stay
      await f.api('PATCH', `/api/v1/cards/${cardId}/custom-fields`, { values: [{ field: notes, value: 'Alice was here' }] }, f.alice.apiKey);
      await cardIn(page, 'To do', 'Conflicted').filter({ hasText: 'Remarks: Alice was here' }).waitFor();
      assert.equal(await box.inputValue(), 'Mine');

      const refused = page.waitForResponse((response) => response.url().endsWith(`/cards/${cardId}/custom-fields`) && response.status() === 412);
      await box.press('Enter');
      await refused;
      release();
      const alert = dialog.getByRole('alert').filter({ hasText: 'This card changed meanwhile' });
      await alert.waitFor();
      assert.deepEqual(await alert.getByRole('listitem').allTextContents(), ['Remarks: Alice was here']);
      assert.equal(await box.inputValue(), 'Mine');
      const values = ((await f.api('GET', `/api/v1/cards/${cardId}`)).card as { customFields: Values }).customFields;
      assert.deepEqual(values, [{ field: notes, value: 'Alice was here' }], 'nothing was overwritten');

      // saving again, knowingly, goes through
      await box.press('Enter');
      await alert.waitFor({ state: 'detached' });
      await cardIn(page, 'To do', 'Conflicted').filter({ hasText: 'Remarks: Mine' }).waitFor();
    });
  });
});
