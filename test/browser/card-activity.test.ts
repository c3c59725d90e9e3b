/**
 * The card's activity in the dialog: the activity read, newest first, in words, with who did it;
 * a change made while it is open comes in live.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

describe('the activity of a card in its dialog', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  test('newest first, in words, live', async (context) => {
    const cardId = await f.newCard('Launch');
    const alice = f.alice.apiKey;
    const label = (await f.api('POST', `/api/v1/boards/${f.boardId}/labels`, { name: 'Bug', color: '000000000000000000000004' })).label as { _id: string };
    await f.api('PATCH', `/api/v1/cards/${cardId}/position`, { list: f.lists.doing, position: 0 }, alice);
    await f.api('POST', `/v2/cards/${cardId}/labels`, { labels: [label._id] }, alice);
    await f.api('POST', `/api/v1/cards/${cardId}/comments`, { content: 'On it' }, alice);
    await f.api('PATCH', `/api/v1/cards/${cardId}`, { complete: { status: true } }, alice);
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Launch');
      await dialog.getByRole('tab', { name: 'Activity' }).click();
      const entries = dialog.getByRole('tabpanel').getByRole('listitem');
      await entries.first().waitFor();
      const sentences = async () => (await entries.allTextContents()).map((text) => text.replace(/\s+\S+ \d+, \d{4}.*$/, ''));
      assert.deepEqual(await sentences(), [
        'Alice Author marked this card complete',
        'Alice Author commented',
        'Alice Author added the label Bug',
        'Alice Author moved this card from To do to Doing',
        'You added this card to To do',
      ]);

      // live: a change by someone else while the activity is open
      await f.api('POST', `/v2/cards/${cardId}/members`, { members: [f.alice.userId] }, alice);
      await entries.first().filter({ hasText: 'Alice Author joined this card' }).waitFor();
      // and one's own, from the dialog
      await dialog.getByRole('button', { name: 'Launch, rename' }).click();
      await dialog.getByRole('textbox', { name: 'Card name' }).fill('Launch v2');
      await dialog.getByRole('textbox', { name: 'Card name' }).press('Enter');
      await entries.first().filter({ hasText: 'You renamed this card to "Launch v2"' }).waitFor();
    });
  });
});
