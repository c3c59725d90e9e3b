/**
 * The board menu in a real browser: labels (create, rename, recolour, delete with a confirmation that
 * counts the cards carrying it), archived cards and lists (restore; an archived card deleted,
 * confirmed), renaming the board, deleting it (owners and admins only, confirmed with its lists and
 * cards), and a team's archived boards on the boards page. Accessibility scans of every dialog.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Locator, Page } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure } from '../support/browser.ts';
import { addMember, type MemberFixture } from '../support/fixtures.ts';
import { apiCaller, axe, boardSuite, cardIn } from './board-support.ts';

// evaluate's callbacks run in the page (the suite's own type check has no DOM library)
type Animatable = { getAnimations(): { finished: Promise<unknown> }[] };
type Colour = { _id: string; name: string; hex: string };
type LabelRecord = { _id: string; name: string; color: Colour };

/** Accepts the next confirmation the page asks, and gives its words once asked. */
function acceptNext(page: Page): () => string {
  let asked = '';
  page.once('dialog', (dialog) => {
    asked = dialog.message();
    void dialog.accept();
  });
  return () => asked;
}

/** axe on an open dialog once its opening animation has ended (a half-faded dialog fails the contrast rule). */
async function axeDialog(page: Page, dialog: Locator, what: string) {
  await dialog.evaluate((element) => Promise.all((element as unknown as Animatable).getAnimations().map((animation) => animation.finished)));
  await axe(page, what);
}

/** Opens the board menu and picks `item`. */
async function menu(page: Page, item: string) {
  await page.getByRole('button', { name: 'Board menu' }).click();
  await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: item, exact: true }).click();
}

