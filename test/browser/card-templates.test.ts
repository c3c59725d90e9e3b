/**
 * Card templates in the web app (docs/web-app.md, "Card templates"): a card made a template from its
 * dialog shows the badge; another list's add-card form makes a card from it, named as typed, with
 * the template's labels and checklists, and not a template itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, boardSuite, cardIn } from './board-support.ts';

type Json = Record<string, any>;

describe('card templates in the web app', { skip: chromiumMissing }, () => {
  const suite = boardSuite();

  test('make a template from a card, then a card from the template', async (context) => {
    const { api } = suite;
    const { boardId, cards, listIds } = await suite.makeBoard('Support', { Inbox: ['Bug report'], Triage: ['Known issue'] });
    const template = cards.get('Bug report') as string;
    const colour = (await api<{ colors: { _id: string }[] }>('GET', '/api/v1/label-colors')).colors[0]?._id;
    const { label } = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Bug', color: colour });
    await api('POST', `/v2/cards/${template}/labels`, { labels: [label._id] });
    await api('POST', `/api/v1/cards/${template}/checklists`, { name: 'Steps' });

    await suite.onPage(context.name, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'Inbox', 'Bug report').click();
      const dialog = page.getByRole('dialog', { name: 'Bug report' });
      const saved = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().endsWith(`/api/v1/cards/${template}`));
      // the box follows the saved card (the dialog's fields are the card as written)
      await dialog.getByRole('checkbox', { name: 'Template of this board' }).click();
      assert.equal((await saved).status(), 200);
      await dialog.getByRole('checkbox', { name: 'Template of this board', checked: true }).waitFor();
      await page.keyboard.press('Escape');
      await cardIn(page, 'Inbox', 'Bug report').filter({ hasText: 'Template' }).waitFor();
      assert.equal((await api<{ card: Json }>('GET', `/api/v1/cards/${template}`)).card.isTemplate, true);

      // another list's composer makes a card from it
      await page.getByRole('button', { name: 'Add a card to Triage' }).click();
      const triage = page.getByRole('region', { name: 'Triage', exact: true });
      await triage.getByRole('group', { name: 'From a template' }).waitFor();
      await axe(page, 'the add-card form with a template');
      await triage.getByRole('textbox', { name: 'Card name' }).fill('Login fails');
      await triage.getByRole('button', { name: 'Create from template Bug report' }).click();
      await cardIn(page, 'Triage', 'Login fails').filter({ hasText: 'Bug' }).waitFor();
      assert.equal(await cardIn(page, 'Triage', 'Login fails').filter({ hasText: 'Template' }).count(), 0);

      const board = (await api<{ board: { lists: { name: string; cards: Json[] }[] } }>('GET', `/api/v1/boards/${boardId}/card-faces`)).board;
      const made = board.lists.find((list) => list.name === 'Triage')?.cards.find((card) => card.name === 'Login fails');
      assert.ok(made, 'the card made from the template');
      assert.deepEqual([made.list, made.isTemplate, made.labels], [listIds.get('Triage'), false, [label._id]]);
      const checklists = (await api<{ checklists: Json[] }>('GET', `/api/v1/cards/${made._id}/checklists`)).checklists;
      assert.deepEqual(
        checklists.map((one) => one.name),
        ['Steps'],
      );
    });
  });

  test('a template of another board of the team, in the add-card form', async (context) => {
    const { api } = suite;
    const colour = (await api<{ colors: { _id: string }[] }>('GET', '/api/v1/label-colors')).colors[0]?._id;
    const support = await suite.makeBoard('Help desk', { Forms: ['Incident report'] });
    const ops = await suite.makeBoard('Ops', { Queue: [] });
    const template = support.cards.get('Incident report') as string;
    const { label } = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${support.boardId}/labels`, { name: 'Incident', color: colour });
    const { label: theirs } = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${ops.boardId}/labels`, { name: 'Incident', color: colour });
    await api('POST', `/v2/cards/${template}/labels`, { labels: [label._id] });
    await api('PATCH', `/api/v1/cards/${template}`, { isTemplate: true });

    await suite.onPage(context.name, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await page.goto(`/boards/${ops.boardId}`);
      await page.getByRole('button', { name: 'Add a card to Queue' }).click();
      const queue = page.getByRole('region', { name: 'Queue', exact: true });
      const group = queue.getByRole('group', { name: 'From a template' });
      await group.waitFor();
      await axe(page, "the add-card form with a template of the team's other board");
      await group.getByRole('combobox', { name: 'Template' }).selectOption({ label: 'Incident report' });
      await queue.getByRole('textbox', { name: 'Card name' }).fill('Disk full');
      await queue.getByRole('button', { name: 'Create from template Incident report' }).click();
      await cardIn(page, 'Queue', 'Disk full').filter({ hasText: 'Incident' }).waitFor();
      const made = (await api<{ board: { lists: { cards: Json[] }[] } }>('GET', `/api/v1/boards/${ops.boardId}/card-faces`)).board.lists[0]?.cards[0];
      assert.deepEqual([made?.name, made?.labels, made?.isTemplate], ['Disk full', [theirs._id], false]);
    });
  });
});
