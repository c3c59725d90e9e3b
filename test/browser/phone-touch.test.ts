/**
 * The board on a phone (390 × 844, touch, DevTools touch events): a long-pressed card follows the
 * finger, the board scrolls while the finger rests at its edge (one list per screen), and the drop
 * lands where the mark showed; a card moved within its list; a list reordered by its header; then
 * the card opened by a tap as a full-screen sheet, its name edited, a comment written and a photo
 * attached, by touch. Touch targets of 44 px at least; the server holds every outcome.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CDPSession, Page } from '@playwright/test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';
import { png } from '../support/images.ts';
import { eventually } from '../support/receiver.ts';

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
/** Longer than the page's long press (500 ms): a finger resting on the card. */
const PRESS_MS = 800;
type Point = { x: number; y: number };

/** One finger, through DevTools: down, resting, moving in steps, up. */
function finger(cdp: CDPSession) {
  const send = (type: 'touchStart' | 'touchMove' | 'touchEnd', point?: Point) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: point ? [{ x: Math.round(point.x), y: Math.round(point.y) }] : [] });
  let at: Point = { x: 0, y: 0 };
  return {
    async press(point: Point) {
      at = point;
      await send('touchStart', point);
      await new Promise((resolve) => setTimeout(resolve, PRESS_MS));
    },
    async move(to: Point, steps = 8) {
      const from = at;
      for (let i = 1; i <= steps; i++) await send('touchMove', { x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps });
      at = to;
    },
    lift: () => send('touchEnd'),
  };
}

const centre = async (selector: ReturnType<Page['locator']>): Promise<Point> => {
  const box = await selector.boundingBox();
  assert.ok(box, 'on screen');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
};