describe('the board menu: labels, archived items, settings, deletion; archived boards', { skip: chromiumMissing }, () => {
  const suite = boardSuite();
  const { api, onPage, makeBoard } = suite;
  let colours: Colour[] = [];
  let member: MemberFixture;

  before(async () => {
    colours = (await api<{ colors: Colour[] }>('GET', '/api/v1/label-colors')).colors;
    member = await addMember(suite.t.services, {
      companyId: suite.t.tenant.companyId,
      teamIds: [suite.t.tenant.teamId],
      email: 'mo@acme.test',
      fullName: 'Mo Member',
    });
  });

  test('labels: create, rename and recolour, delete confirmed with the cards that carry it', async (context) => {
    const { boardId, cards } = await makeBoard('Labelled', { 'To do': ['Login bug', 'Docs'], Done: ['Old bug'] });
    const [first, second] = colours;
    assert.ok(first && second);
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Login bug').waitFor();
      await menu(page, 'Labels');
      const dialog = page.getByRole('dialog', { name: 'Labels of Labelled' });
      await dialog.getByText('This board has no labels yet.').waitFor();
      await axeDialog(page, dialog, 'the labels dialog');

      const form = dialog.getByRole('form', { name: 'New label' });
      await form.getByLabel('Label name').fill('Bug');
      await form.getByRole('radio', { name: second.name }).check();
      await form.getByRole('button', { name: 'Create label' }).click();
      await dialog.getByRole('button', { name: 'Edit label Bug' }).waitFor();
      const [bug] = (await api<{ labels: LabelRecord[] }>('GET', `/api/v1/boards/${boardId}/labels`)).labels;
      assert.ok(bug);
      assert.deepEqual([bug.name, bug.color._id], ['Bug', second._id]);

      // two cards carry it, one of them archived: both are counted
      await api('POST', `/v2/cards/${cards.get('Login bug')}/labels`, { labels: [bug._id] });
      await api('POST', `/v2/cards/${cards.get('Old bug')}/labels`, { labels: [bug._id] });
      await api('PATCH', `/api/v1/cards/${cards.get('Old bug')}/archive`, {});
      await dialog.getByText('on 2 cards').waitFor();

      await dialog.getByRole('button', { name: 'Edit label Bug' }).click();
      const editor = dialog.getByRole('form', { name: 'Edit label Bug' });
      await editor.getByLabel('Label name').fill('Defect');
      await editor.getByRole('radio', { name: first.name }).check();
      await axeDialog(page, dialog, 'the labels dialog editing a label');
      await editor.getByRole('button', { name: 'Save' }).click();
      await dialog.getByRole('button', { name: 'Edit label Defect' }).waitFor();
      const renamed = (await api<{ labels: LabelRecord[] }>('GET', `/api/v1/boards/${boardId}/labels`)).labels[0];
      assert.deepEqual([renamed?.name, renamed?.color._id], ['Defect', first._id]);
      // the card on the board shows the new name
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await cardIn(page, 'To do', 'Login bug').filter({ hasText: 'Defect' }).waitFor();

      await menu(page, 'Labels');
      await dialog.getByText('on 2 cards').waitFor();
      const asked = acceptNext(page);
      await dialog.getByRole('button', { name: 'Delete label Defect' }).click();
      await dialog.getByText('This board has no labels yet.').waitFor();
      assert.equal(asked(), 'Delete the label "Defect"? It is taken off the 2 cards that carry it.');
      assert.deepEqual((await api<{ labels: LabelRecord[] }>('GET', `/api/v1/boards/${boardId}/labels`)).labels, []);
      const card = await api<{ card: { labels: unknown[] } }>('GET', `/api/v1/cards/${cards.get('Old bug')}`);
      assert.deepEqual(card.card.labels, []);
    });
  });

  test('archived items: a card and a list restored, an archived card deleted (confirmed)', async (context) => {
    const { boardId, cards, listIds } = await makeBoard('Attic', { 'To do': ['Keep', 'Back again', 'Gone for good'], Later: ['Someday'] });
    await api('PATCH', `/api/v1/cards/${cards.get('Back again')}/archive`, {});
    await api('PATCH', `/api/v1/cards/${cards.get('Gone for good')}/archive`, {});
    await api('PATCH', `/api/v1/lists/${listIds.get('Later')}/archive`);
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Keep').waitFor();
      await menu(page, 'Archived items');
      const dialog = page.getByRole('dialog', { name: 'Archived items of Attic' });
      const archivedCards = dialog.getByRole('list', { name: 'Archived cards' });
      await archivedCards.getByRole('listitem').filter({ hasText: 'Back again' }).getByText('in To do').waitFor();
      await dialog.getByRole('list', { name: 'Archived lists' }).getByRole('listitem').filter({ hasText: 'Later' }).getByText('1 card').waitFor();
      await axeDialog(page, dialog, 'the archived items dialog');

      await dialog.getByRole('button', { name: 'Restore card Back again' }).click();
      await dialog.getByRole('button', { name: 'Restore card Back again' }).waitFor({ state: 'detached' });
      await cardIn(page, 'To do', 'Back again').waitFor();
      assert.equal((await api<{ card: { archived: { status: boolean } } }>('GET', `/api/v1/cards/${cards.get('Back again')}`)).card.archived.status, false);

      await dialog.getByRole('button', { name: 'Restore list Later' }).click();
      await dialog.getByText('No archived lists.').waitFor();
      await cardIn(page, 'Later', 'Someday').waitFor();

      const asked = acceptNext(page);
      await dialog.getByRole('button', { name: 'Delete card Gone for good' }).click();
      await dialog.getByText('No archived cards.').waitFor();
      assert.equal(asked(), 'Delete the card "Gone for good"? This cannot be undone.');
      const response = await fetch(`${suite.baseURL}/api/v1/cards/${cards.get('Gone for good')}`, {
        headers: { Authorization: `Bearer ${suite.t.tenant.apiKey}` },
      });
      assert.equal(response.status, 404);
    });
  });

  test('settings: the board renamed; deleted by its owner with its lists and cards named', async (context) => {
    const { boardId, cards } = await makeBoard('Doomed', { 'To do': ['One', 'Two'], Doing: ['Three'] });
    await api('PATCH', `/api/v1/cards/${cards.get('Two')}/archive`, {});
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'One').waitFor();
      await menu(page, 'Settings');
      const dialog = page.getByRole('dialog', { name: /^Settings of / });
      await axeDialog(page, dialog, 'the board settings dialog');
      await dialog.getByLabel('Board name').fill('Condemned');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Condemned', level: 1 }).waitFor();
      assert.equal((await api<{ board: { name: string } }>('GET', `/api/v1/boards/${boardId}/lists`)).board.name, 'Condemned');

      const asked = acceptNext(page);
      await dialog.getByRole('button', { name: 'Delete board' }).click();
      await page.waitForURL(/\/boards$/);
      assert.equal(asked(), 'Delete the board "Condemned" and its 2 lists and 3 cards? This cannot be undone.');
      const response = await fetch(`${suite.baseURL}/api/v1/boards/${boardId}`, { headers: { Authorization: `Bearer ${suite.t.tenant.apiKey}` } });
      assert.equal(response.status, 404);
      await page.getByRole('heading', { name: 'Boards', level: 1 }).waitFor();
      assert.equal(await page.getByRole('main').getByRole('link', { name: 'Condemned' }).count(), 0);
    });
  });

  test('a member of the company is offered no board deletion', async (context) => {
    const { boardId } = await makeBoard('Not yours', { 'To do': ['Look'] });
    const browserContext = await contextWithKey(suite.browser, suite.baseURL, member.apiKey, { viewport: { width: 1280, height: 800 } });
    const page = await browserContext.newPage();
    let failed = true;
    try {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Look').waitFor();
      await page.getByRole('button', { name: 'Board menu' }).click();
      const boardMenu = page.getByRole('dialog', { name: 'Board menu' });
      await boardMenu.getByRole('button', { name: 'Settings', exact: true }).waitFor();
      assert.equal(await boardMenu.getByRole('button', { name: 'Delete board' }).count(), 0);
      await boardMenu.getByRole('button', { name: 'Settings', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings of Not yours' });
      await dialog.getByLabel('Board name').waitFor();
      assert.equal(await dialog.getByRole('button', { name: 'Delete board' }).count(), 0);
      // and the API agrees: a member's deletion is refused
      const asMember = apiCaller(
        () => suite.baseURL,
        () => member.apiKey,
      );
      await assert.rejects(asMember('DELETE', `/api/v1/boards/${boardId}`), /403/);
      failed = false;
    } finally {
      await keepFailure(context.name, browserContext, page, failed);
      await browserContext.close();
    }
  });

  test('archived boards on the boards page: restored, and one deleted (confirmed)', async (context) => {
    const { boardId: shelved } = await makeBoard('Shelved', { 'To do': ['Waiting'] });
    const { boardId: scrapped } = await makeBoard('Scrapped', { Ideas: ['Never'] });
    await api('PATCH', `/api/v1/boards/${shelved}/archive`);
    await api('PATCH', `/api/v1/boards/${scrapped}/archive`);
    await onPage(context.name, { viewport: { width: 1280, height: 800 } }, async (page) => {
      await page.goto('/boards');
      const team = page.getByRole('region', { name: 'Core' });
      await team.getByText('Archived boards (2)').click();
      const archived = team.getByRole('list', { name: 'Archived boards (2)' });
      await archived.getByRole('link', { name: 'Shelved' }).waitFor();
      assert.equal(
        await team
          .getByRole('listitem')
          .filter({ has: page.getByRole('link', { name: 'Shelved', exact: true }) })
          .count(),
        1,
      );
      await axe(page, 'the boards page with archived boards open');

      await team.getByRole('button', { name: 'Restore board Shelved' }).click();
      await team.getByText('Archived boards (1)').waitFor();
      await team.getByRole('button', { name: 'Rename Shelved' }).waitFor();
      assert.equal((await api<{ board: { archived: { status: boolean } } }>('GET', `/api/v1/boards/${shelved}/lists`)).board.archived.status, false);

      const asked = acceptNext(page);
      await team.getByRole('button', { name: 'Delete board Scrapped' }).click();
      await team.getByText('Archived boards (0)').waitFor();
      assert.equal(asked(), 'Delete the board "Scrapped" and its 1 list and 1 card? This cannot be undone.');
      const response = await fetch(`${suite.baseURL}/api/v1/boards/${scrapped}`, { headers: { Authorization: `Bearer ${suite.t.tenant.apiKey}` } });
      assert.equal(response.status, 404);
    });
  });
});
