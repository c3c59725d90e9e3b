/**
 * Deleting an attachment only marks its record deleted: the file stays, so a mistaken delete can be
 * investigated or undone by an operator. The purge ends that: records deleted longer ago than a
 * number of days go for good, with their files (and the cheers on them).
 */
import * as attachments from '../../storage/repositories/attachments.ts';
import * as lifecycle from '../../storage/repositories/lifecycle.ts';
import * as multipartUploads from '../../storage/repositories/multipart-uploads.ts';
import type { ServiceContext } from '../context.ts';
import { ValidationError } from '../shared/errors.ts';

export const DEFAULT_PURGE_AFTER_DAYS = 30;
/** Files no record names are left this long: an upload may be between its file and its commit. */
export const ORPHAN_GRACE_MS = 3_600_000;
const BATCH = 500;
const DAY_MS = 86_400_000;

export interface PurgeResult {
  /** Records deleted before this instant were purged. */
  deletedBefore: string;
  /** Records removed. */
  records: number;
  /** Files removed (a record's file that was already gone is not counted). */
  files: number;
}

/**
 * Removes attachment records marked deleted more than `olderThanDays` days before `now`, and their
 * files, in batches. A file goes first, then its record, so a failure half way leaves a record
 * whose file is gone (the next purge finishes it), never a file that nothing points to. A file that
 * another record still points to stays.
 */
export async function purgeDeletedAttachments(ctx: ServiceContext, options: { olderThanDays?: number } = {}): Promise<PurgeResult> {
  const days = options.olderThanDays ?? DEFAULT_PURGE_AFTER_DAYS;
  if (!Number.isInteger(days) || days < 0) {
    throw new ValidationError('olderThanDays must be a whole number of days, 0 or more', [{ field: 'olderThanDays', message: 'must be an integer >= 0' }]);
  }
  const deletedBefore = new Date(ctx.clock.now() - days * DAY_MS).toISOString();
  const result: PurgeResult = { deletedBefore, records: 0, files: 0 };
  for (;;) {
    const batch = await attachments.deletedBefore(ctx.db, deletedBefore, BATCH);
    if (batch.length === 0) break;
    const ids = batch.map((a) => a.id);
    const keys = [...new Set(batch.flatMap((a) => (a.storage_key ? [a.storage_key] : [])))];
    const inUse = await attachments.storageKeysInUse(ctx.db, keys, ids);
    for (const key of keys) {
      if (inUse.has(key)) continue;
      if (await ctx.files.exists(key)) result.files += 1;
      await ctx.files.remove(key);
    }
    const removed = await ctx.db.transaction().execute((trx) => attachments.removeDeletedAttachments(trx, ids));
    result.records += removed;
    if (removed === 0) break;
  }
  // files of attachment records that went with their card (Delete Card, a swept list or board)
  for (;;) {
    const keys = await lifecycle.releasedBefore(ctx.db, deletedBefore, BATCH);
    if (keys.length === 0) break;
    const inUse = await attachments.storageKeysInUse(ctx.db, keys, []);
    for (const key of keys) {
      if (inUse.has(key)) continue;
      if (await ctx.files.exists(key)) result.files += 1;
      await ctx.files.remove(key);
    }
    await lifecycle.forgetReleased(ctx.db, keys);
  }
  return result;
}

/**
 * Removes files under the upload folder that no attachment record names (a crash between copying a
 * card's files and the commit leaves such files) and stale `.partial` uploads, when last written
 * more than `graceMs` before `now`: a younger file may belong to an upload or copy still running.
 * Answers how many files went.
 */
export async function purgeOrphanFiles(ctx: ServiceContext, options: { graceMs?: number } = {}): Promise<number> {
  const before = ctx.clock.now() - (options.graceMs ?? ORPHAN_GRACE_MS);
  let removed = 0;
  let batch: string[] = [];
  const flush = async () => {
    const keys = batch.filter((key) => !key.endsWith('.partial'));
    const named = await attachments.storageKeysInUse(ctx.db, keys, []);
    // a released file waits for the purge of deleted records, not for the orphans' grace
    const released = await lifecycle.releasedAmong(ctx.db, keys);
    for (const key of batch) {
      if (named.has(key) || released.has(key)) continue;
      await ctx.files.remove(key);
      removed += 1;
    }
    batch = [];
  };
  for await (const file of ctx.files.list()) {
    if (file.modifiedAt >= before) continue;
    batch.push(file.key);
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length) await flush();
  removed += await abortAbandonedUploads(ctx, before);
  // The store's own list finds those begun in the moment before their journal row (where it lists them).
  if (ctx.files.abortStaleUploads) removed += await ctx.files.abortStaleUploads(before);
  return removed;
}

/**
 * Multipart uploads the journal names that were begun before `before` and never ended (an instance
 * killed mid-upload): each is aborted, so the store drops its parts, and its object removed unless a
 * record names it (one killed between completing the upload and striking it off). Answers how many.
 */
async function abortAbandonedUploads(ctx: ServiceContext, before: number): Promise<number> {
  const abort = ctx.files.abortUpload?.bind(ctx.files);
  if (!abort) return 0;
  let aborted = 0;
  for (;;) {
    const uploads = await multipartUploads.uploadsBegunBefore(ctx.db, ctx.files.description, new Date(before).toISOString(), BATCH);
    if (uploads.length === 0) break;
    const named = await attachments.storageKeysInUse(
      ctx.db,
      uploads.map((upload) => upload.key),
      [],
    );
    for (const upload of uploads) {
      await abort(upload.key, upload.uploadId);
      if (!named.has(upload.key)) await ctx.files.remove(upload.key);
      await multipartUploads.forgetUpload(ctx.db, upload);
      aborted += 1;
    }
  }
  return aborted;
}
