/**
 * The purge of deleted attachments, through the domain function and through `taskboard
 * purge-attachments` as an operator runs it: records deleted long enough ago go with their files;
 * everything else stays.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { purgeDeletedAttachments, purgeOrphanFiles } from '../../src/domain/attachments/purge.ts';
import * as attachmentService from '../../src/domain/attachments/service.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import { createItem } from '../../src/domain/checklists/items.ts';
import { createChecklist } from '../../src/domain/checklists/service.ts';
import type { ServiceContext } from '../../src/domain/context.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { ValidationError } from '../../src/domain/shared/errors.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import { runTaskboard } from '../support/cli.ts';
import { seedBoard } from '../support/fixtures.ts';
import { ENGINES, openTestStorage, serviceContext, type TestStorage } from '../support/harness.ts';

const DAY = 86_400_000;

for (const engine of ENGINES) {
  describe(`purge of deleted attachments [${engine}]`, () => {
    let storage: TestStorage;
    let ctx: ServiceContext;
    let uploadDir: string;
    let tenant: BootstrapResult;
    let caller: Caller;
    let listId: string;

    before(async () => {
      storage = await openTestStorage(engine);
      uploadDir = mkdtempSync(join(tmpdir(), 'taskboard-purge-'));
      ctx = serviceContext(storage.storage, uploadDir);
      tenant = await bootstrap(ctx, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive' });
      caller = await authenticate(ctx, tenant.apiKey);
      listId = (await seedBoard(ctx, tenant, { lists: 1 })).listIds[0] as string;
    });
    after(async () => {
      await storage.dispose();
      rmSync(uploadDir, { recursive: true, force: true });
    });

    const newCard = async () => (await createCard(ctx, caller, {}, { list: listId, name: 'Card' }))._id;
    const file = (text: string) => ({ stream: Readable.from([Buffer.from(text)]), filename: `${text}.txt`, mimeType: 'text/plain' });
    async function cardFile(cardId: string, text: string) {
      return (await attachmentService.uploadFile(ctx, caller, cardId, {}, file(text), undefined)).attachment._id;
    }
    async function row(id: string) {
      return ctx.db.selectFrom('attachments').selectAll().where('id', '=', id).executeTakeFirst();
    }
    async function keyOf(id: string) {
      return (await row(id))?.storage_key as string;
    }
    /** Marks the attachment deleted as of `daysAgo` days before now. */
    async function backdate(id: string, daysAgo: number) {
      await ctx.db
        .updateTable('attachments')
        .set({ deleted_at: new Date(Date.now() - daysAgo * DAY).toISOString() })
        .where('id', '=', id)
        .execute();
    }

    it('removes records deleted longer ago than the cut-off, with their files and cheers; everything else stays', async () => {
      const cardId = await newCard();
      const old = await cardFile(cardId, 'old');
      const recent = await cardFile(cardId, 'recent');
      const live = await cardFile(cardId, 'live');
      const oldLink = (await attachmentService.addLink(ctx, caller, cardId, {}, { url: 'https://example.com/x' })).attachment._id;
      const checklist = await createChecklist(ctx, caller, cardId, {}, { name: 'C' });
      const item = await createItem(ctx, caller, checklist._id, {}, { name: 'I' });
      const onItem = (await attachmentService.uploadItemFile(ctx, caller, item._id, {}, file('item'), undefined)).attachment._id;
      const liveOnItem = (await attachmentService.uploadItemFile(ctx, caller, item._id, {}, file('item-live'), undefined)).attachment._id;
      for (const id of [old, recent, oldLink]) await attachmentService.deleteCardAttachment(ctx, caller, cardId, id, {});
      await attachmentService.deleteItemAttachment(ctx, caller, item._id, onItem, {});
      await backdate(old, 31);
      await backdate(oldLink, 400);
      await backdate(onItem, 45);
      await backdate(recent, 29);
      // a cheer on the old attachment goes with it
      const now = nowIso();
      await ctx.db
        .insertInto('cheers')
        .values({
          id: newId(),
          company_id: tenant.companyId,
          team_id: tenant.teamId,
          content: ':tada:',
          creator_id: tenant.userId,
          receiver_id: tenant.userId,
          primary_type: 'attachment',
          primary_id: old,
          secondary_type: 'card',
          secondary_id: cardId,
          card_id: cardId,
          comment_id: null,
          feature_type: 'attachment',
          is_notified: 0,
          notification: '',
          created_at: now,
          updated_at: now,
          version: 0,
        })
        .execute();
      const keys = {
        old: await keyOf(old),
        recent: await keyOf(recent),
        live: await keyOf(live),
        onItem: await keyOf(onItem),
        liveOnItem: await keyOf(liveOnItem),
      };
      const liveRows = { live: await row(live), liveOnItem: await row(liveOnItem), recent: await row(recent) };

      const result = await purgeDeletedAttachments(ctx);
      assert.equal(result.records, 3);
      assert.equal(result.files, 2);
      assert.ok(Math.abs(Date.parse(result.deletedBefore) - (Date.now() - 30 * DAY)) < 60_000, 'the default is 30 days');
      for (const id of [old, oldLink, onItem]) assert.equal(await row(id), undefined, `${id} is gone`);
      assert.equal(await ctx.files.exists(keys.old), false);
      assert.equal(await ctx.files.exists(keys.onItem), false);
      assert.equal((await ctx.db.selectFrom('cheers').select('id').where('primary_id', '=', old).execute()).length, 0);
      for (const key of [keys.recent, keys.live, keys.liveOnItem]) assert.ok(await ctx.files.exists(key), key);
      assert.deepEqual({ live: await row(live), liveOnItem: await row(liveOnItem), recent: await row(recent) }, liveRows, 'other records untouched');

      const again = await purgeDeletedAttachments(ctx, { olderThanDays: 30 });
      assert.deepEqual([again.records, again.files], [0, 0]);
      const all = await purgeDeletedAttachments(ctx, { olderThanDays: 0 });
      assert.deepEqual([all.records, all.files], [1, 1]);
      assert.equal(await row(recent), undefined);
      assert.equal(await ctx.files.exists(keys.recent), false);
      assert.ok(await ctx.files.exists(keys.live));
    });

    it('keeps a file that a live record still points to, and finishes a record whose file is already gone', async () => {
      const cardId = await newCard();
      const shared = await cardFile(cardId, 'shared');
      const twin = await cardFile(cardId, 'twin');
      const sharedKey = await keyOf(shared);
      const twinKey = await keyOf(twin);
      await ctx.db.updateTable('attachments').set({ storage_key: sharedKey }).where('id', '=', twin).execute();
      await ctx.files.remove(twinKey);
      await attachmentService.deleteCardAttachment(ctx, caller, cardId, shared, {});
      await backdate(shared, 60);
      const orphan = await cardFile(cardId, 'orphan');
      const orphanKey = await keyOf(orphan);
      await attachmentService.deleteCardAttachment(ctx, caller, cardId, orphan, {});
      await backdate(orphan, 60);
      await ctx.files.remove(orphanKey);

      const result = await purgeDeletedAttachments(ctx, { olderThanDays: 30 });
      assert.deepEqual([result.records, result.files], [2, 0]);
      assert.equal(await row(shared), undefined);
      assert.equal(await row(orphan), undefined);
      assert.ok(await ctx.files.exists(sharedKey), 'the live twin still needs the file');
      assert.ok(await row(twin));
    });

    it('removes files no record names and stale partial uploads once older than an hour, nothing else', async () => {
      const cardId = await newCard();
      const live = await keyOf(await cardFile(cardId, 'named'));
      const deleted = await cardFile(cardId, 'deleted-recently');
      const deletedKey = await keyOf(deleted);
      await attachmentService.deleteCardAttachment(ctx, caller, cardId, deleted, {});
      const now = Date.now();
      /** A file under the upload folder, last written `ageMs` before now. */
      const put = (key: string, ageMs: number) => {
        const path = join(uploadDir, key);
        mkdirSync(join(path, '..'), { recursive: true });
        if (!existsSync(path)) writeFileSync(path, 'x');
        const at = (now - ageMs) / 1000;
        utimesSync(path, at, at);
        return path;
      };
      const HOUR = 3_600_000;
      put(live, 2 * HOUR);
      put(deletedKey, 2 * HOUR);
      const oldOrphan = put(join(tenant.companyId, 'a'.repeat(32)), 2 * HOUR);
      const youngOrphan = put(join(tenant.companyId, 'b'.repeat(32)), 10 * 60_000);
      const stalePartial = put(join(tenant.companyId, `${'c'.repeat(32)}.partial`), 2 * HOUR);
      const freshPartial = put(join(tenant.companyId, `${'d'.repeat(32)}.partial`), 60_000);

      const at = { ...ctx, clock: { now: () => now } };
      const removed = await purgeOrphanFiles(at);
      assert.equal(removed, 2);
      assert.equal(existsSync(oldOrphan), false, 'an old file no record names goes');
      assert.equal(existsSync(stalePartial), false, 'a stale partial upload goes');
      assert.ok(existsSync(youngOrphan), 'a young file may belong to a copy still running');
      assert.ok(existsSync(freshPartial), 'an upload in progress stays');
      assert.ok(await ctx.files.exists(live), "a live record's file stays");
      assert.ok(await ctx.files.exists(deletedKey), "a deleted record's file waits for its record's purge");
      // The injectable threshold: with no grace, the young ones go too.
      assert.equal(await purgeOrphanFiles(at, { graceMs: 0 }), 2);
      assert.equal(existsSync(youngOrphan), false);
      assert.ok(await ctx.files.exists(live));
    });

    it('refuses a negative or fractional number of days', async () => {
      for (const days of [-1, 1.5, Number.NaN]) {
        await assert.rejects(purgeDeletedAttachments(ctx, { olderThanDays: days }), ValidationError);
      }
    });

    it('runs as `taskboard purge-attachments --older-than-days N`', async () => {
      const cardId = await newCard();
      const doomed = await cardFile(cardId, 'cli-doomed');
      const kept = await cardFile(cardId, 'cli-kept');
      const doomedKey = await keyOf(doomed);
      for (const id of [doomed, kept]) await attachmentService.deleteCardAttachment(ctx, caller, cardId, id, {});
      await backdate(doomed, 8);
      await backdate(kept, 6);

      const cli = (args: string[]) => runTaskboard(args, { DATABASE_URL: storage.url, UPLOAD_DIR: uploadDir });
      const bad = await cli(['purge-attachments', '--older-than-days', 'seven']);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /--older-than-days/);
      assert.ok(await row(doomed), 'a refused command changes nothing');

      const run = await cli(['purge-attachments', '--older-than-days', '7', '--json']);
      assert.equal(run.code, 0, run.stderr);
      const out = JSON.parse(run.stdout) as { records: number; files: number; deletedBefore: string; orphanFiles: number };
      assert.deepEqual([out.records, out.files, out.orphanFiles], [1, 1, 0]);
      assert.equal(await row(doomed), undefined);
      assert.equal(await ctx.files.exists(doomedKey), false);
      assert.ok(await row(kept));

      const text = await cli(['purge-attachments']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^Purged 0 attachment record\(s\)/);
    });
  });
}
