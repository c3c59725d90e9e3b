/**
 * Text that looks like HTML in a card's description and comments shows as written in the browser,
 * inside code and outside it; a script or an event handler written in it never runs (the page's
 * CSP stays as it is, and nothing is rendered as HTML anyway).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

const TRAPS = '<script>window.ranScript = true</script>\n\n<img src="x" onerror="window.ranHandler = true">';

describe('HTML-looking text in Markdown', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  let cardId: string;
  before(async () => {
    f = await cardDialogFixture();
    cardId = await f.newCard('Components');
    await f.api('PATCH', `/api/v1/cards/${cardId}`, { description: `Use the <Button> component, not \`<button>\`.\n\n${TRAPS}` });
    await f.api('POST', `/api/v1/cards/${cardId}/comments`, { content: `Wrap it in <Tooltip> **first**.\n\n${TRAPS}` });
  });
  after(() => f?.dispose());

  test('shows it as written, escaped, and runs nothing', async (context) => {
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Components');
      await dialog.getByText('Use the <Button> component, not').waitFor();
      await dialog.getByRole('code').filter({ hasText: '<button>' }).first().waitFor();
      await dialog.getByText('<script>window.ranScript = true</script>').first().waitFor();
      const comment = dialog.getByRole('article', { name: /^Comment by/ });
      await comment.getByText('Wrap it in <Tooltip>').waitFor();
      await comment.getByRole('strong').filter({ hasText: 'first' }).waitFor();
      await comment.getByText('<img src="x" onerror="window.ranHandler = true">').waitFor();
      // typed into the preview too
      await dialog.getByRole('textbox', { name: 'Write a comment' }).fill('Try <Select> here');
      await dialog.getByRole('group', { name: 'Preview' }).getByText('Try <Select> here').waitFor();
      const ran = await page.evaluate(() => {
        const seen = globalThis as unknown as { ranScript?: boolean; ranHandler?: boolean; document: { querySelectorAll(s: string): { length: number } } };
        return {
          script: seen.ranScript ?? false,
          handler: seen.ranHandler ?? false,
          elements: seen.document.querySelectorAll('dialog script, dialog img[onerror]').length,
        };
      });
      assert.deepEqual(ran, { script: false, handler: false, elements: 0 });
    });
  });
});
