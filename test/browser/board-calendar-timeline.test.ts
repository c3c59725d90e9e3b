/**
 * The board as a calendar and as a timeline: cards on their days in the person's time zone, a card
 * dragged or moved by keyboard to another day keeping its time of day (and seen so in a second
 * browser), a card without a date dragged in, the start-date and week toggles, the board's filter;
 * bars moved and resized by pointer and by keys, a "blocks" arrow, grouping by member, today marked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from '@playwright/test';
import { chromiumMissing, shootPage, until } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

// evaluate's callbacks run in the page (the suite's own type check has no DOM library)
declare const document: { activeElement: { getAttribute(name: string): string | null } | null };

const BERLIN = { timezoneId: 'Europe/Berlin', locale: 'en-US' };

describe('the board as a calendar and a timeline', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  const dated = async (name: string, dates: { startDate?: string; dueDate?: string }, list?: string) => {
    const id = await f.newCard(name, list);
    await f.api('PATCH', `/api/v1/cards/${id}`, dates);
    return id;
  };
  const datesOf = async (id: string) => {
    const { startDate, dueDate } = (await f.api('GET', `/api/v1/cards/${id}`)).card as { startDate: string | null; dueDate: string | null };
    return { startDate, dueDate };
  };
  const saved = (page: Page, id: string) =>
    page.waitForResponse((response) => response.url().endsWith(`/api/v1/cards/${id}`) && response.request().method() === 'PATCH');
  const activeDay = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-day') ?? null);

  test('calendar: drag, move by keys, drag in an undated card, toggles and filters, live', async (context) => {
    // 14:30 and 09:00 in Berlin
    const review = await dated('Design review', { startDate: '2031-03-07T08:00:00.000Z', dueDate: '2031-03-10T13:30:00.000Z' });
    const notes = await f.newCard('Release notes', f.lists.doing);
    const ship = await dated('Ship', { dueDate: '2031-03-14T16:00:00.000Z' });

    const editor = await f.open(undefined, BERLIN);
    const watcher = await f.open(f.alice.apiKey, BERLIN);
    await keeping(`${context.name} (watcher)`, watcher.context, watcher.page, async () => {
      await keeping(context.name, editor.context, editor.page, async () => {
        const { page } = editor;
        await page.goto(`/boards/${f.boardId}?date=2031-03-12`);
        await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Calendar' }).click();
        const grid = (on: Page) => on.getByRole('grid', { name: 'Calendar of Launch board, March 2031' });
        const day = (on: Page, date: number) => grid(on).getByRole('gridcell', { name: new RegExp(`^\\w+, March ${date}, 2031`) });
        await grid(page).waitFor();
        assert.match(page.url(), /view=calendar/);
        await day(page, 10)
          .getByRole('button', { name: /^Design review/ })
          .waitFor();
        await day(page, 14).getByRole('button', { name: /^Ship/ }).waitFor();
        const undated = page.getByRole('region', { name: /No due date/ });
        await undated.getByRole('button', { name: /^Release notes/ }).waitFor();
        await axe(page, 'the board calendar');

        await watcher.page.goto(`/boards/${f.boardId}?view=calendar&date=2031-03-12`);
        await day(watcher.page, 10)
          .getByRole('button', { name: /^Design review/ })
          .waitFor();

        // dragged to the 17th: its due date keeps 14:30 and its start moves as many days; the other browser sees it
        let write = saved(page, review);
        await day(page, 10)
          .getByRole('button', { name: /^Design review/ })
          .dragTo(day(page, 17));
        assert.equal((await write).status(), 200);
        assert.deepEqual(await datesOf(review), { startDate: '2031-03-14T08:00:00.000Z', dueDate: '2031-03-17T13:30:00.000Z' });
        await day(watcher.page, 17)
          .getByRole('button', { name: /^Design review/ })
          .waitFor();
        // and Undo puts it back
        write = saved(page, review);
        await page.getByRole('button', { name: 'Undo' }).click();
        await write;
        await day(page, 10)
          .getByRole('button', { name: /^Design review/ })
          .waitFor();
        assert.deepEqual(await datesOf(review), { startDate: '2031-03-07T08:00:00.000Z', dueDate: '2031-03-10T13:30:00.000Z' });

        // a card without a due date dragged onto a day gets the working day's end there
        write = saved(page, notes);
        await undated.getByRole('button', { name: /^Release notes/ }).dragTo(day(page, 12));
        await write;
        await day(page, 12)
          .getByRole('button', { name: /^Release notes/ })
          .waitFor();
        assert.deepEqual(await datesOf(notes), { startDate: null, dueDate: '2031-03-12T16:00:00.000Z' });

        // by keyboard: into the day, M picks the card up, arrows choose a day, Enter drops it
        await day(page, 14).focus();
        await page.keyboard.press('Enter');
        await page.keyboard.press('m');
        await page.getByRole('status').filter({ hasText: 'Moving Ship' }).waitFor();
        assert.equal(await activeDay(page), '2031-03-14');
        await page.keyboard.press('ArrowRight');
        await page.keyboard.press('ArrowRight');
        await page.keyboard.press('ArrowDown');
        assert.equal(await activeDay(page), '2031-03-23');
        write = saved(page, ship);
        await page.keyboard.press('Enter');
        await write;
        await day(page, 23).getByRole('button', { name: /^Ship/ }).waitFor();
        assert.deepEqual(await datesOf(ship), { startDate: null, dueDate: '2031-03-23T16:00:00.000Z' });
        // comma: a day earlier; twice at once is two moves, the second sent on the revision the first left
        const shipButton = page.getByRole('grid', { name: /^Calendar of/ }).getByRole('button', { name: /^Ship/ });
        const writes: number[] = [];
        page.on('response', (response) => {
          if (response.url().endsWith(`/api/v1/cards/${ship}`) && response.request().method() === 'PATCH') writes.push(response.status());
        });
        await shipButton.focus();
        await page.keyboard.press(',');
        await page.keyboard.press(',');
        await day(page, 21).getByRole('button', { name: /^Ship/ }).waitFor();
        await until(async () => writes.length === 2, 'both moves answered');
        assert.deepEqual(writes, [200, 200]);
        assert.deepEqual(await datesOf(ship), { startDate: null, dueDate: '2031-03-21T16:00:00.000Z' });

        // by start date: the start's day, and the cards without one aside
        await page.getByRole('combobox', { name: 'Show by' }).selectOption({ label: 'Start date' });
        await day(page, 7)
          .getByRole('button', { name: /^Design review/ })
          .waitFor();
        await page
          .getByRole('region', { name: /No start date/ })
          .getByRole('button', { name: /^Ship/ })
          .waitFor();
        assert.match(page.url(), /by=start/);
        await page.getByRole('combobox', { name: 'Show by' }).selectOption({ label: 'Due date' });

        // a week
        await page.getByRole('group', { name: 'Range' }).getByRole('button', { name: 'Week' }).click();
        const week = page.getByRole('grid', { name: 'Calendar of Launch board, Mar 9, 2031 – Mar 15, 2031' });
        await week
          .getByRole('gridcell', { name: /^Monday, March 10, 2031/ })
          .getByRole('button', { name: /^Design review/ })
          .waitFor();
        assert.equal(await week.getByRole('gridcell').count(), 7);
        assert.match(page.url(), /range=week/);
        await axe(page, 'the board calendar, a week');

        // a click opens the card, as on the board
        await week.getByRole('button', { name: /^Design review/ }).click();
        await page.getByRole('dialog', { name: 'Design review' }).waitFor();
        await page.keyboard.press('Escape');
        await page.getByRole('dialog', { name: 'Design review' }).waitFor({ state: 'detached' });

        // the board's filter applies
        await page.getByRole('searchbox', { name: 'Filter cards' }).fill('Release');
        await week.getByRole('button', { name: /^Design review/ }).waitFor({ state: 'detached' });
        await week.getByRole('button', { name: /^Release notes/ }).waitFor();
      });
    });
  });

  test('calendar link: reads its dates window first, live and across months before the whole board is read', async (context) => {
    const inMay = await dated('Sprint demo', { dueDate: '2031-05-14T10:00:00.000Z' });
    const inJune = await dated('Retro', { dueDate: '2031-06-20T10:00:00.000Z' });
    const later = await dated('Planning', { dueDate: '2031-09-01T10:00:00.000Z' }, f.lists.doing);
    await f.newCard('Someday');

    const { context: browserContext, page } = await f.open(undefined, BERLIN);
    await keeping(context.name, browserContext, page, async () => {
      // the whole board's read is held back, so what shows comes from the window read and the stream
      const windows: URL[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname.endsWith('/card-faces/by-dates')) windows.push(url);
      });
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route(
        (url) => url.pathname === `/api/v1/boards/${f.boardId}/card-faces`,
        async (route) => {
          await held;
          await route.continue();
        },
      );
      await page.goto(`/boards/${f.boardId}?view=calendar&date=2031-05-12`);
      const grid = (month: string) => page.getByRole('grid', { name: `Calendar of Launch board, ${month} 2031` });
      const day = (month: string, date: number) => grid(month).getByRole('gridcell', { name: new RegExp(`^\\w+, ${month} ${date}, 2031`) });
      await day('May', 14)
        .getByRole('button', { name: /^Sprint demo/ })
        .waitFor();
      assert.equal(windows.length, 1, 'one window read');
      assert.equal(windows[0]?.searchParams.get('by'), 'due');
      assert.ok(Date.parse(windows[0]?.searchParams.get('from') ?? '') <= Date.parse('2031-04-27T00:00:00Z'));
      assert.ok(Date.parse(windows[0]?.searchParams.get('to') ?? '') >= Date.parse('2031-06-08T00:00:00Z'));
      // the window's read holds only its cards: the September card is not in the page yet
      assert.equal(await page.locator(`[data-card-id="${later}"]`).count(), 0);

      // a card moved into the window elsewhere appears, live
      await f.api('PATCH', `/api/v1/cards/${later}`, { dueDate: '2031-05-20T10:00:00.000Z' }, f.alice.apiKey);
      await day('May', 20)
        .getByRole('button', { name: /^Planning/ })
        .waitFor();

      // the next month: its window is read at once, without the whole board
      await page.getByRole('button', { name: 'Next month' }).click();
      await day('June', 20)
        .getByRole('button', { name: /^Retro/ })
        .waitFor();
      assert.equal(windows.length, 2, 'the next month read as a window');

      // once the whole board comes, the cards without a date are listed aside, and none shown is lost
      release();
      await page
        .getByRole('region', { name: /No due date/ })
        .getByRole('button', { name: /^Someday/ })
        .waitFor();
      await day('June', 20)
        .getByRole('button', { name: /^Retro/ })
        .waitFor();
      await page.getByRole('button', { name: 'Previous month' }).click();
      await day('May', 14)
        .getByRole('button', { name: /^Sprint demo/ })
        .waitFor();
      await day('May', 20)
        .getByRole('button', { name: /^Planning/ })
        .waitFor();
      assert.equal(windows.length, 2, 'no window read once the whole board is known');
      await shootPage(page, 'board-calendar-window');
      assert.ok(inMay && inJune);

      // a window read that fails (offline, where only the whole board is kept) gives way to the whole board
      await page.route('**/card-faces/by-dates?*', (route) => route.abort('internetdisconnected'));
      await page.goto(`/boards/${f.boardId}?view=calendar&date=2031-05-12`);
      await day('May', 14)
        .getByRole('button', { name: /^Sprint demo/ })
        .waitFor();
      await page
        .getByRole('region', { name: /No due date/ })
        .getByRole('button', { name: /^Someday/ })
        .waitFor();
    });
  });

  test('timeline: bars, a blocks arrow, drag to move and resize, keys, members, today', async (context) => {
    const plan = await dated('Plan', { startDate: '2031-03-10T08:00:00.000Z', dueDate: '2031-03-12T16:00:00.000Z' });
    const build = await dated('Build', { startDate: '2031-03-13T08:00:00.000Z', dueDate: '2031-03-18T16:00:00.000Z' }, f.lists.doing);
    const launch = await dated('Launch day', { dueDate: '2031-03-20T16:00:00.000Z' });
    await f.api('POST', `/api/v1/cards/${plan}/relations`, { kind: 'blocks', card: build });
    await f.api('POST', `/v2/cards/${build}/members`, { members: [f.alice.userId] });

    const { context: browserContext, page } = await f.open(undefined, BERLIN);
    await keeping(context.name, browserContext, page, async () => {
      // this page's stream is down, so a change made elsewhere meets its next write as a 412
      await page.route('**/events?presence=true', (route) => route.abort());
      await page.goto(`/boards/${f.boardId}?view=timeline&date=2031-03-12`);
      const timeline = page.getByRole('region', { name: 'Timeline of Launch board, Mar 2, 2031 – Apr 12, 2031' });
      await timeline.waitFor();
      const bar = (name: string) => timeline.getByRole('button', { name: new RegExp(`^${name}, `) });
      await bar('Plan').waitFor();
      assert.match((await bar('Build').getAttribute('aria-label')) ?? '', /blocked by Plan/);
      assert.match((await bar('Launch day').getAttribute('aria-label')) ?? '', /^Launch day, due Mar 20, 2031/);
      assert.equal(await page.locator('.timeline-arrow').count(), 1, 'the blocks relation is an arrow');
      await timeline.getByRole('group', { name: /^To do/ }).waitFor();
      await timeline.getByRole('group', { name: /^Doing/ }).waitFor();
      await axe(page, 'the board timeline');

      // dragged two days later: both dates move, at their times of day
      const dayWidth = 32;
      const drag = async (locator: ReturnType<Page['locator']>, days: number, at: 'middle' | 'end' = 'middle') => {
        const box = await locator.boundingBox();
        assert.ok(box);
        const x = at === 'middle' ? box.x + box.width / 2 : box.x + box.width - 3;
        const y = box.y + box.height / 2;
        await page.mouse.move(x, y);
        await page.mouse.down();
        await page.mouse.move(x + (days * dayWidth) / 2, y, { steps: 4 });
        await page.mouse.move(x + days * dayWidth, y, { steps: 4 });
        await page.mouse.up();
      };
      let write = saved(page, plan);
      await drag(bar('Plan'), 2);
      await write;
      assert.deepEqual(await datesOf(plan), { startDate: '2031-03-12T08:00:00.000Z', dueDate: '2031-03-14T16:00:00.000Z' });

      // its end dragged three days later: only the due date moves
      write = saved(page, build);
      await drag(bar('Build'), 3, 'end');
      await write;
      assert.deepEqual(await datesOf(build), { startDate: '2031-03-13T08:00:00.000Z', dueDate: '2031-03-21T16:00:00.000Z' });

      // a point moved by keys
      write = saved(page, launch);
      await bar('Launch day').press('.');
      await write;
      assert.deepEqual(await datesOf(launch), { startDate: null, dueDate: '2031-03-21T16:00:00.000Z' });

      // renamed elsewhere meanwhile: the next move is refused (If-Match), said, and the bar shows the card as it is
      await f.api('PATCH', `/api/v1/cards/${launch}`, { name: 'Launch party' }, f.alice.apiKey);
      write = saved(page, launch);
      await bar('Launch day').press('.');
      assert.equal((await write).status(), 412);
      await page.getByRole('alert').filter({ hasText: 'This card changed meanwhile: the board shows its new state.' }).waitFor();
      await bar('Launch party').waitFor();
      assert.deepEqual(await datesOf(launch), { startDate: null, dueDate: '2031-03-21T16:00:00.000Z' });

      // a click (no drag) opens the card, where its dates are the keyboard's way
      await bar('Plan').click();
      await page.getByRole('dialog', { name: 'Plan' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Plan' }).waitFor({ state: 'detached' });

      // by member: Alice's card under her, the others under No members
      await page.getByRole('group', { name: 'Group by' }).getByRole('button', { name: 'Member' }).click();
      await timeline
        .getByRole('group', { name: /^Alice Author/ })
        .getByRole('button', { name: /^Build, / })
        .waitFor();
      await timeline
        .getByRole('group', { name: /^No members/ })
        .getByRole('button', { name: /^Plan, / })
        .waitFor();
      assert.match(page.url(), /group=member/);
      await axe(page, 'the board timeline by member');

      // today is marked once the weeks shown hold it
      await page.getByRole('button', { name: 'Today', exact: true }).click();
      await page.locator('.timeline-today-label').waitFor();
      assert.doesNotMatch(page.url(), /date=/);
    });
  });
  test('timeline: a long one draws only the rows in view, and scrolls and tabs to the rest', async (context) => {
    const many = 300;
    for (let n = 0; n < many; n++)
      await f.api('POST', '/api/v1/cards', {
        list: n % 2 ? f.lists.doing : f.lists.toDo,
        name: `Task ${String(n).padStart(3, '0')}`,
        position: 'bottom',
        startDate: `2031-06-${String(2 + (n % 20)).padStart(2, '0')}T08:00:00.000Z`,
        dueDate: `2031-06-${String(4 + (n % 20)).padStart(2, '0')}T16:00:00.000Z`,
      });
    const { context: browserContext, page } = await f.open(undefined, BERLIN);
    await keeping(context.name, browserContext, page, async () => {
      await page.goto(`/boards/${f.boardId}?view=timeline&date=2031-06-10`);
      const timeline = page.getByRole('region', { name: /^Timeline of Launch board/ });
      await timeline.getByRole('button', { name: /^Task 000, / }).waitFor();
      // both groups say how many bars they hold, and far fewer rows than bars are drawn
      await timeline.getByRole('group', { name: /^To do \(15\d\)/ }).waitFor();
      const drawn = await timeline.getByRole('listitem').count();
      assert.ok(drawn > 5 && drawn < 80, `${drawn} rows drawn of ${many}`);
      await shootPage(page, 'board-timeline-long');
      // the rows say the group's size once the whole board's read has reached them
      const setSize = async () => Number(await timeline.getByRole('listitem').first().getAttribute('aria-setsize'));
      await until(async () => (await setSize()) >= 150, `the first group's rows say its size (${await setSize()})`);

      // scrolled to the end: the last bars are drawn, and still only a window of rows
      await page.locator('.timeline-scroller').evaluate((element) => {
        element.scrollTop = element.scrollHeight;
      });
      await timeline.getByRole('button', { name: /^Task 299, / }).waitFor();
      assert.equal(await timeline.getByRole('button', { name: /^Task 000, / }).count(), 0);
      assert.ok((await timeline.getByRole('listitem').count()) < 80);

      // back at the top, Tab walks the bars past the first screen: each focused bar is drawn and in view
      await page.locator('.timeline-scroller').evaluate((element) => {
        element.scrollTop = 0;
      });
      await timeline.getByRole('button', { name: /^Task 000, / }).focus();
      for (let n = 0; n < 60; n++) await page.keyboard.press('Tab');
      // on a bar or on its row's name
      const focused = await page.evaluate(
        () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.getAttribute('data-card-id') ?? null,
      );
      assert.ok(focused, 'the focus is still on a row');
      assert.ok((await page.locator('.timeline-scroller').evaluate((element) => element.scrollTop)) > 0, 'the rows scrolled along');
      assert.ok((await timeline.getByRole('listitem').count()) < 80);
    });
  });
});
