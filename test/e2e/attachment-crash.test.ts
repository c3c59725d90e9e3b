/**
 * A real server process on a bucket (s3rver) killed (SIGKILL) in the middle of a multipart upload:
 * no attachment record is left, the store keeps the upload's parts, and `taskboard purge-attachments`
 * aborts the upload the journal names once it is older than the grace period. Both engines.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { ORPHAN_GRACE_MS } from '../../src/domain/attachments/purge.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import { openAttachmentStore } from '../../src/storage/open-attachment-store.ts';
import { PART_BYTES } from '../../src/storage/s3-store.ts';
import { runTaskboard, serveInChild } from '../support/cli.ts';
import { seedBoard } from '../support/fixtures.ts';
import { bearer, ENGINES, openTestStorage, serviceContext, type TestStorage } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';
import { startS3, storedObjects, type TestS3 } from '../support/s3.ts';

const BOUNDARY = 'taskboard-crash-boundary';

for (const engine of ENGINES) {
  describe(`a server killed during a multipart upload to a bucket [${engine}, s3]`, () => {
    let test: TestStorage;
    let s3: TestS3;
    let tenant: BootstrapResult;
    let cardId: string;

    before(async () => {
      test = await openTestStorage(engine);
      s3 = await startS3();
      const ctx = serviceContext(test.storage);
      tenant = await bootstrap(ctx, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
      const listId = (await seedBoard(ctx, tenant, { lists: 1 })).listIds[0] as string;
      cardId = (await createCard(ctx, await authenticate(ctx, tenant.apiKey), {}, { list: listId, name: 'Big file' }))._id;
    });
    after(async () => {
      await test.dispose();
      await s3.close();
    });

    it('leaves no record; the purge aborts the upload the store kept, and no object remains', async () => {
      const db = test.storage.db;
      const env = {
        ...process.env,
        ...s3.env(),
        DATABASE_URL: test.url,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        RATE_LIMIT_ENABLED: 'false',
        MAX_UPLOAD_BYTES: String(64 * 1024 * 1024),
      };
      const { server, address } = await serveInChild(env);
      try {
        // A form whose file never ends: more than two parts' worth of bytes are sent, then nothing.
        const upload = request(`${address}/api/v1/cards/${cardId}/attachments`, {
          method: 'POST',
          headers: { ...bearer(tenant.apiKey), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        });
        const answered = once(upload, 'response').catch((error: Error) => error);
        upload.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
        const chunk = Buffer.alloc(256 * 1024, 'crash ');
        for (let sent = 0; sent < 2 * PART_BYTES + chunk.length; sent += chunk.length) {
          if (!upload.write(chunk)) await once(upload, 'drain');
        }
        // killed once the upload is in the journal and the store holds a part of it
        const journal = () => db.selectFrom('multipart_uploads').select(['upload_id', 'storage_key', 'store']).execute();
        await eventually(journal, (rows) => rows.length === 1, 20_000, 'the multipart upload in the journal');
        await eventually(
          async () => s3.pendingUploads(),
          (ids) => ids.length === 1,
          20_000,
          'a part of the upload in the store',
        );
        server.kill('SIGKILL');
        await once(server, 'exit');
        assert.ok((await answered) instanceof Error, 'the upload got no answer');
      } finally {
        if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      }

      assert.deepEqual(await db.selectFrom('attachments').select('id').where('card_id', '=', cardId).execute(), [], 'no attachment record');
      const [noted] = await db.selectFrom('multipart_uploads').selectAll().execute();
      assert.ok(noted, 'the journal names the unfinished upload');
      assert.deepEqual(s3.pendingUploads(), [noted.upload_id], 'the store kept its parts');

      // A purge now leaves it (it may be an upload still running); one after the grace period aborts it.
      const early = await runTaskboard(['purge-attachments', '--json'], { ...s3.env(), DATABASE_URL: test.url });
      assert.equal(early.code, 0, early.stderr);
      assert.deepEqual(s3.pendingUploads(), [noted.upload_id]);
      await db
        .updateTable('multipart_uploads')
        .set({ begun_at: new Date(Date.parse(noted.begun_at) - ORPHAN_GRACE_MS - 1000).toISOString() })
        .execute();
      const purge = await runTaskboard(['purge-attachments', '--json'], { ...s3.env(), DATABASE_URL: test.url });
      assert.equal(purge.code, 0, purge.stderr);
      assert.equal(JSON.parse(purge.stdout).orphanFiles, 1);
      assert.deepEqual(s3.pendingUploads(), [], 'the upload is aborted: the store dropped its parts');
      assert.deepEqual(await db.selectFrom('multipart_uploads').selectAll().execute(), [], 'struck off the journal');
      const bucket = await openAttachmentStore({ uploadDir: '', attachments: s3.attachments() });
      try {
        assert.deepEqual(await storedObjects(bucket), [], 'no object');
      } finally {
        await bucket.close();
      }
    });
  });
}
