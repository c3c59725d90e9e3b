/**
 * The board page's shortcuts and the rest of what a person meets on it, in a real browser: `n` `e`
 * `l` `m` space `?` on a focused card, archiving a list and restoring it, covers on the cards' faces,
 * the theme switch, one list per screen at 360 px, a 412 on the board when another browser changed
 * the card first; axe on every page state and dialog opened.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locator } from '@playwright/test';
import { chromiumMissing, contextWithKey, holdRequests, keepFailure, steadyBox, until } from '../support/browser.ts';
import { axe, boardSuite, cardIn } from './board-support.ts';

// page.waitForFunction's callbacks run in the page (the suite's own type check has no DOM library)
declare const document: { activeElement: unknown; documentElement: { dataset: Record<string, string | undefined> }; body: unknown };
declare function getComputedStyle(element: unknown): { backgroundColor: string };

/** A 1×1 PNG, for a cover image. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** Waits until `locator` is the element with focus. */
async function focused(locator: Locator) {
  const element = await locator.elementHandle();
  await locator.page().waitForFunction((one) => one === document.activeElement, element);
}

describe('the board page: shortcuts, lists, covers, themes, narrow screens, conflicts', { skip: chromiumMissing }, () => {
  const suite = boardSuite();
  const { api, onPage, makeBoard } = suite;

  test('n, e, l, m, space and ? on a focused card', async (context) => {
    const { boardId } = await makeBoard('Shortcuts', { 'To do': ['Alpha', 'Beta'], Doing: [] });
    await api('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Bug', color: '000000000000000000000004' });
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      const alpha = cardIn(page, 'To do', 'Alpha');

      // n: the list's composer opens, with its field focused
      await alpha.focus();
      await page.keyboard.press('n');
      const composer = page.getByRole('region', { name: 'To do', exact: true }).getByRole('textbox', { name: 'Card name' });
      await focused(composer);
      await page.keyboard.type('Gamma');
      await page.keyboard.press('Enter');
      await cardIn(page, 'To do', 'Gamma').waitFor();
      await page.keyboard.press('Escape');

      // e: the card's dialog opens on its name, in a field
      await alpha.focus();
      await page.keyboard.press('e');
      const dialog = page.getByRole('dialog', { name: 'Alpha' });
      await focused(dialog.getByRole('textbox', { name: 'Card name' }));
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // l: the dialog opens on the labels; m: on the members
      await alpha.focus();
      await page.keyboard.press('l');
      await focused(dialog.getByRole('button', { name: 'Bug' }));
      await page.keyboard.press('Enter');
      await dialog.getByRole('button', { name: 'Bug', pressed: true }).waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: /^Alpha.*Labels: Bug/ }).waitFor();
      await alpha.focus();
      await page.keyboard.press('m');
      await focused(dialog.getByRole('button', { name: /^Olive Owner/ }));
      await axe(page, 'the card dialog opened by m');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // space assigns me, and again unassigns me
      await alpha.focus();
      await page.keyboard.press(' ');
      await page.getByRole('button', { name: /^Alpha.*Members: Olive Owner/ }).waitFor();
      await page.keyboard.press(' ');
      await page.getByRole('button', { name: /^Alpha.*Olive Owner/ }).waitFor({ state: 'detached' });
      const members = await api<{ card: { members: unknown[] } }>('GET', `/api/v1/cards/${await alpha.getAttribute('data-card-id')}/face`);
      assert.deepEqual(members.card.members, []);

      // ?: the shortcuts
      await alpha.focus();
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.getByRole('term').filter({ hasText: 'Space' }).waitFor();
      await axe(page, 'the shortcuts dialog');
      await help.getByRole('button', { name: 'Close' }).click();
      await help.waitFor({ state: 'detached' });

      // Move… from the dialog: its own dialog, scanned too
      await alpha.focus();
      await page.keyboard.press('Enter');
      await dialog.getByRole('button', { name: 'Move…' }).click();
      await page.getByRole('dialog', { name: 'Move card Alpha' }).waitFor();
      await axe(page, 'the move dialog');
    });
  });

  test('c archives a card with an Undo toast, shown on screen and reached by keyboard; a move is undone too', async (context) => {
    const { boardId, listIds } = await makeBoard('Undoing', { 'To do': ['Keep', 'Oops'], Doing: ['Other'] });
    await onPage(context.name, {}, async (page) => {
      await page.goto(`/boards/${boardId}`);
      const oops = cardIn(page, 'To do', 'Oops');
      await oops.focus();
      await page.keyboard.press('c');
      await oops.waitFor({ state: 'detached' });
      const toasts = page.getByRole('region', { name: /Notifications/ });
      const toast = toasts.getByRole('listitem').filter({ hasText: 'Oops archived.' });
      await toast.waitFor();
      assert.ok(await toast.isVisible(), 'the archive is shown, not only said');
      await axe(page, 'the board with an undo toast');
      // F8 takes the keyboard to the toasts (Radix UI's hotkey); Tab reaches Undo
      await page.keyboard.press('F8');
      const undo = toast.getByRole('button', { name: 'Undo' });
      for (let tries = 0; tries < 5 && !(await undo.evaluate((element) => element === document.activeElement)); tries++) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await cardIn(page, 'To do', 'Oops').waitFor();
      const face = await api<{ card: { archived: { status: boolean } } }>(
        'GET',
        `/api/v1/cards/${await cardIn(page, 'To do', 'Oops').getAttribute('data-card-id')}`,
      );
      assert.equal(face.card.archived.status, false);

      // a move by keyboard, undone from its toast: back in its list, at its place
      const keep = cardIn(page, 'To do', 'Keep');
      await keep.focus();
      await page.keyboard.press('>');
      await cardIn(page, 'Doing', 'Keep').waitFor();
      // the page puts the card back at once; the server's answer to the undo is what the read below needs
      const undone = page.waitForResponse(
        (response) =>
          response.url().endsWith('/position') &&
          Boolean(
            response
              .request()
              .postData()
              ?.includes(`"${listIds.get('To do')}"`),
          ),
      );
      await toasts.getByRole('listitem').filter({ hasText: 'Moved Keep to Doing.' }).getByRole('button', { name: 'Undo' }).click();
      await cardIn(page, 'To do', 'Keep').waitFor();
      await undone;
      const lists = await api<{ board: { lists: { name: string; cards: { name: string }[] }[] } }>('GET', `/api/v1/boards/${boardId}/card-faces`);
      assert.deepEqual(
        lists.board.lists.find((list) => list.name === 'To do')?.cards.map((card) => card.name),
        ['Keep', 'Oops'],
      );
    });
  });

  test('archive a list (confirmed), then restore it with its cards', async (context) => {
    const { boardId, listIds } = await makeBoard('Archiving', { 'To do': ['Stay'], Doing: ['Leaving', 'Going'] });
    await onPage(context.name, {}, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'Doing', 'Leaving').waitFor();
      await page.getByLabel('Actions of list Doing').click();
      await axe(page, 'the board with a list menu open');
      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await page.getByRole('button', { name: 'Archive list' }).click();
      await page.getByRole('region', { name: 'Doing', exact: true }).waitFor({ state: 'detached' });
      assert.match(asked, /Archive the list "Doing" and its 2 cards\?/);
      const archived = await api<{ board: { lists: { _id: string; archived: { status: boolean } }[] } }>(
        'GET',
        `/api/v1/boards/${boardId}/lists?archived=true`,
      );
      assert.equal(archived.board.lists.find((list) => list._id === listIds.get('Doing'))?.archived.status, true);

      await page.getByRole('button', { name: 'Restore Doing' }).click();
      await cardIn(page, 'Doing', 'Going').waitFor();
      const lists = await api<{ board: { lists: { name: string }[] } }>('GET', `/api/v1/boards/${boardId}/lists`);
      assert.deepEqual(
        lists.board.lists.map((list) => list.name),
        ['To do', 'Doing'],
      );
    });
  });

  test("covers show on the cards' faces: a colour, and an image file of the card", async (context) => {
    const { boardId, cards } = await makeBoard('Covers', { 'To do': ['Painted', 'Pictured', 'Plain'] });
    await api('PATCH', `/api/v1/cards/${cards.get('Painted')}`, { cover: '#61bd4f' });
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'cover.png');
    const upload = await fetch(`${suite.baseURL}/api/v1/cards/${cards.get('Pictured')}/attachments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${suite.t.tenant.apiKey}` },
      body: form,
    });
    assert.equal(upload.status, 201, await upload.clone().text());
    const { attachment } = (await upload.json()) as { attachment: { url: string } };
    await api('PATCH', `/api/v1/cards/${cards.get('Pictured')}`, { cover: attachment.url });

    await onPage(context.name, {}, async (page) => {
      await page.goto(`/boards/${boardId}`);
      const pictured = page.getByRole('button', { name: /^Pictured.*1 attachment/ });
      // a cover is decorative (its card is named by its content): found as the image it is
      const image = pictured.locator('img');
      await image.waitFor({ state: 'attached' });
      await page.waitForFunction((element) => (element as unknown as { naturalWidth: number }).naturalWidth === 1, await image.elementHandle());
      const band = cardIn(page, 'To do', 'Painted').locator('.card-cover');
      assert.equal(await band.evaluate((element) => getComputedStyle(element).backgroundColor), 'rgb(97, 189, 79)');
      assert.equal(await cardIn(page, 'To do', 'Plain').locator('.card-cover').count(), 0);
      await axe(page, 'a board with covers');
    });
  });

  test("a card's face shows its due date (overdue in colour), checklist and comments; label and due filters live in the URL", async (context) => {
    const { boardId, cards } = await makeBoard('Faces', { 'To do': ['Behind', 'Listed', 'Ahead'] });
    const { label } = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Bug', color: '000000000000000000000004' });
    const day = 24 * 3600 * 1000;
    await api('PATCH', `/api/v1/cards/${cards.get('Behind')}`, { dueDate: new Date(Date.now() - day).toISOString() });
    await api('PATCH', `/api/v1/cards/${cards.get('Ahead')}`, { dueDate: new Date(Date.now() + 3 * day).toISOString() });
    await api('POST', `/v2/cards/${cards.get('Behind')}/labels`, { labels: [label._id] });
    const { checklist } = await api<{ checklist: { _id: string } }>('POST', `/api/v1/cards/${cards.get('Listed')}/checklists`, { name: 'Steps' });
    const { checklistItem } = await api<{ checklistItem: { _id: string } }>('POST', `/api/v1/checklists/${checklist._id}/items`, { name: 'One' });
    await api('POST', `/api/v1/checklists/${checklist._id}/items`, { name: 'Two' });
    await api('PATCH', `/api/v1/checklist-items/${checklistItem._id}/complete`, { status: true });
    for (const content of ['First', 'Second']) await api('POST', `/api/v1/cards/${cards.get('Listed')}/comments`, { content });

    await onPage(context.name, {}, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await page.getByRole('button', { name: /^Behind.*Due date.*overdue/ }).waitFor();
      await page.getByRole('button', { name: /^Listed.*1\/2 checklist items.*2 comments/ }).waitFor();
      const colour = (card: string) =>
        cardIn(page, 'To do', card)
          .locator('.due')
          .evaluate((element) => getComputedStyle(element).backgroundColor);
      assert.notEqual(await colour('Behind'), await colour('Ahead'), 'an overdue date stands out');

      // the label filter, in the URL: a reload (a shared link) keeps it
      await page.getByRole('group', { name: 'Filters' }).getByRole('button', { name: 'Labels' }).click();
      await page.getByRole('checkbox', { name: 'Bug' }).check();
      await page.waitForURL(new RegExp(`labels=${label._id}`));
      await page.reload();
      await cardIn(page, 'To do', 'Behind').waitFor();
      assert.equal(await cardIn(page, 'To do', 'Listed').count(), 0);
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await cardIn(page, 'To do', 'Listed').waitFor();

      // due: overdue, then in the next week
      await page.getByRole('combobox', { name: 'Due' }).selectOption({ label: 'Overdue' });
      await page.waitForURL(/due=overdue/);
      await cardIn(page, 'To do', 'Behind').waitFor();
      assert.equal(await cardIn(page, 'To do', 'Ahead').count(), 0);
      await page.getByRole('combobox', { name: 'Due' }).selectOption({ label: 'Due in the next week' });
      await cardIn(page, 'To do', 'Ahead').waitFor();
      assert.equal(await cardIn(page, 'To do', 'Behind').count(), 0);
      await axe(page, 'a filtered board');
    });
  });

  test('the theme switch: dark, light against a dark system, and back to the system', async (context) => {
    const { boardId } = await makeBoard('Themes', { 'To do': ['Shade'] });
    await onPage(context.name, { colorScheme: 'light' }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Shade').waitFor();
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const light = await background();
      const theme = page.getByRole('combobox', { name: 'Theme' });
      await theme.selectOption({ label: 'Dark' });
      await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
      const dark = await background();
      assert.notEqual(dark, light);
      await axe(page, 'the board, dark');
      // kept in this browser
      await page.reload();
      await cardIn(page, 'To do', 'Shade').waitFor();
      assert.equal(await background(), dark);
      // light stays light when the system turns dark; "System" then follows it
      await theme.selectOption({ label: 'Light' });
      await page.emulateMedia({ colorScheme: 'dark' });
      assert.equal(await background(), light);
      await theme.selectOption({ label: 'System' });
      assert.equal(await background(), dark);
    });
  });

  test('360 px wide: one list per screen', async (context) => {
    const { boardId } = await makeBoard('Narrow', { 'To do': ['Small'], Doing: ['Screen'], Done: [] });
    await onPage(context.name, { viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Small').waitFor();
      const first = await page.getByRole('region', { name: 'To do', exact: true }).boundingBox();
      const second = await page.getByRole('region', { name: 'Doing', exact: true }).boundingBox();
      assert.ok(first && second);
      assert.ok(first.x >= 0 && first.x + first.width <= 360, `the first list fits the screen: ${JSON.stringify(first)}`);
      assert.ok(first.width >= 280, `the first list fills the screen: ${first.width} px`);
      assert.ok(second.x >= 360 - 16, `the second list starts past the screen: ${second.x}`);
      const overflow = await page.evaluate(() => (document as unknown as { documentElement: { scrollWidth: number } }).documentElement.scrollWidth);
      assert.ok(overflow <= 360, `the page itself does not scroll sideways (${overflow} px)`);
      // the header keeps to one row, and the first card comes soon after it
      const bar = await page.getByRole('banner').boundingBox();
      assert.ok(bar && bar.height <= 60, `the header is one row: ${JSON.stringify(bar)}`);
      const firstCard = await cardIn(page, 'To do', 'Small').boundingBox();
      assert.ok(firstCard && firstCard.y <= 200, `the first card starts at ${firstCard?.y} px`);
      // search and filters wait behind buttons of a finger's size
      for (const name of ['Search', 'Filters', 'Menu', 'Board menu']) {
        const button = await steadyBox(page.getByRole('button', { name, exact: true }));
        assert.ok(button.height >= 44 && button.width >= 44, `${name} is at least 44 px: ${JSON.stringify(button)}`);
      }
      await page.getByRole('button', { name: 'Filters', exact: true }).tap();
      await page.getByRole('group', { name: 'Filters' }).getByRole('searchbox', { name: 'Filter cards' }).waitFor();
      await page.getByRole('button', { name: 'Search', exact: true }).tap();
      await page.getByRole('search').getByRole('combobox').waitFor();
      await page.getByRole('button', { name: 'Menu', exact: true }).tap();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await axe(page, 'the board at 360 px with its menu open');
      await page.keyboard.press('Escape');
      await axe(page, 'the board at 360 px');
    });
  });

  test('two quick keyboard moves of one card are sent in turn: both land, no conflict', async (context) => {
    const { boardId, cards } = await makeBoard('Quick moves', { 'To do': ['Hopper'], Doing: [], Done: [] });
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      // no live stream: once open it reads the board afresh, which would show the held move undone
      await page.route('**/events?presence=true', (route) => route.abort());
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Hopper').waitFor();
      // the first move's request waits, so the second key comes before its answer
      const release = await holdRequests(page, '**/api/v1/cards/*/position');
      await cardIn(page, 'To do', 'Hopper').focus();
      await page.keyboard.press('>');
      await cardIn(page, 'Doing', 'Hopper').focus();
      await page.keyboard.press('>');
      await cardIn(page, 'Done', 'Hopper').waitFor();
      release();
      // sent at once, the second move would carry the version the first one changed: a 412
      await until(async () => {
        const face = await api<{ card: { list: string } }>('GET', `/api/v1/cards/${cards.get('Hopper')}/face`);
        return (await listNameOf(face.card.list)) === 'Done';
      }, 'the card is in Done on the server');
      assert.equal(await page.getByRole('alert').filter({ hasText: 'changed meanwhile' }).count(), 0);
      await cardIn(page, 'Done', 'Hopper').waitFor();
    });

    async function listNameOf(listId: string): Promise<string | undefined> {
      const board = await api<{ board: { lists: { _id: string; name: string }[] } }>('GET', `/api/v1/boards/${boardId}`);
      return board.board.lists.find((list) => list._id === listId)?.name;
    }
  });

  test('a move from a browser that missed a change is refused (412): the board shows the new state', async (context) => {
    const { boardId, cards } = await makeBoard('Conflicts', { 'To do': ['Contested'], Doing: [] });
    const a = await contextWithKey(suite.browser, suite.baseURL, suite.t.tenant.apiKey);
    const b = await contextWithKey(suite.browser, suite.baseURL, suite.t.tenant.apiKey);
    const pageA = await a.newPage();
    const pageB = await b.newPage();
    let failed = true;
    try {
      // a's stream is down: it does not hear of b's change
      await pageA.route('**/events?presence=true', (route) => route.abort());
      await pageA.goto(`/boards/${boardId}`);
      await pageB.goto(`/boards/${boardId}`);
      await cardIn(pageA, 'To do', 'Contested').waitFor();
      await pageA.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor();

      await cardIn(pageB, 'To do', 'Contested').focus();
      await pageB.keyboard.press('e');
      const name = pageB.getByRole('dialog', { name: 'Contested' }).getByRole('textbox', { name: 'Card name' });
      await name.fill('Contested, renamed in b');
      await name.press('Enter');
      await cardIn(pageB, 'To do', 'Contested, renamed in b').waitFor();

      await cardIn(pageA, 'To do', 'Contested').focus();
      await pageA.keyboard.press('>');
      await pageA.getByRole('alert').filter({ hasText: 'This card changed meanwhile: the board shows its new state.' }).waitFor();
      await cardIn(pageA, 'To do', 'Contested, renamed in b').waitFor();
      assert.equal(await cardIn(pageA, 'Doing', 'Contested').count(), 0);
      const card = await api<{ card: { list: string; name: string } }>('GET', `/api/v1/cards/${cards.get('Contested')}/face`);
      assert.equal(card.card.name, 'Contested, renamed in b');
      await axe(pageA, 'the board with a conflict notice');
      failed = false;
    } finally {
      await keepFailure(`${context.name}-a`, a, pageA, failed);
      await keepFailure(`${context.name}-b`, b, pageB, failed);
      await a.close();
      await b.close();
    }
  });
});
