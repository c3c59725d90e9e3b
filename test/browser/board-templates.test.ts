/**
 * Board templates in the web app (docs/web-app.md, "Board templates"): the board menu makes a
 * template of the board; the boards page makes a new board from it, which opens with the template's
 * lists, labels, custom fields and rules; the team's templates are listed there and can be deleted.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, boardSuite } from './board-support.ts';

type Json = Record<string, any>;

describe('board templates in the web app', { skip: chromiumMissing }, () => {
  const suite = boardSuite();

  test('make a template from a board, then a new board from it with its lists, labels, fields and rules', async (context) => {
    const { api } = suite;
    const { boardId, listIds } = await suite.makeBoard('Sprint 1', { 'To do': ['Write tests'], Doing: [], Done: [] });
    const colours = (await api<{ colors: { _id: string }[] }>('GET', '/api/v1/label-colors')).colors;
    const { label } = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Blocked', color: colours[3]?._id });
    await api('POST', `/api/v1/boards/${boardId}/custom-fields`, { name: 'Estimate', type: 'number', unit: 'h', showOnCard: true });
    await api('POST', `/api/v1/boards/${boardId}/rules`, {
      name: 'Move done cards',
      trigger: { type: 'card.moved.into', list: listIds.get('Done') },
      actions: [
        { type: 'complete', status: true },
        { type: 'labels.remove', labels: [label._id] },
      ],
    });

    await suite.onPage(context.name, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await page.getByRole('region', { name: 'To do', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Board menu' }).click();
      await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Make a template from this board' }).click();
      const dialog = page.getByRole('dialog', { name: 'Make a template from Sprint 1' });
      await dialog.getByRole('heading', { name: 'Make a board template' }).waitFor();
      await axe(page, 'the make-a-template dialog');
      const name = dialog.getByRole('textbox', { name: 'Template name' });
      assert.equal(await name.inputValue(), 'Sprint 1', "the board's name to start with");
      await name.fill('Sprint');
      await dialog.getByRole('textbox', { name: 'Description (optional)' }).fill('Two weeks, three lists');
      await dialog.getByRole('button', { name: 'Save template' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Template “Sprint” saved.' }).waitFor();
      const holds = dialog.getByRole('region', { name: 'It holds' });
      assert.deepEqual(await holds.getByRole('definition').allInnerTexts(), ['3', '1', '1', '1']);
      await axe(page, 'what the new template holds');
      await dialog.getByRole('button', { name: 'Close' }).last().click();
      await dialog.waitFor({ state: 'detached' });

      // the boards page: the team's templates, and a new board from one
      await page.goto('/boards');
      const templates = page.getByRole('group').filter({ hasText: 'Board templates (1)' });
      await page.getByText('Board templates (1)').click();
      await templates.getByText('Lists: 3 · Labels: 1 · Fields: 1 · Rules: 1').waitFor();
      await axe(page, 'the boards page with a template');
      await page.getByRole('textbox', { name: 'Board name' }).first().fill('Sprint 2');
      await page.getByRole('combobox', { name: 'Template' }).first().selectOption({ label: 'Sprint' });
      await page.getByRole('button', { name: 'Create board' }).first().click();
      await page.getByRole('heading', { name: 'Sprint 2', level: 1 }).waitFor();
      for (const list of ['To do', 'Doing', 'Done']) await page.getByRole('region', { name: list, exact: true }).waitFor();
      assert.equal(await page.getByRole('button', { name: /Write tests/ }).count(), 0, 'no cards come along');

      // its rule, naming the new board's lists and labels, on its Rules page
      await page.getByRole('button', { name: 'Board menu' }).click();
      await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Rules', exact: true }).click();
      const rules = page.getByRole('dialog', { name: /Rules/ });
      await rules.getByRole('heading', { name: 'Move done cards' }).waitFor();
      await rules.getByText(/Done/).first().waitFor();
      await rules
        .getByText(/Blocked/)
        .first()
        .waitFor();

      const newBoardId = new URL(page.url()).pathname.split('/')[2] as string;
      assert.notEqual(newBoardId, boardId);
      const labels = (await api<{ labels: Json[] }>('GET', `/api/v1/boards/${newBoardId}/labels`)).labels;
      const fields = (await api<{ customFields: Json[] }>('GET', `/api/v1/boards/${newBoardId}/custom-fields`)).customFields;
      const made = (await api<{ rules: Json[] }>('GET', `/api/v1/boards/${newBoardId}/rules`)).rules;
      const lists = (await api<{ board: { lists: Json[] } }>('GET', `/api/v1/boards/${newBoardId}`)).board.lists;
      assert.deepEqual(
        labels.map((one) => one.name),
        ['Blocked'],
      );
      assert.deepEqual(
        fields.map((one) => [one.name, one.unit]),
        [['Estimate', 'h']],
      );
      assert.deepEqual(made[0]?.trigger, { type: 'card.moved.into', list: lists.find((one) => one.name === 'Done')?._id });
      assert.deepEqual(made[0]?.actions[1], { type: 'labels.remove', labels: [labels[0]?._id] });
    });
  });
});
