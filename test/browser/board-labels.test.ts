/**
 * A board made on the boards page opens at once with Trello's six default labels (unnamed, shown by
 * their colour), and a label is made from a card's label picker, going on that card at once.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, boardSuite, cardIn } from './board-support.ts';

describe('labels from where people work', { skip: chromiumMissing }, () => {
  const suite = boardSuite();

  test('a new board opens with the default labels; a label is created from the card', async () => {
    await suite.onPage('labels', {}, async (page) => {
      await page.goto('/boards');
      const team = page.getByRole('region', { name: 'Company Acme' }).getByRole('region', { name: 'Core', exact: true });
      await team.getByRole('textbox', { name: 'Board name' }).fill('Launch');
      await team.getByRole('button', { name: 'Create board' }).click();
      await page.getByRole('heading', { name: 'Launch' }).waitFor();
      const first = page.getByRole('textbox', { name: 'Add your first list' });
      await first.fill('To do');
      await first.press('Enter');
      const list = page.getByRole('region', { name: 'To do', exact: true });
      await list.getByRole('button', { name: 'Add a card' }).click();
      await page.getByRole('textbox', { name: /Card name/ }).fill('Write the post');
      await page.getByRole('textbox', { name: /Card name/ }).press('Enter');
      await cardIn(page, 'To do', 'Write the post').click();
      const dialog = page.getByRole('dialog', { name: 'Write the post' });
      const labels = dialog.getByRole('group', { name: 'Labels' });
      for (const colour of ['green', 'yellow', 'orange', 'red', 'purple', 'blue']) await labels.getByRole('button', { name: colour, exact: true }).waitFor();

      await labels.getByRole('button', { name: 'Create a label' }).click();
      await labels.getByRole('textbox', { name: 'Name of the new label' }).fill('Urgent');
      await labels.getByRole('radio', { name: 'red' }).check();
      await axe(page, 'the card dialog creating a label');
      await labels.getByRole('button', { name: 'Create', exact: true }).click();
      await labels.getByRole('button', { name: 'Urgent', pressed: true }).waitFor();
      await dialog.getByRole('button', { name: 'Close' }).first().click();
      await page.getByRole('button', { name: /^Write the post.*Urgent/ }).waitFor();
      const boardId = page.url().split('/boards/')[1]?.split('?')[0] ?? '';
      const { labels: all } = await suite.api<{ labels: { name: string; color: { name: string } }[] }>('GET', `/api/v1/boards/${boardId}/labels`);
      assert.deepEqual(all.at(-1), { ...all.at(-1), name: 'Urgent' });
      assert.equal(all.at(-1)?.color.name, 'red');
      assert.equal(all.length, 7);
    });
  });
});
