/**
 * The account's time zone in a browser: picked on the account page (stored by the API), the card's
 * face and its date picker then show a due date in that zone rather than the browser's, a reload
 * starts in it, and "This browser's" clears it. axe on the account page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';
import { pickerField } from '../support/date-picker.ts';
import { eventually } from '../support/receiver.ts';

describe('the time zone setting', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  const zoneOf = async () => ((await f.api('GET', '/api/v1/me')).user as { timeZone: string | null }).timeZone;

  test('picked on the account page, dates show in it, a reload keeps it, the browser’s clears it', async (context) => {
    const cardId = await f.newCard('Launch');
    // 08:00 in London (the browser's zone here, UTC in winter) is 17:00 in Tokyo
    await f.api('PATCH', `/api/v1/cards/${cardId}`, { dueDate: '2026-12-24T08:00:00.000Z' });
    const { context: browserContext, page } = await f.open(undefined, { timezoneId: 'Europe/London', locale: 'en-US' });
    await keeping(context.name, browserContext, page, async () => {
      await page.goto('/account');
      const zone = page.getByRole('combobox', { name: 'Time zone' });
      await zone.waitFor();
      assert.match((await zone.locator('option:checked').textContent()) ?? '', /This browser’s \(Europe\/London\)/);
      await axe(page, 'the account page');
      await zone.selectOption('Asia/Tokyo');
      await eventually(zoneOf, (value) => value === 'Asia/Tokyo', 10_000, 'the time zone stored');

      const face = async () => {
        const badge = page.locator('.badge.due');
        await badge.waitFor();
        return badge.getAttribute('title');
      };
      await page.goto(`/boards/${f.boardId}`);
      assert.match((await face()) ?? '', /December 24, 2026.*5:00\s?PM/, 'the exact time is Tokyo’s');
      const dialog = await f.openCard(page, cardId, 'Launch');
      const due = pickerField(dialog, 'Due date');
      await eventually(
        async () => (await due.textContent())?.replace(/[\s\u2066-\u2069]+/g, ' '),
        (text) => /12\/24\/2026.*5:00 PM/.test(text ?? ''),
        10_000,
        'the picker in Tokyo’s time',
      );

      // a reload starts in it (remembered in this browser)
      await page.goto(`/boards/${f.boardId}`);
      assert.match((await face()) ?? '', /5:00\s?PM/);

      // the browser's again
      await page.goto('/account');
      await zone.selectOption('');
      await eventually(zoneOf, (value) => value === null, 10_000, 'the time zone cleared');
      await page.goto(`/boards/${f.boardId}`);
      assert.match((await face()) ?? '', /8:00\s?AM/, 'London’s time again');
    });
  });
});
