/**
 * `taskboard attachments migrate --to <store>`: copies every stored attachment to another store
 * under the same key, so the records need no change and the operator switches ATTACHMENT_STORAGE
 * once it reports success. It switches nothing itself. Run again, it skips what the target holds
 * already with the right checksum, so an interrupted run resumes.
 */
import { createHash } from 'node:crypto';
import type { AttachmentStore } from '../../storage/attachment-store.ts';
import type { ServiceContext } from '../context.ts';

export interface MigrationResult {
  /** Objects copied now. */
  copied: number;
  /** Objects the target held already, with the checksum the record keeps. */
  skipped: number;
  /** Records whose object the source store does not have (their downloads are 404s on both stores). */
  missing: string[];
  /** Copies whose checksum differed from the record's (left in the target, to be looked at). */
  mismatched: string[];
  /** Checksums recorded now for files stored before checksums were kept. */
  measured: number;
}

async function checksumOf(store: AttachmentStore, key: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of await store.open(key)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function migrateAttachments(
  ctx: ServiceContext,
  target: AttachmentStore,
  onEach?: (key: string, done: number, total: number) => void,
): Promise<MigrationResult> {
  const rows = await ctx.db.selectFrom('attachments').select(['storage_key', 'sha256']).where('storage_key', 'is not', null).orderBy('storage_key').execute();
  const released = await ctx.db.selectFrom('released_files').select('storage_key').execute();
  const checksums = new Map<string, string | null>();
  for (const row of rows) if (!checksums.get(row.storage_key as string)) checksums.set(row.storage_key as string, row.sha256);
  for (const row of released) if (!checksums.has(row.storage_key)) checksums.set(row.storage_key, null);
  const result: MigrationResult = { copied: 0, skipped: 0, missing: [], mismatched: [], measured: 0 };
  let done = 0;
  for (const [key, recorded] of checksums) {
    done++;
    if (recorded && (await target.exists(key)) && (await checksumOf(target, key)) === recorded) {
      result.skipped++;
      onEach?.(key, done, checksums.size);
      continue;
    }
    if (!(await ctx.files.exists(key))) {
      result.missing.push(key);
      continue;
    }
    const copy = await target.saveAt(key, await ctx.files.open(key));
    if (recorded && copy.sha256 !== recorded) result.mismatched.push(key);
    else if (!recorded) {
      // The source's own bytes, measured on their way: the record keeps them from now on.
      await ctx.db.updateTable('attachments').set({ sha256: copy.sha256 }).where('storage_key', '=', key).where('sha256', 'is', null).execute();
      result.measured++;
    }
    result.copied++;
    onEach?.(key, done, checksums.size);
  }
  return result;
}
