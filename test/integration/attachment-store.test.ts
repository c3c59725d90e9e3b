/**
 * What only the bucket has, on a real S3-compatible server (s3rver, started by the tests): multipart
 * uploads, presigned redirects, a store that is down or stalls, two instances sharing one bucket,
 * and the migrate command between the two stores.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { buildApp } from '../../src/app.ts';
import { main } from '../../src/cli/main.ts';
import { ORPHAN_GRACE_MS, purgeOrphanFiles } from '../../src/domain/attachments/purge.ts';
import { openAttachmentStore } from '../../src/storage/open-attachment-store.ts';
import { uploadJournal } from '../../src/storage/repositories/multipart-uploads.ts';
import { PART_BYTES, type S3Store } from '../../src/storage/s3-store.ts';
import { multipart, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, STORES, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';
import { startS3, storedBytes, storedObjects } from '../support/s3.ts';

const MB = 1024 * 1024;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function newCard(t: TestApp): Promise<string> {
  const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/cards', headers: bearer(t.tenant.apiKey), payload: { list: listId, name: 'Files' } });
  return res.json().card._id as string;
}

function upload(t: TestApp, cardId: string, content: Buffer, app = t.app) {
  const form = multipart({}, { filename: 'big.bin', contentType: 'application/octet-stream', content });
  return app.inject({
    method: 'POST',
    url: `/api/v1/cards/${cardId}/attachments`,
    headers: { ...bearer(t.tenant.apiKey), ...form.headers },
    payload: form.payload,
  });
}

const journal = (t: TestApp) => t.services.db.selectFrom('multipart_uploads').selectAll().orderBy('upload_id').execute();
const records = (t: TestApp, cardId: string) => t.services.db.selectFrom('attachments').select('id').where('card_id', '=', cardId).execute();

describe('attachments in a bucket [postgres, s3]', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp('postgres', { store: 's3', config: { maxUploadBytes: 8 * MB } });
  });
  after(() => t.dispose());

  it('streams a file larger than one part as a multipart upload; a too-large one is aborted and leaves nothing', async () => {
    const cardId = await newCard(t);
    const content = Buffer.alloc(6 * MB + 123, 'abc');
    const res = await upload(t, cardId, content);
    assert.equal(res.statusCode, 201, res.body);
    const download = await t.app.inject({ method: 'GET', url: res.json().attachment.url, headers: bearer(t.tenant.apiKey) });
    assert.equal(download.headers.etag, `"${sha(content)}"`);
    assert.equal(sha(download.rawPayload), sha(content));
    const objects = await storedObjects(t.services.files);
    const refused = await upload(t, cardId, Buffer.alloc(9 * MB, 'x'));
    assert.equal(refused.statusCode, 413, refused.body);
    assert.deepEqual(await storedObjects(t.services.files), objects, 'no object from the refused upload');
    assert.deepEqual(t.s3?.pendingUploads(), [], 'its multipart upload aborted: no parts kept');
    assert.deepEqual(await journal(t), [], 'and struck off the journal');
    assert.equal((await records(t, cardId)).length, 1);
  });

  it('notes a multipart upload in the journal before its first part, and strikes it off once complete', async () => {
    const source = new PassThrough();
    const saving = t.services.files.save(t.tenant.companyId, source);
    source.write(Buffer.alloc(PART_BYTES + 1, 'j'));
    const [running] = await eventually(
      () => journal(t),
      (rows) => rows.length === 1,
      10_000,
      'the upload in the journal',
    );
    assert.equal(running?.store, t.services.files.description);
    assert.deepEqual(t.s3?.pendingUploads(), [running?.upload_id], 'the journal names the upload the store holds');
    source.end(Buffer.from('end'));
    const saved = await saving;
    assert.equal(running?.storage_key, saved.key);
    assert.equal(saved.size, PART_BYTES + 4);
    assert.deepEqual(await journal(t), []);
    assert.deepEqual(t.s3?.pendingUploads(), []);
    assert.equal((await storedBytes(t.services.files, saved.key)).length, PART_BYTES + 4);
    await t.services.files.remove(saved.key);
  });

  it('the purge aborts the uploads the journal names once older than the grace period, with their objects; younger ones stay', async () => {
    const client = (t.services.files as S3Store).client;
    const bucket = t.s3?.bucket as string;
    const begin = async (key: string, at: number) => {
      const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: `attachments/${key}` }));
      await client.send(new UploadPartCommand({ Bucket: bucket, Key: `attachments/${key}`, UploadId, PartNumber: 1, Body: Buffer.from('a part') }));
      await uploadJournal(t.services.db, () => at).begun({ store: t.services.files.description, key, uploadId: UploadId as string });
      return UploadId as string;
    };
    const now = t.services.clock.now();
    const abandoned = await begin(`${t.tenant.companyId}/abandoned`, now - ORPHAN_GRACE_MS - 60_000);
    const running = await begin(`${t.tenant.companyId}/running`, now - 60_000);
    // an upload completed by an instance killed before it struck it off: its object has no record
    const completed = await t.services.files.save(t.tenant.companyId, Readable.from([Buffer.from('completed, never recorded')]));
    await uploadJournal(t.services.db, () => now - ORPHAN_GRACE_MS - 60_000).begun({
      store: t.services.files.description,
      key: completed.key,
      uploadId: 'ffffffff',
    });
    assert.deepEqual(t.s3?.pendingUploads(), [abandoned, running].sort());
    assert.equal(await purgeOrphanFiles(t.services), 2);
    assert.deepEqual(t.s3?.pendingUploads(), [running]);
    assert.deepEqual(
      (await journal(t)).map((row) => row.upload_id),
      [running],
    );
    assert.equal(await t.services.files.exists(completed.key), false, 'the object no record names is removed');
    await (t.services.files as S3Store).abortUpload(`${t.tenant.companyId}/running`, running);
    assert.deepEqual(t.s3?.pendingUploads(), []);
  });

  it('closing the store aborts the uploads still running: the save fails and the bucket keeps nothing of it', async () => {
    const objects = await storedObjects(t.services.files);
    const store = await openAttachmentStore(t.config);
    const source = new PassThrough();
    const saving = store.save(t.tenant.companyId, source);
    // More than one part: the store begins a multipart upload, and the source never ends.
    source.write(Buffer.alloc(6 * MB, 'p'));
    await eventually(
      async () => t.s3?.pendingUploads(),
      (ids) => ids?.length === 1,
      10_000,
      'the multipart upload begun',
    );
    await store.close();
    await assert.rejects(saving);
    assert.deepEqual(await storedObjects(t.services.files), objects, 'no object from the aborted upload');
    assert.deepEqual(t.s3?.pendingUploads(), [], 'the store dropped its parts');
  });

  it('copies a card with its files by CopyObject: the copy has its own object with the same bytes', async () => {
    const cardId = await newCard(t);
    const content = Buffer.from('copied by the bucket');
    assert.equal((await upload(t, cardId, content)).statusCode, 201);
    const list = (await t.services.db.selectFrom('cards').select('list_id').where('id', '=', cardId).executeTakeFirstOrThrow()).list_id;
    const copy = await t.app.inject({ method: 'POST', url: `/api/v1/cards/${cardId}/copy`, headers: bearer(t.tenant.apiKey), payload: { list } });
    assert.equal(copy.statusCode, 201, copy.body);
    const [attachment] = copy.json().card.attachments;
    const row = await t.services.db.selectFrom('attachments').selectAll().where('id', '=', attachment._id).executeTakeFirstOrThrow();
    assert.deepEqual(await storedBytes(t.services.files, row.storage_key as string), content);
    assert.equal(row.sha256, sha(content));
  });

  it('ATTACHMENT_DOWNLOAD=redirect: a 302 to a presigned URL valid at most 5 minutes, which serves the bytes', async () => {
    const redirecting = await buildApp({
      config: { ...t.config, databaseUrl: t.url, attachments: { ...t.config.attachments, download: 'redirect' } },
      logger: false,
      rateLimiter: null,
    });
    try {
      const cardId = await newCard(t);
      const content = Buffer.from('straight from the bucket');
      const { attachment } = (await upload(t, cardId, content)).json();
      const res = await redirecting.inject({ method: 'GET', url: attachment.url, headers: bearer(t.tenant.apiKey) });
      assert.equal(res.statusCode, 302);
      const location = new URL(String(res.headers.location));
      assert.ok(Number(location.searchParams.get('X-Amz-Expires')) <= 300);
      const fetched = await fetch(location);
      assert.equal(fetched.status, 200);
      assert.deepEqual(Buffer.from(await fetched.arrayBuffer()), content);
      const outsider = await redirecting.inject({ method: 'GET', url: attachment.url, headers: bearer('tb_not_a_key') });
      assert.equal(outsider.statusCode, 401, 'the access check comes before any URL');
    } finally {
      await redirecting.close();
    }
  });

  it('purge-attachments removes objects no record names, and keeps those records name', async () => {
    const named = await storedObjects(t.services.files);
    const orphan = await t.services.files.save(t.tenant.companyId, (await import('node:stream')).Readable.from([Buffer.from('orphan')]));
    assert.equal(await purgeOrphanFiles(t.services, { graceMs: -60_000 }), 1);
    assert.equal(await t.services.files.exists(orphan.key), false);
    assert.deepEqual(await storedObjects(t.services.files), named);
  });

  it('two instances on one database and one bucket: upload through one; download, rename, copy and delete through the other', async () => {
    const other = await buildApp({ config: { ...t.config, databaseUrl: t.url }, logger: false, rateLimiter: null });
    try {
      const cardId = await newCard(t);
      const content = Buffer.from('shared by every instance');
      const { attachment } = (await upload(t, cardId, content)).json();
      const auth = bearer(t.tenant.apiKey);
      const download = await other.inject({ method: 'GET', url: attachment.url, headers: auth });
      assert.deepEqual([download.statusCode, download.rawPayload], [200, content]);
      const renamed = await other.inject({
        method: 'PATCH',
        url: `/api/v1/cards/${cardId}/attachments/${attachment._id}`,
        headers: auth,
        payload: { name: 'Renamed' },
      });
      assert.equal(renamed.statusCode, 200, renamed.body);
      const list = (await t.services.db.selectFrom('cards').select('list_id').where('id', '=', cardId).executeTakeFirstOrThrow()).list_id;
      const copy = await other.inject({ method: 'POST', url: `/api/v1/cards/${cardId}/copy`, headers: auth, payload: { list } });
      assert.equal(copy.statusCode, 201, copy.body);
      const copied = copy.json().card.attachments[0];
      const copiedBytes = await t.app.inject({ method: 'GET', url: copied.url, headers: auth });
      assert.deepEqual(copiedBytes.rawPayload, content, 'the copy made through one instance downloads through the other');
      const deleted = await other.inject({ method: 'DELETE', url: `/api/v1/cards/${cardId}/attachments/${attachment._id}`, headers: auth });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.equal((await t.app.inject({ method: 'GET', url: attachment.url, headers: auth })).statusCode, 404);
    } finally {
      await other.close();
    }
  });

  it('the store down: an upload is a 503 in the contract form and records nothing, a download a 503; /readyz says so', async () => {
    const cardId = await newCard(t);
    const { attachment } = (await upload(t, cardId, Buffer.from('stored before the outage'))).json();
    await t.s3?.close();
    const res = await upload(t, cardId, Buffer.from('nowhere to go'));
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.json().code, 'unavailable');
    assert.match(res.json().message, /attachment store/);
    assert.deepEqual(
      (await records(t, cardId)).map((row) => row.id),
      [attachment._id],
      'no record of the failed upload',
    );
    const download = await t.app.inject({ method: 'GET', url: attachment.url, headers: bearer(t.tenant.apiKey) });
    assert.equal(download.statusCode, 503, download.body);
    assert.equal(download.json().code, 'unavailable');
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json().checks.bucket.status, 'failed');
  });
});

describe('a store that stops answering [sqlite, s3]', () => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  let t: TestApp;
  before(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    t = await buildTestApp('sqlite', {
      config: {
        attachments: {
          storage: { kind: 's3', bucket: 'stalled', prefix: '' },
          download: 'stream',
          redirectSeconds: 300,
          timeoutMs: 300,
          s3: { endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true },
        },
      },
    });
  });
  after(async () => {
    await t.dispose();
    for (const socket of sockets) socket.destroy();
    silent.close();
  });

  it('cuts the upload at ATTACHMENT_STORE_TIMEOUT_MS: a 503, bounded, no record', async () => {
    const cardId = await newCard(t);
    const started = performance.now();
    const res = await upload(t, cardId, Buffer.from('into the void'));
    const took = performance.now() - started;
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.json().code, 'unavailable');
    assert.ok(took < 5000, `took ${Math.round(took)} ms`);
    assert.deepEqual(await records(t, cardId), []);
  });
});

for (const store of STORES) {
  describe(`a client that cuts its upload mid-way [sqlite, ${store}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp('sqlite', { store, config: { maxUploadBytes: 64 * MB } });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(() => t.dispose());

    it('leaves no record, no object, no partial file and no multipart upload', async () => {
      const cardId = await newCard(t);
      const objects = await storedObjects(t.services.files);
      const { port } = t.app.server.address() as AddressInfo;
      const boundary = 'cut-upload-boundary';
      const cut = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/v1/cards/${cardId}/attachments`,
        headers: { ...bearer(t.tenant.apiKey), 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      const answered = once(cut, 'response').catch((error: Error) => error);
      cut.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      const chunk = Buffer.alloc(256 * 1024, 'cut ');
      for (let sent = 0; sent < PART_BYTES + chunk.length; sent += chunk.length) if (!cut.write(chunk)) await once(cut, 'drain');
      // under way in the store: a bucket's multipart upload begun, a folder's partial file written
      const underWay = async () =>
        store === 's3' ? (t.s3?.pendingUploads().length ?? 0) : (await storedObjects(t.services.files)).filter((key) => key.endsWith('.partial')).length;
      await eventually(underWay, (n) => n === 1, 20_000, 'the upload under way in the store');
      cut.destroy();
      assert.ok((await answered) instanceof Error, 'the cut upload got no answer');
      const left = async () => ({ objects: await storedObjects(t.services.files), uploads: t.s3?.pendingUploads() ?? [], journal: await journal(t) });
      await eventually(
        left,
        (now) => now.objects.length === objects.length && now.uploads.length === 0 && now.journal.length === 0,
        20_000,
        'nothing left of the cut upload',
      );
      assert.deepEqual((await left()).objects, objects);
      assert.deepEqual(await records(t, cardId), []);
    });
  });
}

describe('a folder the server cannot write to [sqlite, file]', () => {
  let t: TestApp;
  before(async () => {
    // sysfs refuses new folders even to root (EPERM), as a read-only or refused disk does
    t = await buildTestApp('sqlite', { config: { uploadDir: `/sys/taskboard-uploads-${process.pid}` } });
  });
  after(() => t.dispose());

  it('an upload is a 503 in the contract form, as for a bucket that is down, and records nothing', async () => {
    const cardId = await newCard(t);
    const res = await upload(t, cardId, Buffer.from('nowhere to go'));
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.json().code, 'unavailable');
    assert.match(res.json().message, /attachment store/);
    assert.ok(res.headers['retry-after']);
    assert.deepEqual(await records(t, cardId), []);
  });
});

describe('taskboard attachments migrate [sqlite, file → s3 → file]', () => {
  let t: TestApp;
  let s3: Awaited<ReturnType<typeof startS3>>;
  before(async () => {
    t = await buildTestApp('sqlite');
    s3 = await startS3();
  });
  after(async () => {
    await t.dispose();
    await s3.close();
  });

  const run = async (args: string[], env: Record<string, string>) => {
    let out = '';
    const code = await main(
      args,
      { DATABASE_URL: t.url, UPLOAD_DIR: t.config.uploadDir, LOG_LEVEL: 'silent', ...env },
      { stdout: (text) => (out += text), stderr: (text) => (out += text) },
    );
    return { code, out };
  };

  it('copies every file under its key, checks each checksum, resumes, and switches nothing', async () => {
    const cardId = await newCard(t);
    const contents = [Buffer.from('first file'), Buffer.from('second file')];
    for (const content of contents) assert.equal((await upload(t, cardId, content)).statusCode, 201);
    const keys = await storedObjects(t.services.files);
    const s3Env = { ...s3.env(), ATTACHMENT_STORAGE: '' };
    const to = `s3://${s3.bucket}/attachments`;
    const first = await run(['attachments', 'migrate', '--to', to, '--json'], s3Env);
    assert.equal(first.code, 0, first.out);
    assert.deepEqual(JSON.parse(first.out), {
      ok: true,
      from: `file:${t.config.uploadDir}`,
      to: `${to}/`,
      copied: 2,
      skipped: 0,
      missing: [],
      mismatched: [],
      measured: 0,
    });
    const bucket = await openAttachmentStore({ uploadDir: t.config.uploadDir, attachments: s3.attachments() });
    try {
      assert.deepEqual(await storedObjects(bucket), keys);
      for (const key of keys) assert.deepEqual(await storedBytes(bucket, key), await storedBytes(t.services.files, key));
    } finally {
      await bucket.close();
    }
    const again = await run(['attachments', 'migrate', '--to', to, '--json'], s3Env);
    assert.equal(JSON.parse(again.out).skipped, 2, 'a second run resumes: nothing copied twice');
    const back = await run(['attachments', 'migrate', '--to', `file:${t.config.uploadDir}-back`, '--json'], s3.env());
    assert.equal(back.code, 0, back.out);
    assert.equal(JSON.parse(back.out).copied, 2);
  });
});
