import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ChecklistItem } from '../../src/schemas/checklists.ts';
import { Attachment } from '../../src/schemas/records.ts';
import { buildChecklistApp, type ChecklistWorld } from '../support/checklist-world.ts';
import { multipart } from '../support/fixtures.ts';
import { type Api, apiClient, bearer, ENGINE_STORES, recordingLimiter, type TestApp } from '../support/harness.ts';
import { storedObjects } from '../support/s3.ts';
import { assertSchema } from '../support/schema.ts';
import { tiersOf } from '../support/tiers.ts';

const NOBODY = 'ffffffffffffffffffffffff';

for (const [engine, store] of ENGINE_STORES) {
  describe(`attachments on checklist items [${engine}, ${store}]`, () => {
    let t: TestApp;
    const limiter = recordingLimiter();
    let api: Api;
    let w: ChecklistWorld;
    const content = Buffer.from('item evidence\n'.repeat(100));

    before(async () => ({ t, api, w } = await buildChecklistApp(engine, { store, rateLimiter: limiter, config: { maxUploadBytes: 16 * 1024 } })));
    after(() => t.dispose());

    /** A card with one checklist holding one item. */
    async function setup() {
      const cardId = (await api('POST', '/api/v1/cards', { list: w.listId, name: 'Card' })).json().card._id as string;
      const checklistId = (await api('POST', `/api/v1/cards/${cardId}/checklists`, { name: 'Todo' })).json().checklist._id as string;
      const itemId = (await api('POST', `/api/v1/checklists/${checklistId}/items`, { name: 'Item' })).json().checklistItem._id as string;
      return { cardId, checklistId, itemId };
    }
    function upload(itemId: string, fields: Record<string, string> = {}, key = t.tenant.apiKey, bytes = content) {
      const form = multipart(fields, { filename: 'evidence.txt', contentType: 'text/plain', content: bytes });
      return t.app.inject({
        method: 'POST',
        url: `/api/v1/checklist-items/${itemId}/attachments`,
        headers: { ...bearer(key), ...form.headers },
        payload: form.payload,
      });
    }
    async function versions(ids: { cardId: string; checklistId: string; itemId: string }) {
      const db = t.services.db;
      return {
        card: (await db.selectFrom('cards').select('version').where('id', '=', ids.cardId).executeTakeFirstOrThrow()).version,
        checklist: (await db.selectFrom('checklists').select('version').where('id', '=', ids.checklistId).executeTakeFirstOrThrow()).version,
        item: (await db.selectFrom('checklist_items').select('version').where('id', '=', ids.itemId).executeTakeFirstOrThrow()).version,
      };
    }
    const attachmentRows = (cardId: string) => t.services.db.selectFrom('attachments').selectAll().where('card_id', '=', cardId).orderBy('id').execute();

    it('uploads a file to an item: 201 {message, attachment, checklistItem}; it downloads; the card lists it not', async () => {
      const ids = await setup();
      const before = await versions(ids);
      const res = await upload(ids.itemId, { name: 'Proof' });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      assertSchema(ChecklistItem, body.checklistItem);
      assertSchema(Attachment, body.attachment);
      const { attachment, checklistItem } = body;
      assert.equal(attachment.name, 'Proof');
      assert.equal(attachment.originalName, 'evidence.txt');
      assert.equal(attachment.type, 'file');
      assert.equal(attachment.mimeType, 'text/plain');
      assert.equal(attachment.size, content.length);
      assert.equal(attachment.checklistItem, ids.itemId);
      assert.equal(attachment.card, ids.cardId);
      assert.equal(attachment.isDeleted, false);
      assert.equal(attachment.creator._id, t.tenant.userId);
      assert.deepEqual(checklistItem.attachments, [attachment]);
      assert.equal(checklistItem.__v, 1);
      assert.deepEqual(await versions(ids), { card: before.card + 1, checklist: before.checklist + 1, item: before.item + 1 });

      const download = await api('GET', attachment.url);
      assert.equal(download.statusCode, 200);
      assert.equal(download.headers['content-type'], 'text/plain');
      assert.deepEqual(download.rawPayload, content);
      const card = (await api('GET', `/api/v1/cards/${ids.cardId}`)).json().card;
      assert.deepEqual(card.attachments, [], "an item's attachment is not the card's");
      const got = (await api('GET', `/api/v1/checklist-items/${ids.itemId}`)).json().checklistItem;
      assert.deepEqual(got.attachments, [attachment]);
      const listed = (await api('GET', `/api/v1/cards/${ids.cardId}/checklists`)).json().checklists[0].items[0];
      assert.deepEqual(listed.attachments, [attachment]);
    });

    it('attaches a link from JSON', async () => {
      const ids = await setup();
      const res = await api('POST', `/api/v1/checklist-items/${ids.itemId}/attachments?teamId=${t.tenant.teamId}`, {
        url: 'https://example.com/run/42',
        name: 'CI run',
      });
      assert.equal(res.statusCode, 201, res.body);
      assertSchema(ChecklistItem, res.json().checklistItem);
      assert.equal(res.json().attachment.type, 'link');
      assert.equal(res.json().attachment.url, 'https://example.com/run/42');
      assert.equal(res.json().attachment.name, 'CI run');
      assert.deepEqual(
        res.json().checklistItem.attachments.map((a: { _id: string }) => a._id),
        [res.json().attachment._id],
      );
    });

    it('renames and deletes an item attachment: answers the item; a deleted one leaves it but keeps its file', async () => {
      const ids = await setup();
      const { attachment } = (await upload(ids.itemId)).json();
      let before = await versions(ids);
      const renamed = await api('PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`, { name: ' Renamed.txt ' });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(typeof renamed.json().message, 'string');
      assertSchema(ChecklistItem, renamed.json().checklistItem);
      const shown = renamed.json().checklistItem.attachments[0];
      assert.equal(shown.name, 'Renamed.txt');
      assert.equal(shown.__v, attachment.__v + 1);
      assert.deepEqual(await versions(ids), { card: before.card + 1, checklist: before.checklist + 1, item: before.item + 1 });
      const event = await t.services.db
        .selectFrom('events')
        .select('data')
        .where('card_id', '=', ids.cardId)
        .where('type', '=', 'attachment.renamed')
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(event.data), {
        attachment: attachment._id,
        checklist: ids.checklistId,
        checklistItem: ids.itemId,
        fields: ['name'],
        before: { name: attachment.name },
        after: { name: 'Renamed.txt' },
      });

      before = await versions(ids);
      const deleted = await api('DELETE', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`);
      assert.equal(deleted.statusCode, 200, deleted.body);
      assertSchema(ChecklistItem, deleted.json().checklistItem);
      assert.deepEqual(deleted.json().checklistItem.attachments, []);
      assert.deepEqual(await versions(ids), { card: before.card + 1, checklist: before.checklist + 1, item: before.item + 1 });
      const [row] = await attachmentRows(ids.cardId);
      assert.equal(row?.is_deleted, 1);
      assert.ok(await t.services.files.exists(row?.storage_key as string), 'the file stays until the purge');
      assert.equal((await api('GET', attachment.url)).statusCode, 404);
      assert.equal((await api('PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`, { name: 'x' })).statusCode, 404);
      assert.equal((await api('DELETE', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`)).statusCode, 404);
    });

    it("keeps the parents apart: an item's attachment is not reachable through the card or another item, nor the card's through an item", async () => {
      const ids = await setup();
      const sibling = (await api('POST', `/api/v1/checklists/${ids.checklistId}/items`, { name: 'Sibling' })).json().checklistItem._id;
      const onItem = (await upload(ids.itemId)).json().attachment;
      const onCard = (await api('POST', `/api/v1/cards/${ids.cardId}/attachments`, { url: 'https://example.com/c' })).json().attachment;
      const before = await attachmentRows(ids.cardId);
      for (const [method, url] of [
        ['PATCH', `/api/v1/cards/${ids.cardId}/attachments/${onItem._id}`],
        ['DELETE', `/api/v1/cards/${ids.cardId}/attachments/${onItem._id}`],
        ['PATCH', `/api/v1/checklist-items/${sibling}/attachments/${onItem._id}`],
        ['DELETE', `/api/v1/checklist-items/${sibling}/attachments/${onItem._id}`],
        ['PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/${onCard._id}`],
        ['DELETE', `/api/v1/checklist-items/${ids.itemId}/attachments/${onCard._id}`],
        ['PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/${NOBODY}`],
      ] as ['PATCH' | 'DELETE', string][]) {
        const res = await api(method, url, method === 'PATCH' ? { name: 'moved' } : undefined);
        assert.equal(res.statusCode, 404, `${method} ${url}`);
      }
      assert.deepEqual(await attachmentRows(ids.cardId), before);
    });

    it('deleting the item, or its checklist, marks its attachments deleted and keeps their files for the purge', async () => {
      const ids = await setup();
      const { attachment } = (await upload(ids.itemId)).json();
      const res = await api('DELETE', `/api/v1/checklist-items/${ids.itemId}`);
      assert.equal(res.statusCode, 200, res.body);
      const [row] = await attachmentRows(ids.cardId);
      assert.equal(row?.id, attachment._id);
      assert.equal(row?.is_deleted, 1);
      assert.equal(row?.checklist_item_id, null);
      assert.ok(row?.deleted_at);
      assert.ok(await t.services.files.exists(row?.storage_key as string));
      assert.deepEqual((await api('GET', `/api/v1/cards/${ids.cardId}`)).json().card.attachments, []);

      const more = await setup();
      await upload(more.itemId);
      const link = (await api('POST', `/api/v1/checklist-items/${more.itemId}/attachments`, { url: 'https://example.com/l' })).json().attachment;
      await api('DELETE', `/api/v1/checklist-items/${more.itemId}/attachments/${link._id}`);
      const deletedAt = (await attachmentRows(more.cardId)).find((a) => a.id === link._id)?.deleted_at;
      assert.equal((await api('DELETE', `/api/v1/checklists/${more.checklistId}`)).statusCode, 200);
      const rows = await attachmentRows(more.cardId);
      assert.equal(rows.length, 2);
      for (const r of rows) {
        assert.equal(r.is_deleted, 1);
        assert.equal(r.checklist_item_id, null);
      }
      assert.equal(rows.find((a) => a.id === link._id)?.deleted_at, deletedAt, 'an earlier deletion keeps its time');
    });

    it("another company's or team's caller gets 404 on upload, rename and delete; no file is stored and nothing changes", async () => {
      const ids = await setup();
      const { attachment } = (await upload(ids.itemId)).json();
      const files = (await storedObjects(t.services.files)).length;
      const before = { rows: await attachmentRows(ids.cardId), versions: await versions(ids) };
      for (const key of [w.other.apiKey, w.stranger.apiKey]) {
        const client = apiClient(t, key);
        assert.equal((await upload(ids.itemId, {}, key)).statusCode, 404);
        assert.equal((await client('POST', `/api/v1/checklist-items/${ids.itemId}/attachments`, { url: 'https://example.com/x' })).statusCode, 404);
        assert.equal((await client('PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`, { name: 'pwned' })).statusCode, 404);
        assert.equal((await client('DELETE', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`)).statusCode, 404);
        assert.equal((await client('GET', attachment.url)).statusCode, 404);
      }
      assert.deepEqual(await versions(ids), before.versions, 'refused requests record no change of the item, its checklist or its card');
      assert.equal((await upload(ids.itemId, {}, t.tenant.apiKey)).statusCode, 201, 'the owner still can');
      assert.equal(
        (await api('PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}?companyId=${w.other.companyId}`, { name: 'x' })).statusCode,
        404,
      );
      assert.equal((await storedObjects(t.services.files)).length, files + 1);
      const rows = await attachmentRows(ids.cardId);
      assert.deepEqual(
        rows.filter((r) => r.id === attachment._id),
        before.rows,
      );
    });

    it('answers 400 for malformed ids, bad names, bad forms and links; 415 for other types; 413 for big files', async () => {
      const ids = await setup();
      const { attachment } = (await upload(ids.itemId)).json();
      const files = (await storedObjects(t.services.files)).length;
      const before = await attachmentRows(ids.cardId);
      for (const [method, url, body] of [
        ['POST', '/api/v1/checklist-items/x/attachments', { url: 'https://example.com' }],
        ['PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/x`, { name: 'x' }],
        ['DELETE', `/api/v1/checklist-items/x/attachments/${attachment._id}`],
        ['PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`, { name: '' }],
        ['PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`, { name: 'x', url: 'y' }],
        ['POST', `/api/v1/checklist-items/${ids.itemId}/attachments`, { url: 'ftp://example.com' }],
        ['POST', `/api/v1/checklist-items/${ids.itemId}/attachments`, { url: 'https://example.com', color: 'red' }],
      ] as ['POST' | 'PATCH' | 'DELETE', string, unknown?][]) {
        const res = await api(method, url, body);
        assert.equal(res.statusCode, 400, `${method} ${url} ${JSON.stringify(body)}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(res.json().details.length > 0);
      }
      const noFile = multipart({ name: 'x' });
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/checklist-items/${ids.itemId}/attachments`,
        headers: { ...bearer(t.tenant.apiKey), ...noFile.headers },
        payload: noFile.payload,
      });
      assert.equal(res.statusCode, 400);
      assert.equal((await upload(ids.itemId, { colour: 'red' })).statusCode, 400);
      const text = await t.app.inject({
        method: 'POST',
        url: `/api/v1/checklist-items/${ids.itemId}/attachments`,
        headers: { ...bearer(t.tenant.apiKey), 'content-type': 'text/plain' },
        payload: 'hi',
      });
      assert.equal(text.statusCode, 415);
      const big = await upload(ids.itemId, {}, t.tenant.apiKey, Buffer.alloc(17 * 1024, 1));
      assert.equal(big.statusCode, 413);
      assert.equal(big.json().code, 'payload_too_large');
      assert.equal((await storedObjects(t.services.files)).length, files);
      assert.deepEqual(await attachmentRows(ids.cardId), before);
    });

    it('counts each item attachment operation under its route template and contract tier', async () => {
      const ids = await setup();
      const tiers = await tiersOf(limiter, api, async (api) => {
        const uploaded = await upload(ids.itemId);
        assert.equal(uploaded.statusCode, 201, uploaded.body);
        const { attachment } = uploaded.json();
        await api('PATCH', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`, { name: 'n' });
        await api('DELETE', `/api/v1/checklist-items/${ids.itemId}/attachments/${attachment._id}`);
      });
      assert.deepEqual(tiers, [
        ['POST /api/v1/checklist-items/:itemId/attachments', 'medium'],
        ['PATCH /api/v1/checklist-items/:itemId/attachments/:attachmentId', 'low'],
        ['DELETE /api/v1/checklist-items/:itemId/attachments/:attachmentId', 'low'],
      ]);
    });
  });
}
