import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import { Card } from '../../src/schemas/records.ts';
import { addMember, addTeam, multipart, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINE_STORES, type TestApp } from '../support/harness.ts';
import { storedBytes, storedObjects } from '../support/s3.ts';
import { assertSchema } from '../support/schema.ts';

for (const [engine, store] of ENGINE_STORES) {
  describe(`Card attachments [${engine}, ${store}]`, () => {
    let t: TestApp;
    let listId: string;
    const content = Buffer.from('%PDF-1.7 quarterly plan\n'.repeat(200));

    before(async () => {
      t = await buildTestApp(engine, { store, config: { maxUploadBytes: 64 * 1024 } });
      listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    });
    after(() => t.dispose());

    const newCard = async () => {
      const caller = await authenticate(t.services, t.tenant.apiKey);
      return (await createCard(t.services, caller, {}, { list: listId, name: 'With files' }))._id;
    };
    const upload = (cardId: string, name?: string, token = t.tenant.apiKey, bytes = content) => {
      const form = multipart(name === undefined ? {} : { name }, { filename: 'plan.pdf', contentType: 'application/pdf', content: bytes });
      return t.app.inject({
        method: 'POST',
        url: `/api/v1/cards/${cardId}/attachments`,
        headers: { ...bearer(token), ...form.headers },
        payload: form.payload,
      });
    };
    const rename = (cardId: string, attachmentId: string, body: unknown, token = t.tenant.apiKey) =>
      t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${cardId}/attachments/${attachmentId}`, headers: bearer(token), payload: body as object });

    it('uploads a file: the bytes are stored, the type and original name kept, and it downloads again', async () => {
      const cardId = await newCard();
      const res = await upload(cardId, 'Q3 plan');
      assert.equal(res.statusCode, 201, res.body);
      const { attachment, card } = res.json();
      assertSchema(Card, card);
      assert.equal(attachment.name, 'Q3 plan');
      assert.equal(attachment.originalName, 'plan.pdf');
      assert.equal(attachment.mimeType, 'application/pdf');
      assert.equal(attachment.type, 'file');
      assert.equal(attachment.size, content.length);
      assert.equal(attachment.isDeleted, false);
      assert.equal(attachment.creator._id, t.tenant.userId);
      assert.equal(attachment.creator.fullName, 'Olive Owner');
      assert.deepEqual(
        card.attachments.map((a: { _id: string }) => a._id),
        [attachment._id],
      );
      assert.equal(card.__v, 1);
      const stored = await storedObjects(t.services.files);
      assert.equal(stored.length, 1);
      assert.deepEqual(await storedBytes(t.services.files, stored[0] as string), content);

      const download = await t.app.inject({ method: 'GET', url: attachment.url, headers: bearer(t.tenant.apiKey) });
      assert.equal(download.statusCode, 200);
      assert.equal(download.headers['content-type'], 'application/pdf');
      assert.match(String(download.headers['content-disposition']), /filename\*=UTF-8''Q3%20plan/);
      assert.deepEqual(download.rawPayload, content);
    });

    it('renames an attachment: {message, card} with the new name; attachment and card __v grow', async () => {
      const cardId = await newCard();
      const { attachment } = (await upload(cardId)).json();
      assert.equal(attachment.name, 'plan.pdf');
      const res = await rename(cardId, attachment._id, { name: '  Final plan.pdf ' });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      assertSchema(Card, body.card);
      const renamed = body.card.attachments.find((a: { _id: string }) => a._id === attachment._id);
      assert.equal(renamed.name, 'Final plan.pdf');
      assert.equal(renamed.__v, attachment.__v + 1);
      assert.equal(renamed.originalName, 'plan.pdf');
      assert.equal(body.card.__v, 2);
      const row = await t.services.db.selectFrom('attachments').select('name').where('id', '=', attachment._id).executeTakeFirstOrThrow();
      assert.equal(row.name, 'Final plan.pdf');
    });

    it('records the rename with the name before and after, as other renames do (fields, before, after)', async () => {
      const cardId = await newCard();
      const { attachment } = (await upload(cardId, 'Draft')).json();
      assert.equal((await rename(cardId, attachment._id, { name: 'Final' })).statusCode, 200);
      const event = await t.services.db
        .selectFrom('events')
        .select('data')
        .where('card_id', '=', cardId)
        .where('type', '=', 'attachment.renamed')
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(event.data), { attachment: attachment._id, fields: ['name'], before: { name: 'Draft' }, after: { name: 'Final' } });
    });

    it('rejects bad names and unknown fields with 400, and changes nothing', async () => {
      const cardId = await newCard();
      const { attachment } = (await upload(cardId)).json();
      for (const body of [{ name: '' }, { name: '   ' }, { name: 5 }, {}, { name: 'x', url: 'y' }, { name: 'x'.repeat(513) }]) {
        const res = await rename(cardId, attachment._id, body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.json().code, 'validation_failed');
      }
      const malformed = await rename(cardId, 'nope', { name: 'x' });
      assert.equal(malformed.statusCode, 400);
      const row = await t.services.db.selectFrom('attachments').select(['name', 'version']).where('id', '=', attachment._id).executeTakeFirstOrThrow();
      assert.deepEqual(row, { name: 'plan.pdf', version: 0 });
    });

    it('renaming a deleted attachment, or one of another card, is a 404', async () => {
      const cardA = await newCard();
      const cardB = await newCard();
      const { attachment } = (await upload(cardA)).json();
      const elsewhere = await rename(cardB, attachment._id, { name: 'moved?' });
      assert.equal(elsewhere.statusCode, 404);
      assert.equal(elsewhere.json().code, 'not_found');

      const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/cards/${cardA}/attachments/${attachment._id}`, headers: bearer(t.tenant.apiKey) });
      assert.equal(deleted.statusCode, 200);
      assert.deepEqual(deleted.json().card.attachments, []);
      const again = await rename(cardA, attachment._id, { name: 'too late' });
      assert.equal(again.statusCode, 404);
      const deleteAgain = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/cards/${cardA}/attachments/${attachment._id}`,
        headers: bearer(t.tenant.apiKey),
      });
      assert.equal(deleteAgain.statusCode, 404);
      // the record is kept as deleted and its file stays until the record is purged
      const row = await t.services.db
        .selectFrom('attachments')
        .select(['is_deleted', 'storage_key', 'name'])
        .where('id', '=', attachment._id)
        .executeTakeFirstOrThrow();
      assert.equal(row.is_deleted, 1);
      assert.equal(row.name, 'plan.pdf');
      assert.ok(await t.services.files.exists(row.storage_key as string));
      const download = await t.app.inject({ method: 'GET', url: attachment.url, headers: bearer(t.tenant.apiKey) });
      assert.equal(download.statusCode, 404);
    });

    it("another company's key gets 404 on upload, download, rename and delete, and nothing changes", async () => {
      const cardId = await newCard();
      const { attachment } = (await upload(cardId)).json();
      const other = await bootstrap(t.services, { company: 'Else', team: 'T', email: 'e@else.test', fullName: 'E' });
      const before = (await storedObjects(t.services.files)).length;
      assert.equal((await upload(cardId, 'x', other.apiKey)).statusCode, 404);
      assert.equal((await storedObjects(t.services.files)).length, before, 'a refused upload leaves no file');
      assert.equal((await t.app.inject({ method: 'GET', url: attachment.url, headers: bearer(other.apiKey) })).statusCode, 404);
      assert.equal((await rename(cardId, attachment._id, { name: 'pwned' }, other.apiKey)).statusCode, 404);
      const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/cards/${cardId}/attachments/${attachment._id}`, headers: bearer(other.apiKey) });
      assert.equal(del.statusCode, 404);
      const row = await t.services.db.selectFrom('attachments').select(['name', 'is_deleted']).where('id', '=', attachment._id).executeTakeFirstOrThrow();
      assert.deepEqual(row, { name: 'plan.pdf', is_deleted: 0 });
    });

    it("another team's member, or a scope naming another team or company, gets 404 on upload, download, rename and delete; nothing changes", async () => {
      const cardId = await newCard();
      const { attachment } = (await upload(cardId)).json();
      const stranger = await addMember(t.services, { companyId: t.tenant.companyId, email: `stranger-${cardId}@acme.test` });
      const elsewhere = await addTeam(t.services, t.tenant.companyId, `Elsewhere ${cardId}`, [stranger.userId]);
      const files = (await storedObjects(t.services.files)).length;
      const snapshot = async () => ({
        attachments: await t.services.db.selectFrom('attachments').selectAll().where('card_id', '=', cardId).execute(),
        card: await t.services.db.selectFrom('cards').select(['version', 'updated_at']).where('id', '=', cardId).executeTakeFirstOrThrow(),
      });
      const before = await snapshot();
      const form = multipart({}, { filename: 'plan.pdf', contentType: 'application/pdf', content });
      for (const [key, query] of [
        [stranger.apiKey, ''],
        [t.tenant.apiKey, `?teamId=${elsewhere}`],
        [t.tenant.apiKey, `?companyId=${elsewhere}`],
      ] as const) {
        const headers = bearer(key);
        const answers = [
          await t.app.inject({
            method: 'POST',
            url: `/api/v1/cards/${cardId}/attachments${query}`,
            headers: { ...headers, ...form.headers },
            payload: form.payload,
          }),
          await t.app.inject({ method: 'POST', url: `/api/v1/cards/${cardId}/attachments${query}`, headers, payload: { url: 'https://example.com/x' } }),
          await t.app.inject({ method: 'GET', url: `${attachment.url}${query}`, headers }),
          await t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${cardId}/attachments/${attachment._id}${query}`, headers, payload: { name: 'pwned' } }),
          await t.app.inject({ method: 'DELETE', url: `/api/v1/cards/${cardId}/attachments/${attachment._id}${query}`, headers }),
        ];
        for (const res of answers) {
          assert.equal(res.statusCode, 404, `${key === stranger.apiKey ? 'stranger' : query}: ${res.body}`);
          assert.equal(res.json().code, 'not_found');
        }
      }
      assert.equal((await storedObjects(t.services.files)).length, files, 'a refused upload leaves no file');
      assert.deepEqual(await snapshot(), before);
    });

    it('refuses a file over the size limit with 413 and keeps no record and no file', async () => {
      const cardId = await newCard();
      const before = (await storedObjects(t.services.files)).length;
      const res = await upload(cardId, 'big', t.tenant.apiKey, Buffer.alloc(65 * 1024, 1));
      assert.equal(res.statusCode, 413, res.body);
      assert.equal(res.json().code, 'payload_too_large');
      assert.equal((await storedObjects(t.services.files)).length, before);
      const rows = await t.services.db.selectFrom('attachments').select('id').where('card_id', '=', cardId).execute();
      assert.equal(rows.length, 0);
    });

    it('refuses a form with anything after the file (a field, a late name, a second file) with 400, keeping no record and no file', async () => {
      const cardId = await newCard();
      const files = (await storedObjects(t.services.files)).length;
      const before = await t.services.db.selectFrom('cards').select(['version', 'updated_at']).where('id', '=', cardId).executeTakeFirstOrThrow();
      const boundary = '----taskboard-trailing';
      const filePart = (field: string, name: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${name} bytes\r\n`;
      const fieldPart = (field: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n`;
      for (const [trailing, status, code, fields] of [
        [fieldPart('color', 'red'), 400, 'validation_failed', ['body.color']],
        [fieldPart('name', 'Late name'), 400, 'validation_failed', ['body.name']],
        // one file per form (the multipart limit): a second is the form's mistake, said as such
        [filePart('file', 'second.txt'), 400, 'validation_failed', ['body.file']],
      ] as const) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/v1/cards/${cardId}/attachments`,
          headers: { ...bearer(t.tenant.apiKey), 'content-type': `multipart/form-data; boundary=${boundary}` },
          payload: `${fieldPart('name', 'Notes')}${filePart('file', 'notes.txt')}${trailing}--${boundary}--\r\n`,
        });
        assert.equal(res.statusCode, status, `${trailing}: ${res.body}`);
        assert.equal(res.json().code, code);
        assert.deepEqual(
          res.json().details?.map((d: { field: string }) => d.field),
          fields,
        );
      }
      assert.equal((await storedObjects(t.services.files)).length, files, 'no file left behind');
      assert.deepEqual(await t.services.db.selectFrom('attachments').select('id').where('card_id', '=', cardId).execute(), []);
      assert.deepEqual(await t.services.db.selectFrom('cards').select(['version', 'updated_at']).where('id', '=', cardId).executeTakeFirstOrThrow(), before);
    });

    it('keeps the SHA-256 of the bytes; downloads answer Range (206, 416) and conditional requests (ETag, 304)', async () => {
      const cardId = await newCard();
      const { attachment } = (await upload(cardId, 'Ranged')).json();
      const row = await t.services.db.selectFrom('attachments').select(['sha256', 'size_bytes']).where('id', '=', attachment._id).executeTakeFirstOrThrow();
      assert.equal(row.sha256, createHash('sha256').update(content).digest('hex'));
      const get = (headers: Record<string, string> = {}) =>
        t.app.inject({ method: 'GET', url: attachment.url, headers: { ...bearer(t.tenant.apiKey), ...headers } });
      const whole = await get();
      assert.equal(whole.statusCode, 200);
      assert.equal(whole.headers.etag, `"${row.sha256}"`);
      assert.equal(whole.headers['accept-ranges'], 'bytes');
      const part = await get({ range: 'bytes=10-19' });
      assert.equal(part.statusCode, 206);
      assert.equal(part.headers['content-range'], `bytes 10-19/${content.length}`);
      assert.equal(part.headers['content-length'], '10');
      assert.deepEqual(part.rawPayload, content.subarray(10, 20));
      const tail = await get({ range: 'bytes=-5' });
      assert.deepEqual([tail.statusCode, tail.rawPayload], [206, content.subarray(content.length - 5)]);
      const outside = await get({ range: `bytes=${content.length + 10}-` });
      assert.equal(outside.statusCode, 416);
      assert.equal(outside.headers['content-range'], `bytes */${content.length}`);
      assert.equal(outside.json().code, 'range_not_satisfiable');
      const current = await get({ 'if-none-match': whole.headers.etag as string });
      assert.equal(current.statusCode, 304);
      assert.equal(current.rawPayload.length, 0);
      const changed = await get({ range: 'bytes=0-3', 'if-range': '"another"' });
      assert.deepEqual([changed.statusCode, changed.rawPayload.length], [200, content.length], 'If-Range naming another version: the whole file');
    });

    it('attaches a link from JSON, and refuses a form without a file or with unknown fields', async () => {
      const cardId = await newCard();
      const link = await t.app.inject({
        method: 'POST',
        url: `/api/v1/cards/${cardId}/attachments`,
        headers: bearer(t.tenant.apiKey),
        payload: { url: 'https://example.com/spec', name: 'Spec' },
      });
      assert.equal(link.statusCode, 201, link.body);
      assert.equal(link.json().attachment.type, 'link');
      assert.equal(link.json().attachment.url, 'https://example.com/spec');
      const badLink = await t.app.inject({
        method: 'POST',
        url: `/api/v1/cards/${cardId}/attachments`,
        headers: bearer(t.tenant.apiKey),
        payload: { url: 'javascript:alert(1)' },
      });
      assert.equal(badLink.statusCode, 400);
      const noFile = multipart({ name: 'x' });
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/cards/${cardId}/attachments`,
        headers: { ...bearer(t.tenant.apiKey), ...noFile.headers },
        payload: noFile.payload,
      });
      assert.equal(res.statusCode, 400);
      const extra = multipart({ color: 'red' }, { filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('a') });
      const res2 = await t.app.inject({
        method: 'POST',
        url: `/api/v1/cards/${cardId}/attachments`,
        headers: { ...bearer(t.tenant.apiKey), ...extra.headers },
        payload: extra.payload,
      });
      assert.equal(res2.statusCode, 400);
      const text = await t.app.inject({
        method: 'POST',
        url: `/api/v1/cards/${cardId}/attachments`,
        headers: { ...bearer(t.tenant.apiKey), 'content-type': 'text/plain' },
        payload: 'hello',
      });
      assert.equal(text.statusCode, 415);
      assert.equal(text.json().code, 'unsupported_media_type');
    });
  });
}
