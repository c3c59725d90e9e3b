/**
 * Comments in the card dialog: newest first with "Load more" over the API's cursors, writing in
 * Markdown with `@name` suggestions of the team, replies, and editing and deleting one's own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing, holdRequests, until } from '../support/browser.ts';
import { type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

interface CommentRecord {
  _id: string;
  content: string;
  creator: { fullName: string };
  discussions: { content: string }[];
}

describe('comments in the card dialog', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  const commentsOf = async (cardId: string) => (await f.api('GET', `/api/v1/cards/${cardId}/comments?limit=200`)).comments as CommentRecord[];

  test('a comment being written stays when the board behind the dialog changes', async (context) => {
    const cardId = await f.newCard('Draft');
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      // A read of the card's face (the board's, after the dialog marks the card seen, when the
      // stream is open by then) comes after the draft has begun; then the board behind changes.
      const release = await holdRequests(page, `**/api/v1/cards/${cardId}/face`);
      const dialog = await f.openCard(page, cardId, 'Draft');
      const box = dialog.getByRole('textbox', { name: 'Write a comment' });
      await box.fill('Half a thought');
      release();
      await f.newCard('Made elsewhere');
      await page.getByText('Made elsewhere', { exact: true }).waitFor({ state: 'attached' });
      assert.equal(await box.inputValue(), 'Half a thought', 'the draft is kept');
    });
  });

  test('newest first with Load more; write with @mentions and Markdown; reply; edit and delete one’s own', async (context) => {
    const cardId = await f.newCard('Launch');
    for (let i = 1; i <= 25; i++) await f.api('POST', `/api/v1/cards/${cardId}/comments`, { content: `Note ${i}` }, i % 2 ? f.alice.apiKey : f.t.tenant.apiKey);
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Launch');
      const articles = dialog.getByRole('article', { name: /^Comment by/ });
      await articles.first().getByText('Note 25').waitFor();
      assert.equal(await articles.count(), 20, 'one page of 20');
      const shown = async () => (await articles.allInnerTexts()).map((text) => /Note \d+/.exec(text)?.[0]);
      assert.deepEqual((await shown()).slice(0, 3), ['Note 25', 'Note 24', 'Note 23']);
      await dialog.getByRole('button', { name: 'Load more comments' }).click();
      await articles.nth(24).waitFor();
      assert.deepEqual(
        await shown(),
        Array.from({ length: 25 }, (_, i) => `Note ${25 - i}`),
      );
      await dialog.getByRole('button', { name: 'Load more comments' }).waitFor({ state: 'detached' });

      // write: @ suggests the team, Enter takes the name; Markdown renders, raw HTML does not
      const box = dialog.getByRole('textbox', { name: 'Write a comment' });
      await box.click();
      await box.pressSequentially('Thanks @al');
      const suggestions = dialog.getByRole('listbox', { name: 'Team members' });
      await suggestions.getByRole('option', { name: 'Alice Author', selected: true }).waitFor();
      await box.press('Enter');
      await suggestions.waitFor({ state: 'detached' });
      assert.equal(await box.inputValue(), 'Thanks @AliceAuthor ');
      await box.pressSequentially('for the **review** <b>raw</b>');
      await dialog.getByRole('group', { name: 'Preview' }).getByText('review').waitFor();
      await dialog.getByRole('button', { name: 'Comment', exact: true }).click();
      const mine = articles.first();
      // the handle shows as a chip with the person's name (docs/decisions/0250-mentions.md)
      await mine.getByRole('link', { name: '@Alice Author' }).waitFor();
      assert.match((await mine.locator('.markdown p').first().textContent()) ?? '', /^Thanks @Alice Author for the review/);
      assert.equal(await mine.locator('strong').textContent(), 'review');
      assert.equal(await mine.locator('b').count(), 0, 'raw HTML is not rendered');
      assert.equal(await box.inputValue(), '', 'the box empties once sent');
      assert.equal((await commentsOf(cardId)).at(-1)?.content, 'Thanks @AliceAuthor for the **review** <b>raw</b>');

      // only one's own comments offer Edit and Delete
      const alices = articles.filter({ hasText: 'Note 25' });
      assert.equal(await alices.getByRole('button', { name: 'Edit', exact: true }).count(), 0);

      // edit one's own
      await mine.getByRole('button', { name: 'Edit', exact: true }).click();
      await mine.getByRole('textbox', { name: 'Edit comment' }).fill('Thanks for the review');
      await mine.getByRole('button', { name: 'Save' }).click();
      // the editor (and its preview) closes once saved: then the comment shows the new words
      await mine.getByRole('textbox', { name: 'Edit comment' }).waitFor({ state: 'detached' });
      await mine.getByText('Thanks for the review').waitFor();

      // a reply under Alice's comment
      await alices.getByRole('button', { name: 'Reply', exact: true }).click();
      await alices.getByRole('textbox', { name: 'Write a reply' }).fill('Agreed');
      await alices.getByRole('button', { name: 'Reply', exact: true }).click();
      const reply = alices.getByRole('article', { name: 'Reply by Olive Owner' });
      await reply.getByText('Agreed').waitFor();
      const stored = (await commentsOf(cardId)).find((comment) => comment.content === 'Note 25');
      assert.deepEqual(
        stored?.discussions.map((discussion) => discussion.content),
        ['Agreed'],
      );

      // delete one's reply, then one's comment: gone at once, each with Undo; the comment undone
      // comes back with nothing lost; the deletes go to the server when their toasts close
      const toasts = dialog.getByRole('region', { name: /Notifications/ });
      await reply.getByRole('button', { name: 'Delete', exact: true }).click();
      await reply.waitFor({ state: 'detached' });
      await toasts.getByRole('listitem').filter({ hasText: 'Reply deleted.' }).getByRole('button', { name: 'Close' }).click();
      await until(async () => (await commentsOf(cardId)).every((comment) => comment.discussions.length === 0), 'the reply deleted');
      await mine.getByRole('button', { name: 'Delete', exact: true }).click();
      await dialog.getByText('Thanks for the review').waitFor({ state: 'detached' });
      const commentToast = toasts.getByRole('listitem').filter({ hasText: 'Comment deleted.' });
      // by keyboard: F8 reaches the toasts, Tab the Undo
      await page.keyboard.press('F8');
      const undo = commentToast.getByRole('button', { name: 'Undo' });
      for (let tries = 0; tries < 5 && !(await undo.evaluate((element) => element === element.ownerDocument.activeElement)); tries++)
        await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await dialog.getByText('Thanks for the review').waitFor();
      await mine.getByRole('button', { name: 'Delete', exact: true }).click();
      await dialog.getByText('Thanks for the review').waitFor({ state: 'detached' });
      await commentToast.getByRole('button', { name: 'Close' }).click();
      await until(async () => (await commentsOf(cardId)).length === 25, 'the comment deleted');
      const left = await commentsOf(cardId);
      assert.equal(left.length, 25);
      assert.ok(left.every((comment) => comment.discussions.length === 0));
      // the board's card counts them
      await page.getByRole('button', { name: /^Launch.*25 comments/ }).waitFor();
    });
  });
});
