import type { MultipartUpload, UploadJournal } from '../attachment-store.ts';
import type { Executor } from '../database.ts';

/** Notes a multipart upload as begun (its own autocommitted write, so a crash cannot undo it). */
export async function noteUploadBegun(db: Executor, upload: MultipartUpload, at: string): Promise<void> {
  await db
    .insertInto('multipart_uploads')
    .values({ store: upload.store, upload_id: upload.uploadId, storage_key: upload.key, begun_at: at })
    .onConflict((oc) => oc.columns(['store', 'upload_id']).doNothing())
    .execute();
}

/** Strikes a multipart upload off (completed or aborted); one already gone is no error. */
export async function forgetUpload(db: Executor, upload: MultipartUpload): Promise<void> {
  await db.deleteFrom('multipart_uploads').where('store', '=', upload.store).where('upload_id', '=', upload.uploadId).execute();
}

/** Up to `limit` uploads to the store begun before `before`, oldest first. */
export async function uploadsBegunBefore(db: Executor, store: string, before: string, limit: number): Promise<(MultipartUpload & { begunAt: string })[]> {
  const rows = await db
    .selectFrom('multipart_uploads')
    .select(['store', 'upload_id', 'storage_key', 'begun_at'])
    .where('store', '=', store)
    .where('begun_at', '<', before)
    .orderBy('begun_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ store: row.store, key: row.storage_key, uploadId: row.upload_id, begunAt: row.begun_at }));
}

/** The journal a bucket's store keeps its running multipart uploads in: this table. */
export function uploadJournal(db: Executor, now: () => number = Date.now): UploadJournal {
  return {
    begun: (upload) => noteUploadBegun(db, upload, new Date(now()).toISOString()),
    ended: (upload) => forgetUpload(db, upload),
  };
}
