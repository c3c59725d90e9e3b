/**
 * The card dialog for people who do not use a mouse or do not see the screen: axe finds no serious
 * or critical violation with every section open (light and dark, wide and narrow), and a keyboard
 * alone opens a card, renames it, adds a checklist item, comments and closes.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from '@playwright/test';
import { ARTIFACTS, chromiumMissing } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

// page.evaluate's callbacks run in the page (the suite's own type check has no DOM library)
declare const document: { activeElement: { getAttribute(name: string): string | null; textContent: string | null } | null };

/** Presses Tab until the focused element's name starts with `name` (or it is the card `cardId`): a person tabbing to it. */
async function tabTo(page: Page, name: string, cardId?: string, limit = 80) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      return { name: element?.getAttribute('aria-label') ?? element?.textContent ?? '', card: element?.getAttribute('data-card-id') };
    });
    if (cardId ? focused.card === cardId : focused.name.startsWith(name)) return;
  }
  assert.fail(`${name} was not reached by Tab`);
}

describe('the card dialog without a mouse', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  let cardId: string;
  before(async () => {
    f = await cardDialogFixture();
    cardId = await f.newCard('Launch');
    const label = (await f.api('POST', `/api/v1/boards/${f.boardId}/labels`, { name: 'Bug', color: '000000000000000000000004' })).label as { _id: string };
    await f.api('POST', `/v2/cards/${cardId}/labels`, { labels: [label._id] });
    await f.api('POST', `/v2/cards/${cardId}/members`, { members: [f.alice.userId] });
    const checklist = (await f.api('POST', `/api/v1/cards/${cardId}/checklists`, { name: 'Steps' })).checklist as { _id: string };
    await f.api('POST', `/api/v1/checklists/${checklist._id}/items`, { name: 'Write', members: [f.alice.userId] });
    const comment = (await f.api('POST', `/api/v1/cards/${cardId}/comments`, { content: 'Looks **good**' }, f.alice.apiKey)).comment as { _id: string };
    await f.api('POST', `/api/v1/comments/${comment._id}/discussions`, { content: 'Thanks' });
    await f.api('POST', `/api/v1/comments/${comment._id}/cheers`, { content: '👍' });
    await f.api('POST', `/api/v1/cards/${cardId}/attachments`, { url: 'https://example.com/spec', name: 'Spec' });
  });
  after(() => f?.dispose());

  test('axe: no serious or critical violation with every section open', async (context) => {
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Launch');
      await dialog.getByRole('article', { name: 'Comment by Alice Author' }).waitFor();
      await dialog.getByText('Details of Write').click();
      await dialog.getByText('Actions of checklist Steps').click();
      await dialog.getByRole('button', { name: 'Edit description' }).click();
      await dialog.getByRole('textbox', { name: 'Description' }).fill('Some *text*');
      await dialog.getByRole('textbox', { name: 'Write a comment' }).pressSequentially('@a');
      await dialog.getByRole('listbox', { name: 'Team members' }).waitFor();
      await axe(page, 'the card dialog with its checklists, description, comment box and suggestions open');
      await dialog.getByRole('button', { name: 'Reply', exact: true }).click();
      await dialog.getByRole('button', { name: 'Steps, rename' }).click();
      await axe(page, 'the card dialog with a reply box and a rename box open');
      await dialog.getByRole('tab', { name: 'Activity' }).click();
      await dialog.getByRole('tabpanel').getByRole('listitem').first().waitFor();
      await axe(page, 'the card dialog on its activity');
      for (const [button, name] of [
        ['Copy…', 'Copy card Launch'],
        ['Move to another board…', 'Move card Launch to another board'],
      ] as const) {
        await dialog.getByRole('button', { name: button }).click();
        const inner = page.getByRole('dialog', { name });
        await inner.getByRole('combobox').first().waitFor();
        await axe(page, `the dialog ${name}`);
        await inner.getByRole('button', { name: 'Cancel' }).click();
      }
      // dark and narrow, for a person to look at too
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.setViewportSize({ width: 375, height: 812 });
      await axe(page, 'the card dialog, dark, 375 px');
      await page.screenshot({ path: join(ARTIFACTS, 'card-dialog-dark-375.png') });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1440, height: 900 });
      await dialog.getByRole('tab', { name: 'Comments' }).click();
      await page.screenshot({ path: join(ARTIFACTS, 'card-dialog-light-1440.png') });
    });
  });

  test('keyboard only: open, rename, add a checklist item, comment, close', async (context) => {
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      await page.goto(`/boards/${f.boardId}`);
      await page.getByRole('region', { name: 'To do', exact: true }).waitFor();
      await tabTo(page, 'the card Launch', cardId);
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Launch' });
      await dialog.waitFor();

      await tabTo(page, 'Launch, rename');
      await page.keyboard.press('Enter');
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type('Launch plan');
      await page.keyboard.press('Enter');
      await dialog.getByRole('button', { name: 'Launch plan, rename' }).waitFor();

      await tabTo(page, 'Add an item to Steps');
      await page.keyboard.type('Tell the team');
      await page.keyboard.press('Enter');
      await dialog.getByRole('checkbox', { name: 'Tell the team' }).waitFor();

      await tabTo(page, 'Write a comment');
      await page.keyboard.type('Typed without a mouse');
      await page.keyboard.press('ControlOrMeta+Enter');
      await dialog.getByRole('article').getByText('Typed without a mouse').waitFor();

      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      // focus returns to the card it came from
      await page.waitForFunction(
        () => document.activeElement?.getAttribute('data-card-id') !== null && document.activeElement?.textContent?.startsWith('Launch plan'),
      );

      const card = (await f.api('GET', `/api/v1/cards/${cardId}`)).card as { name: string };
      const checklists = (await f.api('GET', `/api/v1/cards/${cardId}/checklists`)).checklists as { items: { name: string }[] }[];
      const comments = (await f.api('GET', `/api/v1/cards/${cardId}/comments`)).comments as { content: string }[];
      assert.equal(card.name, 'Launch plan');
      assert.deepEqual(
        checklists[0]?.items.map((item) => item.name),
        ['Write', 'Tell the team'],
      );
      assert.equal(comments.at(-1)?.content, 'Typed without a mouse');
    });
  });
});
