/**
 * The rest of the board page a person meets, in a real browser: dragging a card within its list,
 * the board scrolling when a card is dragged to its right edge, the members filter kept in the URL,
 * and the way from companies to teams to boards (create, rename, archive; the last board reopens).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from '@playwright/test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, boardSuite, cardIn } from './board-support.ts';

// page.waitForFunction's callbacks run in the page (the suite's own type check has no DOM library)
declare const document: { querySelector(selector: string): { scrollLeft: number } | null };

type BoardRead = { board: { lists: { name: string; cards: { name: string }[] }[] } };

describe('the board page: drags within a list, auto-scroll, members filter, navigation', { skip: chromiumMissing }, () => {
  const suite = boardSuite();
  const { api, onPage, makeBoard } = suite;

  /** The card names of the list `list` as the page shows them, top to bottom. */
  async function shown(page: Page, list: string) {
    const rows = await page.getByRole('list', { name: list, exact: true }).getByRole('listitem').allInnerTexts();
    return rows.map((row) => row.split('\n')[0]?.trim());
  }

  test('a card dragged within its list with the mouse keeps its new place after a reload', async (context) => {
    const { boardId } = await makeBoard('Within', { 'To do': ['Alpha', 'Beta', 'Gamma'] });
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      const gamma = cardIn(page, 'To do', 'Gamma');
      await gamma.waitFor();
      const box = await gamma.boundingBox();
      assert.ok(box);
      // dropped on Gamma's lower half: Alpha goes below Gamma
      await cardIn(page, 'To do', 'Alpha').dragTo(gamma, { targetPosition: { x: box.width / 2, y: box.height - 4 } });
      await page
        .getByRole('status')
        .filter({ hasText: /^Alpha moved to To do, position 3/ })
        .waitFor();
      assert.deepEqual(await shown(page, 'To do'), ['Beta', 'Gamma', 'Alpha']);
      await page.reload();
      await cardIn(page, 'To do', 'Alpha').waitFor();
      assert.deepEqual(await shown(page, 'To do'), ['Beta', 'Gamma', 'Alpha']);
      const read = await api<BoardRead>('GET', `/api/v1/boards/${boardId}`);
      assert.deepEqual(
        read.board.lists[0]?.cards.map((card) => card.name),
        ['Beta', 'Gamma', 'Alpha'],
      );
    });
  });

  test('dragging a card to the right edge of a board wider than the window scrolls the board', async (context) => {
    const lists: Record<string, string[]> = { 'List 1': ['Traveller'] };
    for (let i = 2; i <= 10; i++) lists[`List ${i}`] = [];
    const { boardId } = await makeBoard('Wide', lists);
    await onPage(context.name, { viewport: { width: 900, height: 700 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      const card = cardIn(page, 'List 1', 'Traveller');
      await card.waitFor();
      const box = await card.boundingBox();
      assert.ok(box);
      assert.equal(await page.evaluate(() => document.querySelector('.canvas')?.scrollLeft), 0);
      const y = box.y + box.height / 2;
      await page.mouse.move(box.x + box.width / 2, y);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 + 20, y, { steps: 5 });
      // held 100 px inside the board's right edge (the window's): in the library's hitbox (the last 180 px),
      // clear of the thin belt where Chromium's own drag auto-scroll would scroll the board without our help
      await page.mouse.move(900 - 100, y, { steps: 10 });
      await page.waitForFunction(() => (document.querySelector('.canvas')?.scrollLeft ?? 0) > 100);
      await page.mouse.up();
    });
  });

  test('the members filter shows only their cards and lives in the URL', async (context) => {
    const { boardId, cards } = await makeBoard('People', { 'To do': ['Mine', 'Nobody’s'] });
    await api('POST', `/v2/cards/${cards.get('Mine')}/members`, { members: [suite.t.tenant.userId] });
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Nobody’s').waitFor();
      const filters = page.getByRole('group', { name: 'Filters' });
      await filters.getByRole('button', { name: 'Members' }).click();
      // the filter's choices open in a popover named by the filter
      await page.getByRole('dialog', { name: 'Members' }).getByRole('checkbox', { name: 'Olive Owner' }).check();
      await page.waitForURL(new RegExp(`members=${suite.t.tenant.userId}`));
      await cardIn(page, 'To do', 'Nobody’s').waitFor({ state: 'detached' });
      await cardIn(page, 'To do', 'Mine').waitFor();
      await axe(page, 'the board with the members filter open');

      // the link shares the filter: opened afresh, it filters the same way
      const shared = page.url();
      await page.goto('/boards');
      await page.goto(shared);
      await cardIn(page, 'To do', 'Mine').waitFor();
      assert.equal(await cardIn(page, 'To do', 'Nobody’s').count(), 0);
      await page.getByRole('group', { name: 'Filters' }).getByText('Members (1)').waitFor();

      await page.getByRole('button', { name: 'Clear filters' }).click();
      await cardIn(page, 'To do', 'Nobody’s').waitFor();
      assert.doesNotMatch(page.url(), /members=/);
    });
  });

  test('two filter boxes ticked one right after the other both count', async (context) => {
    const { boardId, cards } = await makeBoard('Quick ticks', { 'To do': ['Crash', 'Guide', 'Plain'] });
    const label = async (name: string, color: string, card: string) => {
      const made = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${boardId}/labels`, { name, color });
      await api('POST', `/v2/cards/${cards.get(card)}/labels`, { labels: [made.label._id] });
      return made.label._id;
    };
    const bug = await label('Bug', '000000000000000000000004', 'Crash');
    const docs = await label('Docs', '000000000000000000000002', 'Guide');
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Plain').waitFor();
      const filters = page.getByRole('group', { name: 'Filters' });
      await filters.getByRole('button', { name: 'Labels' }).click();
      const choices = page.getByRole('dialog', { name: 'Labels' });
      const boxes = await Promise.all(['Bug', 'Docs'].map((name) => choices.getByRole('checkbox', { name }).elementHandle()));
      // the second tick comes before the address has caught up with the first, as a quick person's does
      await page.evaluate(async (handles) => {
        const [first, second] = handles as unknown as { click(): void }[];
        first?.click();
        await Promise.resolve();
        second?.click();
      }, boxes);
      await page.waitForURL((url) => (url.searchParams.get('labels') ?? '').split(',').sort().join() === [bug, docs].sort().join());
      await cardIn(page, 'To do', 'Plain').waitFor({ state: 'detached' });
      await cardIn(page, 'To do', 'Crash').waitFor();
      await cardIn(page, 'To do', 'Guide').waitFor();
      for (const name of ['Bug', 'Docs']) assert.equal(await choices.getByRole('checkbox', { name }).isChecked(), true, name);
    });
  });

  test('companies, teams, boards: create, rename and archive a board; the last board reopens at /', async (context) => {
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      // a first visit has no last board: `/` shows the boards, by company and team
      await page.goto('/');
      await page.waitForURL('**/boards');
      const team = page.getByRole('region', { name: 'Company Acme' }).getByRole('region', { name: 'Core', exact: true });
      // a new board opens, with Trello's six default labels
      await team.getByRole('textbox', { name: 'Board name' }).fill('Plans');
      await team.getByRole('button', { name: 'Create board' }).click();
      await page.getByRole('heading', { name: 'Plans' }).waitFor();
      const plansId = page.url().split('/boards/')[1]?.split('?')[0] ?? '';
      const { labels } = await api<{ labels: { name: string; color: { name: string } }[] }>('GET', `/api/v1/boards/${plansId}/labels`);
      assert.deepEqual(
        labels.map((label) => [label.name, label.color.name]),
        ['green', 'yellow', 'orange', 'red', 'purple', 'blue'].map((colour) => ['', colour]),
      );
      await page.goBack();
      await team.getByRole('link', { name: 'Plans', exact: true }).waitFor();
      await team.getByRole('textbox', { name: 'Board name' }).fill('Leftovers');
      await team.getByRole('button', { name: 'Create board' }).click();
      await page.getByRole('heading', { name: 'Leftovers' }).waitFor();
      await page.goBack();
      await team.getByRole('link', { name: 'Leftovers', exact: true }).waitFor();

      await team.getByRole('button', { name: 'Rename Plans' }).click();
      await team.getByRole('textbox', { name: 'Board name' }).first().fill('Team plans');
      await team.getByRole('textbox', { name: 'Board name' }).first().press('Enter');
      await team.getByRole('link', { name: 'Team plans', exact: true }).waitFor();
      await team.getByRole('button', { name: 'Archive Leftovers' }).click();
      await team.getByRole('link', { name: 'Leftovers', exact: true }).waitFor({ state: 'detached' });
      await axe(page, 'the boards page');
      const { boards } = await api<{ boards: { name: string }[] }>('GET', `/api/v1/boards?teamId=${suite.t.tenant.teamId}`);
      const names = boards.map((board) => board.name);
      assert.ok(names.includes('Team plans') && !names.includes('Plans') && !names.includes('Leftovers'), names.join(', '));

      await team.getByRole('link', { name: 'Team plans', exact: true }).click();
      await page.getByRole('heading', { name: 'Team plans' }).waitFor();
      const boardPath = new URL(page.url()).pathname;
      // opening the app again at `/` goes back to that board
      await page.goto('/');
      await page.waitForURL(`**${boardPath}`);
      await page.getByRole('heading', { name: 'Team plans' }).waitFor();
    });
  });
});
