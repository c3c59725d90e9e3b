/**
 * Attachments in the card dialog: upload by the file picker, by dropping files and by pasting;
 * progress and cancel of a slow upload; rename, download, delete; image thumbnails sized by the
 * browser and loaded lazily.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';
import { png } from '../support/images.ts';

// page.evaluate's callbacks run in the page (the suite's own type check has no DOM library)
declare const DataTransfer: new () => { items: { add(file: unknown): void } };
declare const ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;

interface AttachmentRecord {
  _id: string;
  name: string;
  mimeType: string;
  size: number;
  isDeleted: boolean;
}

describe('attachments in the card dialog', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  const live = async (cardId: string) =>
    ((await f.api('GET', `/api/v1/cards/${cardId}`)).card as { attachments: AttachmentRecord[] }).attachments.filter((one) => !one.isDeleted);

  test('picker, drop, paste; progress and cancel; rename, download, delete; thumbnails', async (context) => {
    const cardId = await f.newCard('Launch');
    const { context: browserContext, page } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Launch');
      const section = dialog.getByRole('region', { name: 'Attachments' });
      const list = section.getByRole('list').last();

      // the picker: a text file and an image
      await section.getByLabel('Attach a file').setInputFiles([
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from the picker') },
        { name: 'photo.png', mimeType: 'image/png', buffer: png(400, 300) },
      ]);
      await section.getByText('notes.txt', { exact: true }).waitFor();
      await section.getByText('photo.png', { exact: true }).waitFor();
      // the image shows as a thumbnail the browser scales into its box, loaded when in view
      const thumbnail = list.locator('img');
      await thumbnail.waitFor();
      assert.deepEqual(
        [await thumbnail.getAttribute('width'), await thumbnail.getAttribute('height'), await thumbnail.getAttribute('loading')],
        ['80', '60', 'lazy'],
      );
      await page.waitForFunction(() => {
        const img = (
          globalThis as unknown as { document: { querySelector(s: string): { complete: boolean; naturalWidth: number } | null } }
        ).document.querySelector('.attachment img');
        return img?.complete && img.naturalWidth === 400;
      });
      const box = await thumbnail.boundingBox();
      assert.deepEqual([box?.width, box?.height], [80, 60], 'drawn at the box size, whatever the file');

      // dropping a file on the section
      const dropped = await page.evaluateHandle(() => {
        const data = new DataTransfer();
        data.items.add(new File(['dropped bytes'], 'dropped.txt', { type: 'text/plain' }));
        return data;
      });
      await section.dispatchEvent('dragover', { dataTransfer: dropped });
      await section.dispatchEvent('drop', { dataTransfer: dropped });
      await section.getByText('dropped.txt', { exact: true }).waitFor();

      // pasting a file anywhere in the dialog
      await dialog.getByRole('textbox', { name: 'Write a comment' }).focus();
      await page.evaluate(() => {
        const data = new DataTransfer();
        data.items.add(new File(['pasted bytes'], 'pasted.txt', { type: 'text/plain' }));
        const doc = (globalThis as unknown as { document: { activeElement: { dispatchEvent(e: unknown): void } } }).document;
        doc.activeElement.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      });
      await section.getByText('pasted.txt', { exact: true }).waitFor();
      assert.deepEqual((await live(cardId)).map((one) => [one.name, one.size]).sort(), [
        ['dropped.txt', 13],
        ['notes.txt', 21],
        ['pasted.txt', 12],
        ['photo.png', png(400, 300).length],
      ]);

      // a slow upload shows its progress, and Cancel stops it: nothing is stored
      const cdp = await browserContext.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
      await section
        .getByLabel('Attach a file')
        .setInputFiles([{ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(8 * 1024 * 1024, 7) }]);
      const progress = section.getByRole('progressbar', { name: 'Uploading big.bin' });
      await progress.waitFor();
      // the page stays responsive meanwhile: the comment box takes typing
      await dialog.getByRole('textbox', { name: 'Write a comment' }).fill('typing while it uploads');
      await page.waitForFunction(() => {
        const bar = (globalThis as unknown as { document: { querySelector(s: string): { value: number } | null } }).document.querySelector('.uploads progress');
        return (bar?.value ?? 0) > 0;
      });
      await section.getByRole('button', { name: 'Cancel upload of big.bin' }).click();
      await progress.waitFor({ state: 'detached' });
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      assert.equal((await live(cardId)).length, 4, 'a cancelled upload stores nothing');

      // rename
      const notes = list.getByRole('listitem').filter({ hasText: 'notes.txt' });
      await notes.getByRole('button', { name: 'Rename notes.txt' }).click();
      await notes.getByRole('textbox', { name: 'Attachment name' }).fill('Meeting notes');
      await notes.getByRole('textbox', { name: 'Attachment name' }).press('Enter');
      const meeting = list.getByRole('listitem').filter({ hasText: 'Meeting notes' });
      await meeting.waitFor();

      // download: the file as uploaded, under its original name
      const [download] = await Promise.all([page.waitForEvent('download'), meeting.getByRole('button', { name: 'Download Meeting notes' }).click()]);
      assert.equal(download.suggestedFilename(), 'notes.txt');
      const path = await download.path();
      const { readFile } = await import('node:fs/promises');
      assert.equal(await readFile(path, 'utf8'), 'hello from the picker');

      // delete (confirmed)
      await meeting.getByRole('button', { name: 'Delete Meeting notes' }).click();
      await meeting.waitFor({ state: 'detached' });
      assert.deepEqual((await live(cardId)).map((one) => one.name).sort(), ['dropped.txt', 'pasted.txt', 'photo.png']);
      await page.getByRole('button', { name: /^Launch.*3 attachments/ }).waitFor();
    });
  });
});
