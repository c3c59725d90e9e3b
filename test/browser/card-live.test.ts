/**
 * Two people with the same card open: a comment, a cheer, a checklist change and an attachment
 * made in one dialog appear in the other's without a reload (the board's stream carries the events;
 * the dialog reads its parts again). On SQLite and PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import type { Locator } from '@playwright/test';
import { chromiumMissing } from '../support/browser.ts';
import { type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';
import { ENGINES } from '../support/harness.ts';

for (const engine of ENGINES) {
  describe(`the card dialog live across two browsers [${engine}]`, { skip: chromiumMissing }, () => {
    let f: CardDialogFixture;
    before(async () => {
      f = await cardDialogFixture(engine);
    });
    after(() => f?.dispose());

    test('comment, cheer, checklist item and attachment show in the other dialog without a reload', async (context) => {
      const cardId = await f.newCard('Launch');
      const a = await f.open();
      const b = await f.open(f.alice.apiKey);
      await keeping(`${context.name}-a`, a.context, a.page, async () => {
        await keeping(`${context.name}-b`, b.context, b.page, async () => {
          // both streams open before the first change (a stream starts from now)
          const streams = [a.page, b.page].map((page) =>
            page.waitForResponse((response) => response.url().endsWith(`/boards/${f.boardId}/events?presence=true`)),
          );
          const mine = await f.openCard(a.page, cardId, 'Launch');
          const theirs = await f.openCard(b.page, cardId, 'Launch');
          await Promise.all(streams);
          // A first change seen in both dialogs: both streams are live (an answered request may still be subscribing).
          await f.api('POST', `/api/v1/cards/${cardId}/checklists`, { name: 'Steps' });
          await Promise.all([mine, theirs].map((dialog) => dialog.getByRole('textbox', { name: 'Add an item to Steps' }).waitFor()));

          /** The change shows here (its write is done), then there without a reload (how fast is for npm run bench:web). */
          async function seen(here: Locator, there: Locator) {
            await here.waitFor();
            await there.waitFor();
          }

          await mine.getByRole('textbox', { name: 'Write a comment' }).fill('Live hello');
          await mine.getByRole('button', { name: 'Comment', exact: true }).click();
          await seen(mine.getByRole('article').getByText('Live hello'), theirs.getByRole('article').getByText('Live hello'));

          await mine.getByRole('group', { name: 'Cheers on Launch' }).getByRole('button', { name: 'Cheer 🎉' }).click();
          const cheer = { name: '🎉 1, cheered by Olive Owner' };
          await seen(mine.getByRole('button', cheer), theirs.getByRole('button', cheer));

          await mine.getByRole('textbox', { name: 'Add an item to Steps' }).fill('Tell the world');
          await mine.getByRole('textbox', { name: 'Add an item to Steps' }).press('Enter');
          const item = { name: 'Tell the world' };
          await seen(mine.getByRole('checkbox', item), theirs.getByRole('checkbox', item));
          await mine.getByRole('checkbox', item).check();
          await seen(mine.getByRole('progressbar', { name: 'Steps: 1 of 1 done' }), theirs.getByRole('progressbar', { name: 'Steps: 1 of 1 done' }));

          await mine.getByLabel('Attach a file').setInputFiles([{ name: 'live.txt', mimeType: 'text/plain', buffer: Buffer.from('live') }]);
          await seen(mine.getByText('live.txt', { exact: true }), theirs.getByText('live.txt', { exact: true }));
        });
      });
    });
  });
}