describe('the board on a phone, by touch', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  let done: string;
  before(async () => {
    f = await cardDialogFixture();
    done = ((await f.api('POST', '/api/v1/lists', { board: f.boardId, name: 'Done', position: 'bottom' })).list as { _id: string })._id;
    for (const name of ['Alpha', 'Beta', 'Gamma']) await f.newCard(name);
  });
  after(() => f?.dispose());

  const namesOf = async () => {
    const read = (await f.api('GET', `/api/v1/boards/${f.boardId}`)).board as { lists: { name: string; cards: { name: string }[] }[] };
    return read.lists.map((list) => `${list.name}: ${list.cards.map((card) => card.name).join(', ')}`);
  };
  const card = (page: Page, list: string, name: string) =>
    page.getByRole('region', { name: list, exact: true }).getByRole('button', { name: new RegExp(`^${name}`) });

  test('a lifted card follows the finger, the board scrolls at the edge, the drop lands on the mark; lists too', async (context) => {
    const { context: browserContext, page } = await f.open(undefined, PHONE);
    await keeping(context.name, browserContext, page, async () => {
      const cdp = await browserContext.newCDPSession(page);
      const touch = finger(cdp);
      await page.goto(`/boards/${f.boardId}`);
      await card(page, 'To do', 'Gamma').waitFor();

      // within the list: Alpha onto Gamma's lower half goes after it
      await touch.press(await centre(card(page, 'To do', 'Alpha')));
      const gamma = await card(page, 'To do', 'Gamma').boundingBox();
      assert.ok(gamma);
      const below = { x: gamma.x + gamma.width / 2, y: gamma.y + gamma.height * 0.8 };
      await touch.move(below);
      // a copy of the card is under the finger
      const ghost = page.locator('.touch-ghost');
      const copy = await ghost.boundingBox();
      assert.ok(copy && Math.abs(copy.y + copy.height / 2 - below.y) < copy.height, `the copy follows the finger: ${JSON.stringify(copy)} at ${below.y}`);
      assert.match((await ghost.textContent()) ?? '', /Alpha/);
      await page.locator('[data-card-id].drop-bottom').getByText('Gamma').waitFor();
      await touch.lift();
      await ghost.waitFor({ state: 'detached' });
      await eventually(namesOf, (names) => names[0] === 'To do: Beta, Gamma, Alpha', 10_000, 'Alpha after Gamma');

      // across lists, one list per screen: the finger rests at the right edge until Doing, then Done, comes
      const canvas = page.locator('.canvas');
      const scrolled = () => canvas.evaluate((element) => element.scrollLeft);
      assert.equal(await scrolled(), 0);
      await touch.press(await centre(card(page, 'To do', 'Beta')));
      // just inside the edge's belt the board scrolls slowly (deeper in, faster); a resting finger trembles a
      // pixel. Over the lists' row, the mark moves from list to list as they pass under it: lifted on Done's, it lands there.
      const row = (await centre(page.getByRole('region', { name: 'Done', exact: true }))).y;
      const doneMarked = () =>
        page.evaluate(
          (listId) => (globalThis as unknown as { document: Document }).document.querySelector(`[data-list-id="${listId}"]`)?.classList.contains('drop-end'),
          done,
        );
      for (let step = 0; !(await doneMarked()); step++) {
        await touch.move({ x: 340 + (step % 2), y: row }, 1);
        assert.ok(step < 2000, 'the board scrolls until Done is under the finger');
      }
      assert.ok((await scrolled()) > 300, 'the board scrolled past To do');
      await touch.lift();
      await eventually(namesOf, (names) => names[2] === 'Done: Beta', 10_000, 'Beta in Done');
      await card(page, 'Done', 'Beta').waitFor();

      // a list by its header: Done lifted and dropped on the left half of Doing goes before it
      const header = page.getByRole('region', { name: 'Done', exact: true }).locator('.list-header');
      await header.scrollIntoViewIfNeeded();
      await page.waitForFunction(() => {
        const box = (globalThis as unknown as { document: Document }).document.querySelector('.list[aria-label="Done"]')?.getBoundingClientRect();
        return box !== undefined && box.left >= 0 && box.right <= 390;
      });
      const start = await centre(header);
      await touch.press({ x: start.x - 60, y: start.y });
      // just inside the left edge's belt the board scrolls back slowly: Doing passes under the finger, its right half, then its left
      await touch.move({ x: 50, y: start.y });
      await page.locator('.touch-ghost-list').getByText('Done').waitFor();
      await page.waitForFunction(
        () => (globalThis as unknown as { document: Document }).document.querySelector('.list.drop-left')?.getAttribute('aria-label') === 'Doing',
        undefined,
        { polling: 'raf' },
      );
      await touch.lift();
      await eventually(namesOf, (names) => names.join(' | ') === 'To do: Gamma, Alpha | Done: Beta | Doing: ', 10_000, 'Done before Doing');
    });
  });

  test('open, edit, comment and attach a photo by touch, in a full-screen sheet with 44 px targets', async (context) => {
    const cardId = await f.newCard('Phone card');
    const { context: browserContext, page } = await f.open(undefined, PHONE);
    await keeping(context.name, browserContext, page, async () => {
      await page.goto(`/boards/${f.boardId}`);
      await card(page, 'To do', 'Phone card').tap();
      const dialog = page.getByRole('dialog', { name: 'Phone card' });
      await dialog.getByRole('button', { name: 'Phone card, rename' }).waitFor();
      const sheet = await dialog.boundingBox();
      assert.deepEqual(sheet && [sheet.x, sheet.y, sheet.width, sheet.height], [0, 0, 390, 844], 'a full-screen sheet');
      await axe(page, 'the card dialog on a phone');

      // every button and field of the sheet's head and side is a target of 44 px at least
      const small = await dialog.evaluate((element) =>
        [
          ...(element as unknown as { querySelectorAll(selector: string): Iterable<Shown> }).querySelectorAll(
            'button, select, input:not([type="file"], [type="checkbox"], [type="radio"]), textarea, [role="group"]:has([role="spinbutton"])',
          ),
        ]
          .filter((one) => one.offsetParent !== null)
          .map((one) => ({ name: one.getAttribute('aria-label') ?? one.textContent?.trim() ?? one.tagName, box: one.getBoundingClientRect() }))
          .filter(({ box }) => box.height < 44 || (box.width < 44 && box.width > 0))
          .map(({ name, box }) => `${name}: ${Math.round(box.width)}×${Math.round(box.height)}`),
      );
      assert.deepEqual(small, [], 'touch targets of at least 44 × 44 px');

      // edit the name
      await dialog.getByRole('button', { name: 'Phone card, rename' }).tap();
      const name = dialog.getByRole('textbox', { name: 'Card name' });
      await name.fill('Phone card, renamed');
      await name.press('Enter');
      await dialog.getByRole('button', { name: 'Phone card, renamed, rename' }).waitFor();

      // a comment
      const box = dialog.getByRole('textbox', { name: 'Write a comment' });
      await box.tap();
      await box.fill('Written on a phone');
      await dialog.getByRole('button', { name: 'Comment', exact: true }).tap();
      await dialog.getByRole('article').getByText('Written on a phone').waitFor();

      // a photo, through the file picker the tap opens
      const chooser = page.waitForEvent('filechooser');
      await dialog.getByRole('region', { name: 'Attachments' }).getByText('Attach a file').tap();
      await (await chooser).setFiles([{ name: 'photo.png', mimeType: 'image/png', buffer: png(64, 48) }]);
      await dialog.getByRole('region', { name: 'Attachments' }).getByText('photo.png', { exact: true }).waitFor();

      const stored = (await f.api('GET', `/api/v1/cards/${cardId}`)).card as { name: string; attachments: { name: string }[] };
      const comments = (await f.api('GET', `/api/v1/cards/${cardId}/comments`)).comments as { content: string }[];
      assert.deepEqual(
        [stored.name, stored.attachments.map((one) => one.name), comments.map((one) => one.content)],
        ['Phone card, renamed', ['photo.png'], ['Written on a phone']],
      );
    });
  });
});

/** The little of the DOM the page functions above use (the tests compile without the DOM's types). */
type Shown = {
  offsetParent: unknown;
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { width: number; height: number };
};
type Document = {
  querySelector(selector: string): {
    classList: { contains(name: string): boolean };
    getAttribute(name: string): string | null;
    getBoundingClientRect(): { left: number; right: number };
  } | null;
};
