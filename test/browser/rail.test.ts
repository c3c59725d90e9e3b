/**
 * The left rail as a person uses it: the team's boards (the open one marked current), My Tasks,
 * recent boards as they are opened, a star that makes a "Starred boards" section, collapsed and
 * remembered across a reload; tooltips on its icon buttons and the board menu's; on a phone a drawer from the header that a followed link closes.
 * axe on the page with the rail and on the drawer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing, holdRequests, steadyBox } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

describe('the left rail', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  let marketing: string;
  before(async () => {
    f = await cardDialogFixture();
    const made = async (name: string) => ((await f.api('POST', `/api/v1/boards?teamId=${f.t.tenant.teamId}`, { name })).board as { _id: string })._id;
    marketing = await made('Marketing');
    await made('Hiring plan');
  });
  after(() => f?.dispose());

  test('boards of the team, recent and starred boards, collapsed and remembered', async (context) => {
    const { context: browserContext, page } = await f.open(undefined, { viewport: { width: 1440, height: 900 } });
    await keeping(context.name, browserContext, page, async () => {
      await page.goto(`/boards/${f.boardId}`);
      const rail = page.getByRole('navigation', { name: 'Boards and teams' });
      const team = rail.getByRole('group', { name: 'Core' });
      await team.getByRole('link', { name: 'Hiring plan' }).waitFor();
      assert.equal(await team.getByRole('link', { name: 'Launch board' }).getAttribute('aria-current'), 'page', 'the open board is marked');
      await rail.getByRole('link', { name: 'My Tasks' }).waitFor();
      await axe(page, 'the board with the left rail');

      // icon-only buttons name themselves on hover and on keyboard focus (Radix's tooltips, loaded when idle)
      await rail.getByRole('button', { name: 'Collapse the sidebar' }).hover();
      await page.getByRole('tooltip', { name: 'Collapse the sidebar' }).waitFor();
      await page.getByRole('button', { name: 'Board menu' }).focus();
      await page.getByRole('tooltip', { name: 'Board menu' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('tooltip').waitFor({ state: 'detached' });

      // opening a board from the rail; the recent boards follow, newest first
      await team.getByRole('link', { name: 'Marketing' }).click();
      await page.waitForURL(`**/boards/${marketing}`);
      const recent = rail.getByRole('group', { name: 'Recent boards' });
      await recent.getByRole('link', { name: 'Marketing' }).waitFor();
      assert.deepEqual(await recent.getByRole('link').allTextContents(), ['Marketing', 'Launch board']);

      // a star makes the starred section, and survives a reload
      await team.getByRole('button', { name: 'Star Hiring plan' }).click();
      const starred = rail.getByRole('group', { name: 'Starred boards' });
      await starred.getByRole('link', { name: 'Hiring plan' }).waitFor();
      assert.equal(await team.getByRole('button', { name: 'Star Hiring plan' }).getAttribute('aria-pressed'), 'true');
      await page.reload();
      await starred.getByRole('link', { name: 'Hiring plan' }).waitFor();
      // the star is the account's, not this browser's
      const listed = (await f.api('GET', '/api/v1/me/starred-boards')).boards as { name: string }[];
      assert.deepEqual(
        listed.map((board) => board.name),
        ['Hiring plan'],
      );

      // collapsed, and still collapsed after a reload; then open again
      await rail.getByRole('button', { name: 'Collapse the sidebar' }).click();
      await rail.getByRole('button', { name: 'Expand the sidebar' }).waitFor();
      assert.equal(await rail.getByRole('link').count(), 0, 'a collapsed rail lists nothing');
      await page.reload();
      await rail.getByRole('button', { name: 'Expand the sidebar' }).click();
      await team.getByRole('link', { name: 'Marketing' }).waitFor();
    });
  });

  test('another browser shows the account’s stars, and stars this browser kept before move to the account', async (context) => {
    const { context: browserContext, page } = await f.open(undefined, { viewport: { width: 1440, height: 900 } });
    await keeping(context.name, browserContext, page, async () => {
      await page.goto(`/boards/${f.boardId}`);
      const starred = page.getByRole('navigation', { name: 'Boards and teams' }).getByRole('group', { name: 'Starred boards' });
      await starred.getByRole('link', { name: 'Hiring plan' }).waitFor();
      await page.evaluate((id) => localStorage.setItem('taskboard.starredBoards', JSON.stringify([id])), marketing);
      await page.reload();
      await starred.getByRole('link', { name: 'Marketing' }).waitFor();
      const listed = (await f.api('GET', '/api/v1/me/starred-boards')).boards as { name: string }[];
      assert.deepEqual(
        listed.map((board) => board.name),
        ['Hiring plan', 'Marketing'],
      );
      assert.equal(await page.evaluate(() => localStorage.getItem('taskboard.starredBoards')), null, 'moved once, then forgotten here');
    });
  });

  test('a control focused before the tooltips came keeps the focus when they come', async (context) => {
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const release = await holdRequests(page, '**/PopupCore-*.js');
      await page.goto(`/boards/${f.boardId}`);
      const menu = page.getByRole('button', { name: 'Board menu' });
      await menu.focus();
      release();
      // the tooltip shows on the focused control once Radix's code is in
      await page.getByRole('tooltip', { name: 'Board menu' }).waitFor();
      assert.equal(await page.locator(':focus').getAttribute('aria-label'), 'Board menu');
    });
  });

  test('a menu clicked before its code came opens once it comes', async (context) => {
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const release = await holdRequests(page, '**/PopupCore-*.js');
      await page.goto(`/boards/${f.boardId}`);
      await page.getByRole('button', { name: 'Board menu' }).click();
      assert.equal(await page.getByRole('dialog', { name: 'Board menu' }).count(), 0, 'nothing opens without the code');
      release();
      await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Custom fields', exact: true }).waitFor();
    });
  });

  test('on a phone: a drawer from the header, closed by the link it follows', async (context) => {
    const { context: browserContext, page } = await f.open(undefined, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    await keeping(context.name, browserContext, page, async () => {
      await page.goto(`/boards/${f.boardId}`);
      await page.getByRole('region', { name: 'To do' }).waitFor();
      assert.equal(await page.getByRole('navigation', { name: 'Boards and teams' }).isVisible(), false, 'no rail beside the board');
      const opener = page.getByRole('button', { name: 'Boards and teams' });
      const box = await steadyBox(opener);
      assert.ok(box.width >= 44 && box.height >= 44, `a touch target of 44 px at least: ${JSON.stringify(box)}`);
      await opener.tap();
      const drawer = page.getByRole('dialog', { name: 'Boards and teams' });
      const team = drawer.getByRole('group', { name: 'Core' });
      await team.getByRole('link', { name: 'Marketing' }).waitFor();
      await axe(page, 'the rail as a drawer');
      await team.getByRole('link', { name: 'Marketing' }).tap();
      await page.waitForURL(`**/boards/${marketing}`);
      await drawer.waitFor({ state: 'detached' });
    });
  });
});
