/**
 * A conflict in the card dialog: an edit answered 412 (the card changed meanwhile) says what
 * changed, shows the card's new state, and keeps the person's text for a second save.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

describe('conflicts in the card dialog', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  test('a description saved over a change made meanwhile: what changed is named, the text is kept', async (context) => {
    const cardId = await f.newCard('Launch');
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Launch');
      await dialog.getByRole('button', { name: 'Edit description' }).click();
      const editor = dialog.getByRole('textbox', { name: 'Description' });
      await editor.fill('My careful words');

      // meanwhile Alice renames the card and writes a description of her own
      await f.api('PATCH', `/api/v1/cards/${cardId}`, { name: 'Launch day', description: 'Alice was here' }, f.alice.apiKey);
      await dialog.getByRole('button', { name: 'Launch day, rename' }).waitFor();
      assert.equal(await editor.inputValue(), 'My careful words', 'a change from elsewhere never replaces what is being typed');

      await dialog.getByRole('button', { name: 'Save' }).click();
      const alert = dialog.getByRole('alert').filter({ hasText: 'This card changed meanwhile' });
      await alert.waitFor();
      assert.deepEqual(await alert.getByRole('listitem').allTextContents(), ['Card name: Launch day', 'Description: Alice was here']);
      assert.equal(await editor.inputValue(), 'My careful words');
      assert.equal(((await f.api('GET', `/api/v1/cards/${cardId}`)).card as { description: string }).description, 'Alice was here', 'nothing was overwritten');

      // saving again, knowingly, on the new state goes through
      await dialog.getByRole('button', { name: 'Save' }).click();
      await editor.waitFor({ state: 'detached' });
      await dialog.getByText('My careful words').waitFor();
      await alert.waitFor({ state: 'detached' });
      const card = (await f.api('GET', `/api/v1/cards/${cardId}`)).card as { name: string; description: string };
      assert.deepEqual([card.name, card.description], ['Launch day', 'My careful words']);
    });
  });
});
