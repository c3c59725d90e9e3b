/**
 * Card relations in the web app: added in the card dialog by finding a card of another board,
 * shown on both cards, the blocked card's front saying "Blocked" in a second browser at once, and
 * no longer once the relation is removed or its blocker archived.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';
import { cardIn } from './board-support.ts';

describe('card relations in the web app', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  test('relate a card to one of another board, see it on both and on the blocked front live, remove it', async (context) => {
    const ship = await f.newCard('Ship it');
    const docs = await f.newCard('Write the docs');
    const ops = ((await f.api('POST', `/api/v1/boards?teamId=${f.t.tenant.teamId}`, { name: 'Ops' })).board as { _id: string })._id;
    const inbox = ((await f.api('POST', '/api/v1/lists', { board: ops, name: 'Inbox' })).list as { _id: string })._id;
    const review = ((await f.api('POST', '/api/v1/cards', { list: inbox, name: 'Security review' })).card as { _id: string })._id;

    const watcher = await f.open(f.alice.apiKey);
    const editor = await f.open();
    await keeping(`${context.name} (watcher)`, watcher.context, watcher.page, async () => {
      await keeping(context.name, editor.context, editor.page, async () => {
        const { page } = editor;
        await watcher.page.goto(`/boards/${f.boardId}`);
        await cardIn(watcher.page, 'To do', 'Ship it').waitFor();

        const dialog = await f.openCard(page, ship, 'Ship it');
        const section = dialog.getByRole('region', { name: 'Relations' });
        await section.getByText('No relations yet.').waitFor();
        await section.getByRole('button', { name: 'Add relation' }).click();
        const form = section.getByRole('group', { name: 'Add relation' });
        await form.getByLabel('This card').selectOption({ label: 'is blocked by' });
        await form.getByRole('combobox', { name: 'Card to relate' }).fill('Security');
        await form.getByRole('option', { name: /Security review/ }).waitFor();
        await axe(page, 'the card dialog adding a relation');
        await form.getByRole('combobox', { name: 'Card to relate' }).press('ArrowDown');
        await form.getByRole('combobox', { name: 'Card to relate' }).press('Enter');

        const blockedBy = section.getByRole('list', { name: 'Blocked by' });
        await blockedBy.getByRole('link', { name: 'Security review' }).waitFor();
        await blockedBy.getByText('Ops · Inbox').waitFor();
        await axe(page, 'the card dialog with relations');

        // the blocked card's front says so, in the other browser too, without a reload
        await cardIn(watcher.page, 'To do', 'Ship it').filter({ hasText: 'Blocked' }).waitFor();
        // what a screen reader hears names the blocker
        await watcher.page.getByRole('button', { name: /^Ship it.*Blocked by Security review/ }).waitFor();

        // the other side shows it from its side
        const other = (await f.api('GET', `/api/v1/cards/${review}/relations`)).relations as { kind: string; card: { name: string } }[];
        assert.deepEqual(
          other.map((relation) => [relation.kind, relation.card.name]),
          [['blocks', 'Ship it']],
        );

        // removed in the dialog: gone from both cards and from the front
        await blockedBy.getByRole('button', { name: 'Remove relation to Security review' }).click();
        await section.getByText('No relations yet.').waitFor();
        await cardIn(watcher.page, 'To do', 'Ship it').filter({ hasText: 'Blocked' }).waitFor({ state: 'detached' });
        assert.deepEqual((await f.api('GET', `/api/v1/cards/${review}/relations`)).relations, []);
        await page.keyboard.press('Escape');

        // a blocker on the same board: blocked while it is open, no longer once archived
        await f.api('POST', `/api/v1/cards/${docs}/relations`, { kind: 'blocks', card: ship });
        await cardIn(watcher.page, 'To do', 'Ship it').filter({ hasText: 'Blocked' }).waitFor();
        await f.api('PATCH', `/api/v1/cards/${docs}/archive`, {});
        await cardIn(watcher.page, 'To do', 'Ship it').filter({ hasText: 'Blocked' }).waitFor({ state: 'detached' });
      });
    });
  });
});
