/**
 * The card dialog's start and due dates through the date and time picker, in the browser's time
 * zone (far from the server's UTC): quick picks, typing in the segments, the calendar, "No date";
 * what is stored is the moment the person meant, and the card's face says it in words with the
 * exact time on hover. axe on the dialog with the picker open.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';
import { dayIn, openPicker, pickerField, typeMoment, wallClockIn } from '../support/date-picker.ts';
import { eventually } from '../support/receiver.ts';

const ZONE = 'Pacific/Auckland';
const DAY_MS = 86_400_000;

describe('dates in the card dialog', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  const cardOf = async (cardId: string) => (await f.api('GET', `/api/v1/cards/${cardId}`)).card as { dueDate: string | null; startDate: string | null };
  const until = <T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string) => eventually(read, ok, 10_000, what);

  test('quick picks, typing, the calendar and No date, in the browser’s time zone', async (context) => {
    const cardId = await f.newCard('Launch');
    const { context: browserContext, page } = await f.open(undefined, { timezoneId: ZONE, locale: 'en-US' });
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Launch');
      const due = pickerField(dialog, 'Due date');
      await due.waitFor();

      // Tomorrow: that day in Auckland at the end of the working day (a date without a time gets 5 PM)
      let popover = await openPicker(page, due, 'Due date');
      const quick = popover.getByRole('group', { name: 'Quick picks' });
      for (const name of ['Today', 'Tomorrow', 'Next week', 'No date']) await quick.getByRole('button', { name: new RegExp(`^${name}`) }).waitFor();
      await axe(page, 'the card dialog with the date picker open');
      await quick.getByRole('button', { name: /^Tomorrow/ }).click();
      await popover.waitFor({ state: 'detached' });
      const tomorrow = wallClockIn(ZONE, dayIn(ZONE, new Date(Date.now() + DAY_MS)), 17);
      await until(
        () => cardOf(cardId),
        (card) => card.dueDate === tomorrow,
        'the due date after Tomorrow',
      );

      // the face says it in words; the exact time (in Auckland) is its title
      await dialog.getByRole('button', { name: 'Close' }).click();
      const badge = page.locator('.badge.due');
      await badge.getByText('tomorrow').waitFor();
      const title = await badge.getAttribute('title');
      assert.match(title ?? '', /5:00\s?PM/, 'the exact time on hover is the local wall-clock time');

      // a start date typed in the segments (month, day, year, hour, minute, AM/PM), saved when the field is left
      await f.openCard(page, cardId, 'Launch');
      const start = pickerField(dialog, 'Start date');
      await typeMoment(page, start, { month: 3, day: 14, year: 2026, hour: 9, minute: 30 });
      const typed = wallClockIn(ZONE, { year: 2026, month: 3, day: 14 }, 9, 30);
      await until(
        () => cardOf(cardId),
        (card) => card.startDate === typed,
        'the typed start date',
      );

      // the calendar: the next month's 15th keeps the due date's time of day
      popover = await openPicker(page, due, 'Due date');
      const heading = await popover.getByRole('heading').textContent();
      await popover.getByRole('button', { name: 'Next', exact: true }).first().click();
      await until(
        async () => popover.getByRole('heading').textContent(),
        (now) => now !== heading,
        'the next month shown',
      );
      await popover.getByRole('gridcell').getByText('15', { exact: true }).click();
      const now = dayIn(ZONE, new Date(Date.now() + DAY_MS));
      const next = now.month === 12 ? { year: now.year + 1, month: 1, day: 15 } : { year: now.year, month: now.month + 1, day: 15 };
      const fifteenth = wallClockIn(ZONE, next, 17);
      await until(
        () => cardOf(cardId),
        (card) => card.dueDate === fifteenth,
        'the due date from the calendar',
      );

      // No date clears it
      popover = await openPicker(page, due, 'Due date');
      await popover.getByRole('button', { name: 'No date' }).click();
      await until(
        () => cardOf(cardId),
        (card) => card.dueDate === null,
        'the due date cleared',
      );
      assert.equal((await cardOf(cardId)).startDate, typed, 'the start date is untouched');

      // the board's `d` opens the card at its due date: the field's first part has the focus
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: /^Launch/ }).focus();
      await page.keyboard.press('d');
      await pickerField(dialog, 'Due date').getByRole('spinbutton').first().and(page.locator(':focus')).waitFor();
    });
  });
});
