/**
 * Pages that tell a person what is going on and what to do next: a board of a team they are not in
 * (not shared, whom to ask), a board that is not theirs to know of (not found), a company where they
 * are in no team, a team with no boards and a board with no lists, a list with no card matching the
 * filter. Each found by role and name, with axe.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumMissing, contextWithKey, keepFailure } from '../support/browser.ts';
import { addMember, addTeam } from '../support/fixtures.ts';
import { otherCompany } from '../support/harness.ts';
import { axe, boardSuite } from './board-support.ts';

describe('what a page says when there is nothing to show', { skip: chromiumMissing }, () => {
  const suite = boardSuite();

  /** A page of its own context signed in with `key`. */
  async function asPerson(name: string, key: string, run: (page: import('@playwright/test').Page) => Promise<void>) {
    const context = await contextWithKey(suite.browser, suite.baseURL, key);
    const page = await context.newPage();
    let failed = true;
    try {
      await run(page);
      failed = false;
    } finally {
      await keepFailure(name, context, page, failed);
      await context.close();
    }
  }

  test('a member of the company is told the board is not shared with them and whom to ask; a stranger, not found', async (context) => {
    const { boardId } = await suite.makeBoard('Secret roadmap', { Todo: ['One'] });
    const mia = await addMember(suite.t.services, { companyId: suite.t.tenant.companyId, email: 'mia@acme.test', fullName: 'Mia Member' });
    await asPerson(`${context.name}-member`, mia.apiKey, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await page.getByRole('heading', { name: 'This board is not shared with you' }).waitFor();
      await page.getByText('It belongs to the team Core of Acme').waitFor();
      await page.getByRole('list', { name: 'Whom to ask' }).getByRole('listitem').filter({ hasText: 'Olive Owner' }).waitFor();
      await axe(page, 'the not shared page');
      await page.getByRole('link', { name: 'Back to boards' }).click();
      // Mia is in no team: the boards page says what to do
      await page.getByRole('heading', { name: 'No team yet' }).waitFor();
      await page.getByText('Ask an owner or admin of Acme to add you to a team').waitFor();
      await axe(page, 'the boards page of a member in no team');
    });
    const stranger = await otherCompany(suite.t);
    await asPerson(`${context.name}-stranger`, stranger.apiKey, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await page.getByRole('heading', { name: 'Board not found' }).waitFor();
      await page.getByRole('link', { name: 'Back to boards' }).waitFor();
      await axe(page, 'the board not found page');
    });
  });

  test('a new company, a team with no boards and a board with no lists say what to do next', async () => {
    await suite.api('POST', '/api/v1/companies', { name: 'Fresh Co' });
    await addTeam(suite.t.services, suite.t.tenant.companyId, 'Empty team', [suite.t.tenant.userId]);
    const { boardId } = await suite.makeBoard('Blank board', {});
    await suite.onPage('empty states', {}, async (page) => {
      await page.goto('/boards');
      const fresh = page.getByRole('region', { name: 'Company Fresh Co' });
      await fresh.getByRole('heading', { name: 'No team yet' }).waitFor();
      await fresh.getByRole('link', { name: 'Create team' }).waitFor();
      await fresh.getByRole('link', { name: 'Invite people' }).waitFor();
      await page.getByText('No boards in Empty team yet. Name one below to start').waitFor();
      await axe(page, 'the boards page with empty states');

      await page.goto(`/boards/${boardId}`);
      const first = page.getByRole('textbox', { name: 'Add your first list' });
      await first.waitFor();
      await page.getByText('Lists are the steps your cards go through').waitFor();
      await first.fill('To do');
      await first.press('Enter');
      await page.getByRole('region', { name: 'To do', exact: true }).waitFor();
      await axe(page, 'a board with no lists');
    });
  });

  test('a filter says how many cards of each list match, and "No matching cards" where none does', async () => {
    const { boardId } = await suite.makeBoard('Filtered', { Todo: ['Alpha fix', 'Beta', 'Gamma'], Doing: ['Delta'] });
    await suite.onPage('filter counts', {}, async (page) => {
      await page.goto(`/boards/${boardId}`);
      const todo = page.getByRole('region', { name: 'Todo', exact: true });
      const doing = page.getByRole('region', { name: 'Doing', exact: true });
      await todo.getByLabel('3 cards', { exact: true }).waitFor();
      await page.getByRole('searchbox', { name: 'Filter cards' }).fill('Alpha');
      await todo.getByLabel('1 of 3 cards matches the filter').waitFor();
      assert.equal(await todo.getByLabel('1 of 3 cards matches the filter').textContent(), '1 of 3');
      await doing.getByText('No matching cards').waitFor();
      assert.equal(await doing.getByLabel('0 of 1 cards match the filter').textContent(), '0 of 1');
      await axe(page, 'a board with a filter on');
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await doing.getByLabel('1 card', { exact: true }).waitFor();
      assert.equal(await doing.getByText('No matching cards').count(), 0);
    });
  });
});
