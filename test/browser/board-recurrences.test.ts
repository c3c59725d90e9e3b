/**
 * Recurring cards in the web app (docs/web-app.md, "Recurring cards"): made from a list's menu,
 * weekly on chosen days with an end, its next three occurrences shown before saving; paused,
 * edited to "the last Friday" of each month (the preview following), deleted. The maker itself is
 * tested in test/e2e; here a card is made by one pass of it, and the dialog says so.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { manualClock } from '../support/clock.ts';
import { axe, boardSuite, cardIn } from './board-support.ts';

interface RecurrenceRecord {
  _id: string;
  name: string;
  rule: string;
  startsAt: string;
  timeZone: string;
  enabled: boolean;
  list: string;
  card: { name: string; labels: string[]; dueOffset?: { amount: number; unit: string } };
}

describe('recurring cards in the web app', { skip: chromiumMissing }, () => {
  const clock = manualClock(Date.now());
  const suite = boardSuite({ clock });

  test('made from a list menu with its next three shown, paused, edited, deleted', async (context) => {
    const { api } = suite;
    const { boardId, listIds } = await suite.makeBoard('Office', { Inbox: ['Existing'], Reports: [] });
    const colour = (await api<{ colors: { _id: string }[] }>('GET', '/api/v1/label-colors')).colors[0]?._id;
    const { label } = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Routine', color: colour });
    const recurrences = async () => (await api<{ recurrences: RecurrenceRecord[] }>('GET', `/api/v1/boards/${boardId}/recurrences`)).recurrences;

    await suite.onPage(context.name, { viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Berlin' }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'Inbox', 'Existing').waitFor();
      await page.getByRole('button', { name: 'Actions of list Reports' }).click();
      await page.getByRole('button', { name: 'Make a recurring card…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Recurring cards of Office' });
      const form = dialog.getByRole('form', { name: 'New recurring card' });
      await form.getByLabel('Card name').fill('Weekly report');
      assert.equal(await form.getByLabel('List', { exact: true }).inputValue(), listIds.get('Reports'));
      await form.getByRole('group', { name: 'Labels' }).getByLabel('Routine').check();
      await form.getByLabel('Due date').selectOption({ label: 'hours after it is made' });
      await form.getByLabel('How long after').fill('8');
      await form.getByLabel('Repeats').selectOption({ label: 'Every week' });
      await form.getByLabel('First one').fill('2031-03-03T09:00');
      await form.getByLabel('Time zone').selectOption('Europe/Berlin');
      const days = form.getByRole('group', { name: 'On these days' });
      await days.getByLabel('Monday').check();
      await days.getByLabel('Wednesday').check();
      for (const day of ['Tuesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']) await days.getByLabel(day).uncheck();
      await form.getByLabel('Ends').selectOption({ label: 'After a number of cards' });
      await form.getByLabel('How many cards').fill('5');

      // the next three, before saving, on Berlin's clock
      const next = form.getByRole('region', { name: 'Next three' });
      await next.getByText('Every week on Monday and Wednesday at 9:00 AM (Europe/Berlin), 5 times in all').waitFor();
      const expected = ['Monday, March 3, 2031 at 9:00 AM', 'Wednesday, March 5, 2031 at 9:00 AM', 'Monday, March 10, 2031 at 9:00 AM'];
      await next
        .getByRole('listitem')
        .filter({ hasText: expected[2] as string })
        .waitFor();
      assert.deepEqual(await next.getByRole('listitem').allTextContents(), expected);
      await axe(page, 'the recurring card editor');

      await form.getByRole('button', { name: 'Save recurring card' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Weekly report saved.' }).waitFor();
      const [saved] = await recurrences();
      assert.deepEqual(saved && [saved.name, saved.rule, saved.startsAt, saved.timeZone, saved.list, saved.card.labels, saved.card.dueOffset], [
        'Weekly report',
        'FREQ=WEEKLY;BYDAY=MO,WE;COUNT=5',
        '2031-03-03T09:00',
        'Europe/Berlin',
        listIds.get('Reports'),
        [label._id],
        { amount: 8, unit: 'hours' },
      ]);
      const row = dialog.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Weekly report' }) });
      await row.getByText('in Reports').waitFor();
      await row.getByText('No card made yet · Missed while the server was down: each is made').waitFor();
      await axe(page, 'the recurring cards dialog');

      // paused by its switch
      const paused = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes('/api/v1/recurrences/'));
      await row.getByRole('switch', { name: 'Recurring card Weekly report is on' }).uncheck();
      assert.equal((await paused).status(), 200);
      assert.equal((await recurrences())[0]?.enabled, false);

      // edited: the last Friday of each month, the preview following
      await row.getByRole('button', { name: 'Edit recurring card Weekly report' }).click();
      const edit = dialog.getByRole('form', { name: 'Edit recurring card Weekly report' });
      assert.equal(await edit.getByRole('group', { name: 'On these days' }).getByLabel('Wednesday').isChecked(), true);
      await edit.getByLabel('Repeats').selectOption({ label: 'Every month' });
      await edit.getByLabel('a weekday of the month').check();
      await edit.getByLabel('Which one').selectOption({ label: 'the last' });
      await edit.getByLabel('Weekday', { exact: true }).selectOption({ label: 'Friday' });
      await edit.getByLabel('Ends').selectOption({ label: 'Never' });
      const preview = edit.getByRole('region', { name: 'Next three' });
      await preview.getByText('Every month on the last Friday at 9:00 AM (Europe/Berlin)').waitFor();
      await preview.getByRole('listitem').filter({ hasText: 'Friday, April 25, 2031 at 9:00 AM' }).waitFor();
      assert.equal(await preview.getByRole('listitem').first().textContent(), 'Friday, March 28, 2031 at 9:00 AM');
      await edit.getByRole('button', { name: 'Save recurring card' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Weekly report saved.' }).waitFor();
      assert.equal((await recurrences())[0]?.rule, 'FREQ=MONTHLY;BYDAY=-1FR');

      // deleted, after a confirmation
      page.once('dialog', (confirm) => void confirm.accept());
      await row.getByRole('button', { name: 'Delete recurring card Weekly report' }).click();
      await dialog.getByText('This board has no recurring cards yet.').waitFor();
      assert.deepEqual(await recurrences(), []);
    });
  });

  test("made from a card's dialog, like that card", async (context) => {
    const { api } = suite;
    const { boardId, cards, listIds } = await suite.makeBoard('Home', { Chores: ['Water the plants'] });
    const colour = (await api<{ colors: { _id: string }[] }>('GET', '/api/v1/label-colors')).colors[0]?._id;
    const { label } = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Garden', color: colour });
    await api('POST', `/v2/cards/${cards.get('Water the plants')}/labels`, { labels: [label._id] });
    await suite.onPage(context.name, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'Chores', 'Water the plants').click();
      await page.getByRole('dialog', { name: 'Water the plants' }).getByRole('button', { name: 'Make it recurring…' }).click();
      const form = page.getByRole('dialog', { name: 'Recurring cards of Home' }).getByRole('form', { name: 'New recurring card' });
      assert.equal(await form.getByLabel('Card name').inputValue(), 'Water the plants');
      assert.equal(await form.getByLabel('List', { exact: true }).inputValue(), listIds.get('Chores'));
      assert.equal(await form.getByRole('group', { name: 'Labels' }).getByLabel('Garden').isChecked(), true);
      await form.getByLabel('Repeats').selectOption({ label: 'Every day' });
      await form.getByRole('region', { name: 'Next three' }).getByRole('listitem').nth(2).waitFor();
      await form.getByRole('button', { name: 'Save recurring card' }).click();
      await page.getByRole('status').filter({ hasText: 'Water the plants saved.' }).waitFor();
      const [made] = (await api<{ recurrences: RecurrenceRecord[] }>('GET', `/api/v1/boards/${boardId}/recurrences`)).recurrences;
      assert.deepEqual(made && [made.card.name, made.card.labels, made.list, made.rule], [
        'Water the plants',
        [label._id],
        listIds.get('Chores'),
        'FREQ=DAILY',
      ]);
    });
  });

  test('a card made on its schedule shows on the board and in the count', async (context) => {
    const { api } = suite;
    const { boardId, listIds } = await suite.makeBoard('Daily', { Today: [] });
    // the next minute's occurrence, made by one pass of the maker once the app's clock has passed it
    const startsAt = new Date(clock.now() + 60_000).toISOString().slice(0, 16);
    await api('POST', `/api/v1/boards/${boardId}/recurrences`, {
      name: 'Stand-up notes',
      card: { name: 'Stand-up notes' },
      list: listIds.get('Today'),
      rule: 'FREQ=DAILY',
      startsAt,
      timeZone: 'UTC',
    });
    await suite.onPage(context.name, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await page.getByRole('button', { name: 'Board menu' }).click();
      await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Recurring cards', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Recurring cards of Daily' });
      await dialog.getByText('No card made yet').waitFor();
      clock.at += 120_000;
      assert.equal((await suite.t.app.recurrences.tick()).made, 1);
      // the card's creation reaches the page through the board's stream: the open dialog counts it
      await dialog.getByText('1 card made').waitFor();
      await page.keyboard.press('Escape');
      await cardIn(page, 'Today', 'Stand-up notes').waitFor();
    });
  });
});
