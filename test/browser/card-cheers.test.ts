/**
 * Cheers in the card dialog: on the card, a comment, a reply and an attachment; add and remove
 * one's own, and see who cheered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

interface CheerRecord {
  content: string;
  creator: { _id: string };
}

describe('cheers in the card dialog', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  test('on the card, a comment, a reply and an attachment: add, see who, remove', async (context) => {
    const cardId = await f.newCard('Launch');
    const comment = (await f.api('POST', `/api/v1/cards/${cardId}/comments`, { content: 'Shipped' }, f.alice.apiKey)).comment as { _id: string };
    await f.api('POST', `/api/v1/comments/${comment._id}/discussions`, { content: 'Nice' }, f.alice.apiKey);
    await f.api('POST', `/api/v1/cards/${cardId}/attachments`, { url: 'https://example.com/spec', name: 'Spec' });
    await f.api('POST', `/api/v1/cards/${cardId}/cheers`, { content: '🎉' }, f.alice.apiKey);
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Launch');
      const me = (await f.api('GET', '/api/v1/me')).user as { _id: string };
      const cardCheers = dialog.getByRole('group', { name: 'Cheers on Launch' });
      // Alice's cheer shows with her name
      await cardCheers.getByRole('button', { name: '🎉 1, cheered by Alice Author', pressed: false }).waitFor();

      // one's own cheer: on, then off
      await cardCheers.getByRole('button', { name: 'Cheer 👍' }).click();
      await cardCheers.getByRole('button', { name: '👍 1, cheered by Olive Owner', pressed: true }).waitFor();
      await cardCheers.getByRole('button', { name: '🎉 1, cheered by Alice Author' }).click();
      await cardCheers.getByRole('button', { name: '🎉 2, cheered by Alice Author, Olive Owner', pressed: true }).waitFor();
      const card = (await f.api('GET', `/api/v1/cards/${cardId}`)).card as { cheers: CheerRecord[] };
      assert.deepEqual(card.cheers.map((cheer) => [cheer.content, cheer.creator._id === me._id]).sort(), [
        ['🎉', false],
        ['🎉', true],
        ['👍', true],
      ]);
      await cardCheers.getByRole('button', { name: '👍 1, cheered by Olive Owner' }).click();
      await cardCheers.getByRole('button', { name: 'Cheer 👍', pressed: false }).waitFor();

      // a comment, its reply and an attachment
      for (const what of ['Comment by Alice Author', 'Reply by Alice Author', 'Spec']) {
        const group = dialog.getByRole('group', { name: `Cheers on ${what}`, exact: true });
        await group.getByRole('button', { name: 'Cheer 🚀' }).click();
        await group.getByRole('button', { name: '🚀 1, cheered by Olive Owner', pressed: true }).waitFor();
      }
      const comments = (await f.api('GET', `/api/v1/cards/${cardId}/comments`)).comments as {
        cheers: CheerRecord[];
        discussions: { cheers: CheerRecord[] }[];
      }[];
      assert.deepEqual(
        comments[0]?.cheers.map((cheer) => cheer.content),
        ['🚀'],
      );
      assert.deepEqual(
        comments[0]?.discussions[0]?.cheers.map((cheer) => cheer.content),
        ['🚀'],
      );
      const attachments = ((await f.api('GET', `/api/v1/cards/${cardId}`)).card as { attachments: { cheers: CheerRecord[] }[] }).attachments;
      assert.deepEqual(
        attachments[0]?.cheers.map((cheer) => cheer.content),
        ['🚀'],
      );
      // and off again on the reply
      const reply = dialog.getByRole('group', { name: 'Cheers on Reply by Alice Author', exact: true });
      await reply.getByRole('button', { name: '🚀 1, cheered by Olive Owner' }).click();
      await reply.getByRole('button', { name: 'Cheer 🚀' }).waitFor();
    });
  });

  test('where no font draws the emoji, the palette shows icons and keeps the emoji names', async (context) => {
    const cardId = await f.newCard('No emoji font');
    const { context: browserContext, page } = await f.open();
    // A canvas on which nothing is ever drawn: what the page sees on a machine without an emoji font.
    await page.addInitScript({
      content: 'CanvasRenderingContext2D.prototype.getImageData = (x, y, w, h) => new ImageData(Math.max(1, Math.abs(w)), Math.max(1, Math.abs(h)));',
    });
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'No emoji font');
      const cheers = dialog.getByRole('group', { name: 'Cheers on No emoji font' });
      for (const emoji of ['👍', '🎉', '❤️', '🚀']) {
        const button = cheers.getByRole('button', { name: `Cheer ${emoji}` });
        await button.locator(`svg[data-emoji="${emoji}"]`).waitFor();
        assert.equal(await button.getByText(emoji).count(), 0, `${emoji} is not drawn as a character`);
      }
      await cheers.getByRole('button', { name: 'Cheer 👍' }).click();
      await cheers.getByRole('button', { name: '👍 1, cheered by Olive Owner', pressed: true }).locator('svg').waitFor();
    });
  });
});
