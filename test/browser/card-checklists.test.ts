/**
 * Checklists in the card dialog, as a person uses them: create, rename, add items, complete,
 * date and members of an item, reorder (also across checklists), copy to another card, delete;
 * progress shown and equal to the server's count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing, until } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';
import { pickerField, typeMoment } from '../support/date-picker.ts';

interface ChecklistRecord {
  _id: string;
  name: string;
  completedCount: number;
  items: { name: string; complete: { status: boolean }; date: string | null; members: { fullName: string }[]; attachments: { name: string }[] }[];
}

describe('checklists in the card dialog', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  const checklistsOf = async (cardId: string) => (await f.api('GET', `/api/v1/cards/${cardId}/checklists`)).checklists as ChecklistRecord[];

  test('create, rename, items, complete, date, members, reorder, move across, copy, delete', async (context) => {
    const cardId = await f.newCard('Launch');
    const otherId = await f.newCard('Follow-up');
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Launch');

      const checklist = (name: string) => dialog.getByRole('region', { name: new RegExp(`^${name}, rename`) });
      const firstItemOf = (name: { checklist: string; item: string }) =>
        page.waitForFunction(
          (which) =>
            [...(globalThis as unknown as { document: Document }).document.querySelectorAll('.checklist')]
              .find((one) => one.querySelector('h4')?.textContent === which.checklist)
              ?.querySelector('.item-name')?.textContent === which.item,
          name,
        );

      // two checklists
      for (const name of ['Steps', 'Later']) {
        await dialog.getByRole('button', { name: 'Add a checklist' }).click();
        await dialog.getByRole('textbox', { name: 'Checklist name' }).fill(name);
        await dialog.getByRole('button', { name: 'Add checklist', exact: true }).click();
        await checklist(name).waitFor();
      }
      // rename one in place
      await dialog.getByRole('button', { name: 'Later, rename' }).click();
      await dialog.getByRole('textbox', { name: 'Checklist name' }).fill('Afterwards');
      await dialog.getByRole('textbox', { name: 'Checklist name' }).press('Enter');
      await checklist('Afterwards').waitFor();

      // items, added by Enter
      const steps = checklist('Steps');
      const add = steps.getByRole('textbox', { name: 'Add an item to Steps' });
      for (const item of ['Write', 'Review', 'Ship']) {
        await add.fill(item);
        await add.press('Enter');
        await steps.getByRole('checkbox', { name: item }).waitFor();
      }
      await steps.getByRole('checkbox', { name: 'Write' }).check();
      await steps.getByRole('progressbar', { name: 'Steps: 1 of 3 done' }).waitFor();
      // the board's card shows the same progress
      await page.getByRole('button', { name: /^Launch.*1\/3 checklist items/ }).waitFor();

      // an item's date and members, then up: Review before Write
      await steps.getByText('Details of Review').click();
      const review = steps.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: 'Review' }) });
      await typeMoment(page, pickerField(review, 'Due date'), { year: 2026, month: 12, day: 24, hour: 17, minute: 0 });
      await review.getByRole('button', { name: 'Alice Author', pressed: false }).click();
      await review.getByRole('button', { name: 'Alice Author', pressed: true }).waitFor();
      await review.getByRole('button', { name: 'Move up' }).click();
      await firstItemOf({ checklist: 'Steps', item: 'Review' });
      const stored = (await checklistsOf(cardId))[0];
      assert.deepEqual(
        stored?.items.map((item) => item.name),
        ['Review', 'Write', 'Ship'],
      );
      assert.equal(stored?.items[0]?.members.map((member) => member.fullName).join(), 'Alice Author');
      assert.equal(stored?.items[0]?.date, new Date('2026-12-24T17:00').toISOString(), 'the date was saved as typed, in the browser’s time zone');

      // a file on an item: attach, see, delete
      await review.getByLabel('Attach a file to Review').setInputFiles([{ name: 'proof.txt', mimeType: 'text/plain', buffer: Buffer.from('proof') }]);
      await review.getByRole('button', { name: 'Download proof.txt' }).waitFor();
      assert.deepEqual(
        (await checklistsOf(cardId))[0]?.items[0]?.attachments.map((attachment) => attachment.name),
        ['proof.txt'],
      );
      await review.getByRole('button', { name: 'Delete proof.txt' }).click();
      await review.getByRole('button', { name: 'Download proof.txt' }).waitFor({ state: 'detached' });
      assert.deepEqual((await checklistsOf(cardId))[0]?.items[0]?.attachments, []);

      // Ship moves to the other checklist
      await steps.getByText('Details of Ship').click();
      const ship = steps.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: 'Ship' }) });
      await ship.getByRole('combobox', { name: 'Checklist' }).selectOption({ label: 'Afterwards' });
      await ship.getByRole('button', { name: 'Move to checklist' }).click();
      await checklist('Afterwards').getByRole('progressbar', { name: 'Afterwards: 0 of 1 done' }).waitFor();
      await steps.getByRole('progressbar', { name: 'Steps: 1 of 2 done' }).waitFor();

      // copy Steps to the other card
      await steps.getByText('Actions of checklist Steps').click();
      await steps.getByRole('combobox', { name: 'Card' }).selectOption({ label: 'Follow-up' });
      await steps.getByRole('button', { name: 'Copy to card' }).click();
      await page.getByRole('button', { name: /^Follow-up.*1\/2 checklist items/ }).waitFor();
      assert.deepEqual(
        (await checklistsOf(otherId)).map((one) => [one.name, one.items.map((item) => [item.name, item.complete.status])]),
        [
          [
            'Steps',
            [
              ['Review', false],
              ['Write', true],
            ],
          ],
        ],
      );

      // reorder checklists: Afterwards first
      const afterwards = checklist('Afterwards');
      await afterwards.getByText('Actions of checklist Afterwards').click();
      await afterwards.getByRole('button', { name: 'Move up' }).click();
      await page.waitForFunction(() => (globalThis as unknown as { document: Document }).document.querySelector('.checklist h4')?.textContent === 'Afterwards');

      // delete an item: gone at once, with Undo in a toast shown inside the dialog (the page behind is
      // inert); undone, it is back; deleted again and the toast closed, it is deleted on the server
      await afterwards.getByText('Details of Ship').click();
      await afterwards.getByRole('button', { name: 'Delete item' }).click();
      await dialog.getByRole('checkbox', { name: 'Ship' }).waitFor({ state: 'detached' });
      const toasts = dialog.getByRole('region', { name: /Notifications/ });
      const deleted = toasts.getByRole('listitem').filter({ hasText: 'Item "Ship" deleted.' });
      await deleted.waitFor();
      assert.ok(await deleted.isVisible(), 'the delete is shown, with its Undo');
      await axe(page, 'the card dialog with an undo toast');
      await deleted.getByRole('button', { name: 'Undo' }).click();
      await dialog.getByRole('checkbox', { name: 'Ship' }).waitFor();
      assert.ok(
        (await checklistsOf(cardId)).some((one) => one.items.some((item) => item.name === 'Ship')),
        'nothing was deleted',
      );
      await afterwards.getByText('Details of Ship').click();
      await afterwards.getByRole('button', { name: 'Delete item' }).click();
      await dialog.getByRole('checkbox', { name: 'Ship' }).waitFor({ state: 'detached' });
      await deleted.getByRole('button', { name: 'Close' }).click();
      await until(async () => !(await checklistsOf(cardId)).some((one) => one.items.some((item) => item.name === 'Ship')), 'the item deleted');
      // a checklist (confirmed)
      await afterwards.getByRole('button', { name: 'Delete checklist' }).click();
      await checklist('Afterwards').waitFor({ state: 'detached' });

      const left = await checklistsOf(cardId);
      assert.deepEqual(
        left.map((checklist) => [checklist.name, checklist.completedCount, checklist.items.length]),
        [['Steps', 1, 2]],
      );
      const card = (await f.api('GET', `/api/v1/cards/${cardId}`)).card as { allChecklistItemsCount: { completed: number; total: number } };
      assert.deepEqual(card.allChecklistItemsCount, { completed: 1, total: 2 });
      await page.getByRole('button', { name: /^Launch.*1\/2 checklist items/ }).waitFor();
    });
  });
});

interface Element {
  textContent: string | null;
  querySelector(selector: string): Element | null;
}
type Document = { querySelector(selector: string): Element | null; querySelectorAll(selector: string): Iterable<Element> };
