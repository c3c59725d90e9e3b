/**
 * The board page on a touch screen: a long press on a card lifts it, the card follows the finger,
 * and lifting the finger over another list moves it there, on the server too. A short touch that
 * moves is a scroll, not a drag.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CDPSession } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure } from '../support/browser.ts';
import { boardSuite, cardIn } from './board-support.ts';

/** Longer than the page's long press (500 ms): the gesture itself, a finger resting on the card. */
const PRESS_MS = 800;

type Point = { x: number; y: number };

/** A finger: down at `from`, resting `restMs`, then moving to `to` in steps, and lifted there. */
async function swipe(cdp: CDPSession, from: Point, to: Point, restMs: number) {
  const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', point?: Point) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: point ? [{ x: point.x, y: point.y }] : [] });
  await touch('touchStart', from);
  await new Promise((resolve) => setTimeout(resolve, restMs));
  const steps = 10;
  for (let i = 1; i <= steps; i++) await touch('touchMove', { x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps });
  await touch('touchEnd');
}

describe('the board page on a touch screen', { skip: chromiumMissing }, () => {
  const suite = boardSuite();
  const { api } = suite;

  test('a long press lifts a card; lifting the finger over another list moves it there', async (context) => {
    const { board } = await api<{ board: { _id: string } }>('POST', `/api/v1/boards?teamId=${suite.t.tenant.teamId}`, { name: 'Touch' });
    const lists: string[] = [];
    for (const name of ['To do', 'Done'])
      lists.push((await api<{ list: { _id: string } }>('POST', '/api/v1/lists', { board: board._id, name, position: 'bottom' })).list._id);
    for (const name of ['Pressed', 'Stays']) await api('POST', '/api/v1/cards', { list: lists[0], name, position: 'bottom' });

    const browserContext = await contextWithKey(suite.browser, suite.baseURL, suite.t.tenant.apiKey, { hasTouch: true, viewport: { width: 800, height: 700 } });
    const page = await browserContext.newPage();
    let failed = true;
    try {
      await page.goto(`/boards/${board._id}`);
      const card = cardIn(page, 'To do', 'Pressed');
      await card.waitFor();
      const from = await card.boundingBox();
      const to = await page.getByRole('region', { name: 'Done', exact: true }).boundingBox();
      assert.ok(from && to);
      const start = { x: from.x + from.width / 2, y: from.y + from.height / 2 };
      const end = { x: to.x + to.width / 2, y: to.y + 80 };
      const cdp = await browserContext.newCDPSession(page);
      const moves: string[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/position')) moves.push(request.url());
      });

      // a quick touch that moves is a scroll: nothing moves
      await swipe(cdp, start, end, 0);
      assert.equal(await cardIn(page, 'Done', 'Pressed').count(), 0);

      // a long press lifted where it started puts the card back where it was
      await swipe(cdp, start, start, PRESS_MS);
      await swipe(cdp, start, end, PRESS_MS);
      await cardIn(page, 'Done', 'Pressed').waitFor();
      await page.getByRole('status').filter({ hasText: 'Pressed moved to Done, position 1.' }).waitFor();
      assert.equal(moves.length, 1, 'one move: the quick touch and the press lifted in place moved nothing');
      const read = await api<{ board: { lists: { name: string; cards: { name: string }[] }[] } }>('GET', `/api/v1/boards/${board._id}`);
      assert.deepEqual(
        read.board.lists.map((list) => [list.name, list.cards.map((one) => one.name)]),
        [
          ['To do', ['Stays']],
          ['Done', ['Pressed']],
        ],
      );
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
    }
  });
});
