/**
 * The board page in a real browser (Debian's Chromium, headless): create a board, lists and cards;
 * drag cards and lists; move by keyboard; labels and members; filters; two browsers live on one
 * board; the 412 path; accessibility scans; screenshots in light and dark, wide and narrow.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser, BrowserContext } from '@playwright/test';
import { chromiumMissing, contextWithKey, holdRequests, keepFailure, until } from '../support/browser.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { axe, boardSuite, cardIn, saveBoardScreens } from './board-support.ts';

// page.evaluate's callbacks run in the page (the suite's own type check has no DOM library)
declare const document: { activeElement: { textContent: string | null } | null; querySelector(selector: string): { textContent: string | null } | null };
declare function requestIdleCallback(callback: () => void): number;

describe('the board page in a browser', { skip: chromiumMissing }, () => {
  const suite = boardSuite();
  let boardId: string;
  const contexts: BrowserContext[] = [];

  async function open(name: string, options: Parameters<Browser['newContext']>[0] = {}) {
    const context = await contextWithKey(suite.browser, suite.baseURL, suite.t.tenant.apiKey, options);
    contexts.push(context);
    const page = await context.newPage();
    return { context, page, name };
  }

  async function api(method: string, path: string, body?: unknown) {
    const response = await fetch(`${suite.baseURL}${path}`, {
      method,
      headers: { Authorization: `Bearer ${suite.t.tenant.apiKey}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }

  test('create a board, lists and cards; drag; keyboard; labels; filter', async (context) => {
    const { context: browserContext, page } = await open('main', { viewport: { width: 1440, height: 900 } });
    let failed = true;
    try {
      await page.goto('/');
      await page.waitForURL('**/boards');
      await axe(page, 'the boards page');
      await page.getByRole('textbox', { name: 'Board name' }).fill('Roadmap');
      // a new board opens
      await page.getByRole('button', { name: 'Create board' }).click();
      await page.waitForURL('**/boards/*');
      boardId = page.url().split('/boards/')[1]?.split('?')[0] ?? '';

      const listName = page.getByRole('textbox', { name: 'Add your first list' });
      await listName.fill('To do');
      await listName.press('Enter');
      await page.getByRole('region', { name: 'To do', exact: true }).waitFor();
      await page.getByRole('textbox', { name: 'List name' }).fill('Doing');
      await page.getByRole('textbox', { name: 'List name' }).press('Enter');
      await page.getByRole('region', { name: 'Doing', exact: true }).waitFor();

      await page.getByRole('button', { name: 'Add a card to To do' }).click();
      const composer = page.getByRole('textbox', { name: 'Card name' });
      for (const name of ['First', 'Second', 'Third']) {
        await composer.fill(name);
        await composer.press('Enter');
        await cardIn(page, 'To do', name).waitFor();
      }
      // the composer stays open for the next card; Escape closes it
      assert.ok(await composer.isVisible());
      await composer.press('Escape');

      // rename a list in place
      await page.getByRole('button', { name: 'Rename list Doing' }).click();
      await page.getByRole('textbox', { name: 'List name' }).first().fill('Doing now');
      await page.getByRole('textbox', { name: 'List name' }).first().press('Enter');
      await page.getByRole('region', { name: 'Doing now', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Rename list Doing now' }).click();
      await page.getByRole('textbox', { name: 'List name' }).first().fill('Doing');
      await page.getByRole('textbox', { name: 'List name' }).first().press('Enter');
      await page.getByRole('region', { name: 'Doing', exact: true }).waitFor();

      // drag a card across lists
      await cardIn(page, 'To do', 'First').dragTo(page.getByRole('region', { name: 'Doing', exact: true }));
      await cardIn(page, 'Doing', 'First').waitFor();
      const moved = (await api('GET', `/api/v1/boards/${boardId}`)) as { board: { lists: { name: string; cards: { name: string }[] }[] } };
      assert.deepEqual(
        moved.board.lists.map((list) => [list.name, list.cards.map((card) => card.name)]),
        [
          ['To do', ['Second', 'Third']],
          ['Doing', ['First']],
        ],
      );

      // drag a list among lists: Doing before To do
      const toDo = page.getByRole('region', { name: 'To do', exact: true });
      const box = await toDo.boundingBox();
      assert.ok(box);
      await page
        .getByRole('region', { name: 'Doing', exact: true })
        .locator('.list-header')
        .dragTo(toDo, { targetPosition: { x: 10, y: 20 } });
      await page.waitForFunction(() => document.querySelector('.list h2')?.textContent === 'Doing');
      const reordered = (await api('GET', `/api/v1/boards/${boardId}`)) as { board: { lists: { name: string }[] } };
      assert.deepEqual(
        reordered.board.lists.map((list) => list.name),
        ['Doing', 'To do'],
      );

      // keyboard only: focus a card, arrows, `<` moves it to the previous list, Move… dialog
      await cardIn(page, 'To do', 'Second').focus();
      await page.keyboard.press('ArrowDown');
      assert.match((await page.evaluate(() => document.activeElement?.textContent)) ?? '', /^Third/);
      await page.keyboard.press('<');
      await cardIn(page, 'Doing', 'Third').waitFor();
      await page.getByRole('status').filter({ hasText: 'Third moved to Doing' }).waitFor();
      await cardIn(page, 'To do', 'Second').focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Second' });
      await dialog.waitFor();
      await axe(page, 'the card dialog');
      await dialog.getByRole('button', { name: 'Move…' }).click();
      const moveDialog = page.getByRole('dialog', { name: 'Move card Second' });
      await moveDialog.getByRole('combobox', { name: 'List' }).selectOption({ label: 'Doing' });
      await moveDialog.getByRole('combobox', { name: 'Position' }).selectOption({ label: '1' });
      await moveDialog.getByRole('button', { name: 'Move', exact: true }).click();
      await page.waitForFunction(() => document.querySelector('[data-list-id] [data-card-id]')?.textContent?.startsWith('Second'));
      const afterKeys = (await api('GET', `/api/v1/boards/${boardId}`)) as { board: { lists: { name: string; cards: { name: string }[] }[] } };
      assert.deepEqual(
        afterKeys.board.lists[0]?.cards.map((card) => card.name),
        ['Second', 'First', 'Third'],
      );

      // a refused move is put back, with the server's words
      await page.keyboard.press('Escape');
      await page.route('**/api/v1/cards/*/position', (route) =>
        route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({ message: 'Refused for the test', code: 'conflict', requestId: 'test' }),
        }),
      );
      await cardIn(page, 'Doing', 'Second').focus();
      await page.keyboard.press('>');
      await page.getByRole('alert').filter({ hasText: 'Not saved: Refused for the test' }).waitFor();
      await cardIn(page, 'Doing', 'Second').waitFor();
      assert.equal(await cardIn(page, 'To do', 'Second').count(), 0);
      await page.unroute('**/api/v1/cards/*/position');

      // labels and members, toggled in the card dialog
      await api('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Bug', color: '000000000000000000000004' });
      await page.reload();
      await cardIn(page, 'Doing', 'First').click();
      const first = page.getByRole('dialog', { name: 'First' });
      await first.getByRole('button', { name: 'Bug' }).click();
      await first.getByRole('button', { name: 'Bug', pressed: true }).waitFor();
      await first.getByRole('button', { name: /Olive Owner/ }).click();
      await first.getByRole('button', { name: /Olive Owner/, pressed: true }).waitFor();
      await first.getByRole('button', { name: 'Close' }).click();
      await page.getByRole('button', { name: /^First.*Bug.*Olive Owner/ }).waitFor();
      // `space` assigns or unassigns me
      await cardIn(page, 'Doing', 'Third').focus();
      await page.keyboard.press(' ');
      await page.getByRole('button', { name: /^Third.*Olive Owner/ }).waitFor();

      // filters live in the URL
      await page.getByRole('searchbox', { name: 'Filter cards' }).fill('Thi');
      await page.waitForURL(/q=Thi/);
      await cardIn(page, 'Doing', 'Third').waitFor();
      assert.equal(await cardIn(page, 'Doing', 'First').count(), 0);
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await cardIn(page, 'Doing', 'First').waitFor();
      await axe(page, 'the board page');

      await saveBoardScreens(page, '', /^First/, 'First');
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
    }
  });

  test('two browsers on one board: live without a reload, and a 412 while editing', async (context) => {
    const a = await open('a');
    const b = await open('b');
    let failed = true;
    try {
      const streams = [a.page, b.page].map((page) => page.waitForResponse((response) => response.url().endsWith(`/boards/${boardId}/events?presence=true`)));
      await a.page.goto(`/boards/${boardId}`);
      // the last board reopens
      await b.page.goto(`/boards/${boardId}`);
      await b.page.getByRole('heading', { name: 'Roadmap' }).waitFor();
      await b.page.goto('/');
      await b.page.waitForURL(`**/boards/${boardId}`);
      await cardIn(b.page, 'Doing', 'First').waitFor();
      await cardIn(a.page, 'Doing', 'First').waitFor();
      // both streams listen before the change, so it comes by the stream (how fast is for npm run bench:web)
      await Promise.all(streams);

      await a.page.getByRole('button', { name: 'Add a card to To do' }).click();
      await a.page.getByRole('textbox', { name: 'Card name' }).fill('Live one');
      await a.page.getByRole('textbox', { name: 'Card name' }).press('Enter');
      await cardIn(b.page, 'To do', 'Live one').waitFor();

      // b edits the card's name while a moves it: b's save is refused with 412 and keeps b's text
      await cardIn(b.page, 'To do', 'Live one').click();
      const dialog = b.page.getByRole('dialog', { name: 'Live one' });
      await dialog.getByRole('button', { name: /^Live one, rename/ }).click();
      const name = dialog.getByRole('textbox', { name: 'Card name' });
      await name.fill('Live one, renamed in b');
      await cardIn(a.page, 'To do', 'Live one').dragTo(a.page.getByRole('region', { name: 'Doing', exact: true }));
      await cardIn(a.page, 'Doing', 'Live one').waitFor();
      await cardIn(b.page, 'Doing', 'Live one').waitFor();
      await name.press('Enter');
      await dialog.getByRole('alert').filter({ hasText: 'This card changed meanwhile' }).waitFor();
      assert.equal(await name.inputValue(), 'Live one, renamed in b');
      // saving again, now on the new state, goes through
      await name.press('Enter');
      await cardIn(a.page, 'Doing', 'Live one, renamed in b').waitFor();

      // boards: rename and archive from the boards page
      await a.page.goto('/boards');
      await a.page.getByRole('textbox', { name: 'Board name' }).fill('Scratch');
      await a.page.getByRole('button', { name: 'Create board' }).click();
      await a.page.getByRole('heading', { name: 'Scratch' }).waitFor();
      await a.page.goto('/boards');
      await a.page.getByRole('button', { name: 'Rename Scratch' }).click();
      await a.page.getByRole('textbox', { name: 'Board name' }).first().fill('Scratch pad');
      await a.page.getByRole('textbox', { name: 'Board name' }).first().press('Enter');
      await a.page.getByRole('main').getByRole('link', { name: 'Scratch pad' }).waitFor();
      await a.page.getByRole('button', { name: 'Archive Scratch pad' }).click();
      await a.page.getByRole('main').getByRole('link', { name: 'Scratch pad' }).waitFor({ state: 'detached' });
      assert.equal(await a.page.getByRole('main').getByRole('link', { name: 'Roadmap' }).count(), 1);
      failed = false;
    } finally {
      await keepFailure(`${context.name}-a`, a.context, a.page, failed);
      await keepFailure(`${context.name}-b`, b.context, b.page, failed);
    }
  });

  test('a dropped stream shows a banner and, back, replays what changed meanwhile (Last-Event-ID)', async (context) => {
    const port = Number(new URL(suite.baseURL).port);
    const proxy = await TcpProxy.start('127.0.0.1', port);
    const browserContext = await contextWithKey(suite.browser, `http://127.0.0.1:${proxy.port}`, suite.t.tenant.apiKey);
    contexts.push(browserContext);
    const page = await browserContext.newPage();
    let failed = true;
    const board = (await api('GET', `/api/v1/boards/${boardId}`)) as { board: { lists: { _id: string; name: string }[] } };
    const toDo = board.board.lists.find((list) => list.name === 'To do')?._id;
    const resumedFrom: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith(`/boards/${boardId}/events?presence=true`)) resumedFrom.push(request.headers()['last-event-id']);
    });
    try {
      const stream = page.waitForResponse((response) => response.url().endsWith(`/boards/${boardId}/events?presence=true`));
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'Doing', 'First').waitFor();
      await stream;
      // one event first, so the stream has an id to resume from
      await api('POST', '/api/v1/cards', { list: toDo, name: 'Before the drop' });
      await cardIn(page, 'To do', 'Before the drop').waitFor();
      await proxy.cut({ refuse: true });
      await page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor();
      await api('POST', '/api/v1/cards', { list: toDo, name: 'During the drop' });
      await proxy.restore();
      await cardIn(page, 'To do', 'During the drop').waitFor();
      await page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor({ state: 'detached' });
      assert.equal(resumedFrom[0], undefined, 'the first stream starts from now');
      assert.match(resumedFrom.at(-1) ?? '', /^[0-9a-f]{24}$/, 'the reconnect sends Last-Event-ID');
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
      await proxy.close();
    }
  });

  test('a change made after the board was read but before its stream listened still shows', async (context) => {
    const browserContext = await contextWithKey(suite.browser, suite.baseURL, suite.t.tenant.apiKey);
    contexts.push(browserContext);
    const page = await browserContext.newPage();
    let failed = true;
    const board = (await api('GET', `/api/v1/boards/${boardId}`)) as { board: { lists: { _id: string; name: string }[] } };
    const toDo = board.board.lists.find((list) => list.name === 'To do')?._id;
    // the stream's request is held back (a slow network, a proxy) until the change is made
    const letThrough = await holdRequests(page, `**/api/v1/boards/${boardId}/events?presence=true`);
    try {
      const stream = page.waitForResponse((response) => response.url().endsWith(`/boards/${boardId}/events?presence=true`));
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'Doing', 'First').waitFor();
      await api('POST', '/api/v1/cards', { list: toDo, name: 'Between the read and the stream' });
      letThrough();
      await stream;
      await cardIn(page, 'To do', 'Between the read and the stream').waitFor();
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
    }
  });

  test("the card dialog's code waits until the cards show, then comes before a card is opened", async (context) => {
    const { context: browserContext, page } = await open(context.name);
    let failed = true;
    const dialogCode: string[] = [];
    page.on('request', (request) => {
      if (/\/assets\/CardDialog-[^/]*\.js$/.test(request.url())) dialogCode.push(request.url());
    });
    // the board's read is held back (a slow network): the page loads and falls idle meanwhile
    const letThrough = await holdRequests(page, `**/api/v1/boards/${boardId}/card-faces`);
    try {
      await page.goto(`/boards/${boardId}`);
      await page.evaluate(() => new Promise<void>((resolve) => requestIdleCallback(() => requestIdleCallback(() => resolve()))));
      assert.deepEqual(dialogCode, [], 'the card dialog loaded while the board was still being read');
      letThrough();
      await cardIn(page, 'Doing', 'First').waitFor();
      await until(async () => dialogCode.length > 0, "the card dialog's code loaded once the board was idle");
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
    }
  });
});
