/**
 * The card dialog's side column: cover, workload, public flag, the kind of completion, who has seen
 * the card; copy (choosing what to keep), move to another board, unarchive, and delete with a
 * confirmation naming what goes with it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromiumMissing } from '../support/browser.ts';
import { type CardDialogFixture, cardDialogFixture, keeping } from '../support/card-dialog.ts';

interface CardRecord {
  _id: string;
  name: string;
  cover: string;
  board: string;
  list: string;
  isPublic: boolean;
  workload: { value: number | null; measurement: string };
  complete: { status: boolean; type: string };
  members: { fullName: string }[];
  labels: { name: string }[];
  checklists: string[];
  archived: { status: boolean };
}

describe('the side column of the card dialog', { skip: chromiumMissing }, () => {
  let f: CardDialogFixture;
  before(async () => {
    f = await cardDialogFixture();
  });
  after(() => f?.dispose());

  const cardOf = async (cardId: string) => (await f.api('GET', `/api/v1/cards/${cardId}`)).card as CardRecord;

  async function upload(cardId: string, name: string, type: string, bytes: Buffer) {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), name);
    const response = await fetch(`${f.baseURL}/api/v1/cards/${cardId}/attachments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${f.t.tenant.apiKey}` },
      body: form,
    });
    assert.equal(response.status, 201, await response.clone().text());
    return ((await response.json()) as { attachment: { _id: string; url: string } }).attachment;
  }

  test('cover, workload, public, completion, seen by; copy, move elsewhere, unarchive, delete', async (context) => {
    const cardId = await f.newCard('Launch');
    const label = (await f.api('POST', `/api/v1/boards/${f.boardId}/labels`, { name: 'Bug', color: '000000000000000000000004' })).label as { _id: string };
    await f.api('POST', `/v2/cards/${cardId}/labels`, { labels: [label._id] });
    await f.api('POST', `/v2/cards/${cardId}/members`, { members: [f.alice.userId] });
    await f.api('POST', `/api/v1/cards/${cardId}/checklists`, { name: 'Steps' });
    // a 1×1 GIF is enough of an image for a cover
    const image = await upload(cardId, 'cover.gif', 'image/gif', Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'));
    const other = (await f.api('POST', `/api/v1/boards?teamId=${f.t.tenant.teamId}`, { name: 'Other board' })).board as { _id: string };
    const inbox = (await f.api('POST', '/api/v1/lists', { board: other._id, name: 'Inbox' })).list as { _id: string };

    const { context: browserContext, page, confirmations } = await f.open();
    await keeping(context.name, browserContext, page, async () => {
      const dialog = await f.openCard(page, cardId, 'Launch');

      await dialog.getByRole('combobox', { name: 'Cover' }).selectOption({ label: 'cover.gif' });
      // a cover names the image by its URL, as the board's face draws it (docs/decisions/0094)
      await page.locator(`[data-card-id="${cardId}"] img.card-cover`).waitFor({ state: 'attached' });
      await dialog.getByRole('spinbutton', { name: 'Workload estimate' }).fill('5');
      await dialog.getByRole('spinbutton', { name: 'Workload estimate' }).press('Tab');
      await dialog.getByRole('combobox', { name: 'Workload unit' }).selectOption({ label: 'days' });
      // the box shows the card as saved: it is ticked once the save before it and its own are answered
      await dialog.getByRole('checkbox', { name: 'Marked public' }).click();
      await dialog.getByRole('checkbox', { name: 'Marked public', checked: true }).waitFor();
      // the kind of card is chosen in words; the API keeps its word for it
      await dialog.getByRole('combobox', { name: 'This card is' }).selectOption({ label: 'A milestone' });
      await dialog.getByRole('checkbox', { name: 'Marked public', checked: true }).waitFor();
      await page.waitForFunction(
        async (id) => {
          const response = await fetch(`/api/v1/cards/${id}`, {
            headers: {
              Authorization: `Bearer ${(globalThis as unknown as { localStorage: { getItem(k: string): string } }).localStorage.getItem('taskboard.apiKey')}`,
            },
          });
          const { card } = (await response.json()) as { card: CardRecord };
          return card.complete.type === 'milestone' && card.workload.measurement === 'days';
        },
        cardId,
        { polling: 100 },
      );
      const saved = await cardOf(cardId);
      assert.deepEqual(
        [saved.cover, saved.workload, saved.isPublic, saved.complete],
        [image.url, { value: 5, measurement: 'days' }, true, { ...saved.complete, status: false, type: 'milestone' }],
      );

      // who has seen it: me (the dialog read it), then Alice, live
      const seen = dialog.getByRole('region', { name: 'Seen by' });
      await seen.getByText('Olive Owner').waitFor();
      await f.api('GET', `/api/v1/cards/${cardId}`, undefined, f.alice.apiKey);
      await seen.getByText('Olive Owner, Alice Author').waitFor();

      // copy, without its members
      await dialog.getByRole('button', { name: 'Copy…' }).click();
      const copyDialog = page.getByRole('dialog', { name: 'Copy card Launch' });
      assert.equal(await copyDialog.getByRole('textbox', { name: 'Card name' }).inputValue(), 'Launch (copy)');
      await copyDialog.getByRole('combobox', { name: 'List' }).selectOption({ label: 'Doing' });
      await copyDialog.getByRole('checkbox', { name: 'Members' }).uncheck();
      await copyDialog.getByRole('button', { name: 'Copy', exact: true }).click();
      await dialog.getByRole('status').filter({ hasText: 'Launch (copy) copied to Doing.' }).waitFor();
      await page
        .getByRole('region', { name: 'Doing', exact: true })
        .getByRole('button', { name: /^Launch \(copy\)/ })
        .waitFor();
      const board = (await f.api('GET', `/api/v1/boards/${f.boardId}`)).board as { lists: { name: string; cards: CardRecord[] }[] };
      const copy = board.lists.find((list) => list.name === 'Doing')?.cards[0];
      assert.ok(copy);
      assert.deepEqual([copy.name, copy.members.length, copy.labels.map((one) => one.name), copy.checklists.length], ['Launch (copy)', 0, ['Bug'], 1]);

      // move to another board: it leaves this one
      await dialog.getByRole('button', { name: 'Move to another board…' }).click();
      const moveDialog = page.getByRole('dialog', { name: 'Move card Launch to another board' });
      await moveDialog.getByRole('combobox', { name: 'Board' }).selectOption({ label: 'Other board' });
      await moveDialog.getByRole('combobox', { name: 'List' }).selectOption({ label: 'Inbox' });
      await moveDialog.getByRole('button', { name: 'Move', exact: true }).click();
      // by its exact name: the move dialog's name holds the card's too
      await page.getByRole('dialog', { name: 'Launch', exact: true }).waitFor({ state: 'detached' });
      await page.locator(`[data-card-id="${cardId}"]`).waitFor({ state: 'detached' });
      const moved = await cardOf(cardId);
      assert.deepEqual([moved.board, moved.list], [other._id, inbox._id]);

      // an archived card: unarchive it from its dialog, then delete it (confirmed, naming what goes)
      await f.api('POST', `/api/v1/cards/${copy._id}/comments`, { content: 'Keep?' });
      await f.api('PATCH', `/api/v1/cards/${copy._id}/archive`);
      const archived = await f.openCard(page, copy._id, 'Launch (copy)');
      await archived.getByText('This card is archived.').waitFor();
      await archived.getByRole('button', { name: 'Send to board' }).click();
      await archived.getByRole('button', { name: 'Archive card' }).waitFor();
      assert.equal((await cardOf(copy._id)).archived.status, false);
      await page
        .getByRole('region', { name: 'Doing', exact: true })
        .getByRole('button', { name: /^Launch \(copy\)/ })
        .waitFor();
      await archived.getByRole('button', { name: 'Delete card' }).click();
      await archived.waitFor({ state: 'detached' });
      assert.equal(confirmations.at(-1), 'Delete the card "Launch (copy)" with its 1 comment, 1 checklist and 1 attachment? This cannot be undone.');
      await page
        .getByRole('region', { name: 'Doing', exact: true })
        .getByRole('button', { name: /^Launch \(copy\)/ })
        .waitFor({ state: 'detached' });
      const gone = await fetch(`${f.baseURL}/api/v1/cards/${copy._id}`, { headers: { Authorization: `Bearer ${f.t.tenant.apiKey}` } });
      assert.equal(gone.status, 404);
    });
  });
});
