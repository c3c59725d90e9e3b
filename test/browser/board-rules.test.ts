/**
 * The Rules page (docs/web-app.md, "Rules"): a rule built in words from the board's lists and
 * labels, tried on the cards (the dry run), saved, seen acting live in a second browser when a card
 * is moved into its list, its runs' history read; switched off, renamed and deleted. The rule worker
 * runs as in production: woken by the commit, no tick from the test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { apiCaller, axe, cardIn, makeBoard } from './board-support.ts';

describe('the Rules page', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL = '';
  const api = apiCaller(
    () => baseURL,
    () => t.tenant.apiKey,
  );

  before(async () => {
    t = await buildTestApp('sqlite', { config: { rules: { pollMs: 200, actionsPerHour: 1000 } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  test('builds a rule in words, sees it act in another browser, reads its runs', async (context) => {
    const { boardId, cards } = await makeBoard(api, t.tenant.teamId, 'Launch', { 'To do': ['Ship it', 'Write notes'], Doing: [], Done: [] });
    const colour = (await api<{ colors: { _id: string }[] }>('GET', '/api/v1/label-colors')).colors[0]?._id;
    const { label } = await api<{ label: { _id: string } }>('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Doing', color: colour });
    const shipIt = cards.get('Ship it') as string;
    await api('POST', `/v2/cards/${shipIt}/labels`, { labels: [label._id] });
    await api('PATCH', `/api/v1/cards/${shipIt}`, { dueDate: '2031-05-01T12:00:00.000Z' });

    const contexts: [string, BrowserContext, Page][] = [];
    const open = async (name: string) => {
      const browserContext = await contextWithKey(browser, baseURL, t.tenant.apiKey, { viewport: { width: 1280, height: 900 } });
      const page = await browserContext.newPage();
      contexts.push([name, browserContext, page]);
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Ship it').filter({ hasText: 'Doing' }).waitFor();
      return page;
    };
    const openRules = async (page: Page) => {
      await page.getByRole('button', { name: 'Board menu' }).click();
      await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Rules', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Rules of Launch' });
      await dialog.waitFor();
      return dialog;
    };
    let failed = true;
    try {
      const editor = await open('editor');
      const watcher = await open('watcher');

      const dialog = await openRules(editor);
      await dialog.getByText('This board has no rules yet.').waitFor();
      await axe(editor, 'the Rules page');
      await dialog.getByRole('button', { name: 'New rule' }).click();
      const form = dialog.getByRole('form', { name: 'New rule' });
      await form.getByLabel('Name of the rule').fill('Move done cards');
      const when = form.getByRole('group', { name: 'When' });
      await when.getByRole('combobox', { name: 'What happens' }).selectOption({ label: 'a card is moved into' });
      await when.getByRole('combobox', { name: 'List' }).selectOption({ label: 'Done' });
      await form.getByRole('combobox', { name: 'Action 1' }).selectOption({ label: 'mark it complete' });
      await form.getByRole('button', { name: 'Add an action' }).click();
      await form.getByRole('combobox', { name: 'Action 2' }).selectOption({ label: 'remove the label' });
      await form.getByRole('group', { name: 'Action 2' }).getByRole('combobox', { name: 'Label' }).selectOption({ label: 'Doing' });
      const sentence = 'When a card is moved into Done, mark it complete and remove the label Doing.';
      await form.getByRole('region', { name: 'The rule reads' }).getByText(sentence).waitFor();

      // the dry run: what the actions would do to the open cards now, the cards untouched
      await form.getByRole('button', { name: 'Try it on the cards now' }).click();
      const dryRun = form.getByRole('region', { name: 'What it would do now' });
      await dryRun.getByText('2 open cards meet the conditions:').waitFor();
      await dryRun.getByRole('listitem').filter({ hasText: 'Ship it: mark it complete; remove the label Doing' }).waitFor();
      await dryRun.getByRole('listitem').filter({ hasText: 'Write notes: mark it complete' }).waitFor();
      await axe(editor, 'the rule editor with a dry run');
      const before = (await api<{ card: { labels: { _id: string }[] } }>('GET', `/api/v1/cards/${shipIt}`)).card;
      assert.deepEqual(
        before.labels.map((one) => one._id),
        [label._id],
      );

      await form.getByRole('button', { name: 'Save rule' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Rule Move done cards saved.' }).waitFor();
      const row = dialog.getByRole('listitem').filter({ has: editor.getByRole('heading', { name: 'Move done cards' }) });
      await row.getByText(sentence).waitFor();
      assert.equal(await row.getByRole('switch', { name: 'Rule Move done cards is on' }).isChecked(), true);

      // the editor moves the card into Done; the watcher's board shows the rule's work without a reload
      await editor.keyboard.press('Escape');
      await cardIn(editor, 'To do', 'Ship it').click();
      const card = editor.getByRole('dialog', { name: 'Ship it' });
      await card.getByRole('button', { name: 'Move…' }).click();
      const moveDialog = editor.getByRole('dialog', { name: 'Move card Ship it' });
      await moveDialog.getByRole('combobox', { name: 'List' }).selectOption({ label: 'Done' });
      await moveDialog.getByRole('button', { name: 'Move', exact: true }).click();
      const moved = cardIn(watcher, 'Done', 'Ship it');
      await moved.filter({ hasText: '(complete)' }).filter({ hasNotText: 'Doing' }).waitFor();
      const saved = (await api<{ card: { labels: { _id: string }[]; complete: { status: boolean } } }>('GET', `/api/v1/cards/${shipIt}`)).card;
      assert.deepEqual([saved.labels, saved.complete.status], [[], true]);

      // the runs' history: one run, done, on the card, with its two changes
      await editor.keyboard.press('Escape');
      const again = await openRules(editor);
      await again.getByRole('button', { name: 'History of Move done cards' }).click();
      const runs = again.getByRole('region', { name: 'Runs' });
      const run = runs.getByRole('listitem');
      await run.filter({ hasText: 'Done' }).filter({ hasText: 'on Ship it' }).filter({ hasText: '2 changes' }).waitFor();
      assert.equal(await run.count(), 1);
      await axe(editor, 'the Rules page with a history');

      // switched off, renamed, deleted
      const switchedOff = editor.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes('/api/v1/rules/'));
      await again.getByRole('switch', { name: 'Rule Move done cards is on' }).uncheck();
      assert.equal((await switchedOff).status(), 200);
      assert.equal((await api<{ rules: { enabled: boolean }[] }>('GET', `/api/v1/boards/${boardId}/rules`)).rules[0]?.enabled, false);
      await again.getByRole('button', { name: 'Edit rule Move done cards' }).click();
      const edit = again.getByRole('form', { name: 'Edit rule Move done cards' });
      await edit.getByLabel('Name of the rule').fill('Finish cards in Done');
      await edit.getByRole('button', { name: 'Save rule' }).click();
      await again.getByRole('heading', { name: 'Finish cards in Done' }).waitFor();
      editor.once('dialog', (confirm) => void confirm.accept());
      await again.getByRole('button', { name: 'Delete rule Finish cards in Done' }).click();
      await again.getByText('This board has no rules yet.').waitFor();
      assert.deepEqual((await api<{ rules: unknown[] }>('GET', `/api/v1/boards/${boardId}/rules`)).rules, []);
      failed = false;
    } finally {
      for (const [name, browserContext, page] of contexts) {
        await keepFailure(`${context.name} (${name})`, browserContext, page, failed);
        await browserContext.close();
      }
    }
  });

  test('a paused rule shows why', async () => {
    const { boardId, listIds } = await makeBoard(api, t.tenant.teamId, 'Paused', { Inbox: ['Letter'], Gone: [] });
    const { rule } = await api<{ rule: { _id: string } }>('POST', `/api/v1/boards/${boardId}/rules`, {
      name: 'File letters',
      trigger: { type: 'card.created' },
      actions: [{ type: 'move', list: listIds.get('Gone'), position: 'top' }],
    });
    // the list the rule moves to is deleted: the next run fails and pauses the rule with the reason
    await api('DELETE', `/api/v1/lists/${listIds.get('Gone')}`);
    await api('POST', '/api/v1/cards', { list: listIds.get('Inbox'), name: 'Parcel' });
    const browserContext = await contextWithKey(browser, baseURL, t.tenant.apiKey, { viewport: { width: 1280, height: 900 } });
    const page = await browserContext.newPage();
    let failed = true;
    try {
      await page.goto(`/boards/${boardId}`);
      await page.getByRole('button', { name: 'Board menu' }).click();
      await page.getByRole('dialog', { name: 'Board menu' }).getByRole('button', { name: 'Rules', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Rules of Paused' });
      await dialog.getByText(/^Paused: an action failed/).waitFor();
      assert.equal(await dialog.getByRole('switch', { name: 'Rule File letters is on' }).isChecked(), false);
      await dialog.getByRole('button', { name: 'History of File letters' }).click();
      await dialog.getByRole('region', { name: 'Runs' }).getByRole('listitem').filter({ hasText: 'Failed' }).waitFor();
      const switchedOn = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes('/api/v1/rules/'));
      await dialog.getByRole('switch', { name: 'Rule File letters is on' }).check();
      assert.equal((await switchedOn).status(), 200);
      await dialog.getByText(/^Paused:/).waitFor({ state: 'detached' });
      assert.equal((await api<{ rule: { enabled: boolean; pausedReason: null } }>('GET', `/api/v1/rules/${rule._id}`)).rule.pausedReason, null);
      failed = false;
    } finally {
      await keepFailure('a paused rule shows why', browserContext, page, failed);
      await browserContext.close();
    }
  });
});
