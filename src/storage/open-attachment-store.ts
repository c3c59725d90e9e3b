import type { AppConfig } from '../config.ts';
import type { AttachmentStore } from './attachment-store.ts';
import type { Executor } from './database.ts';
import { AttachmentFiles } from './files.ts';
import { uploadJournal } from './repositories/multipart-uploads.ts';

/**
 * The store the configuration names, chosen once at start: a bucket, or the upload folder. A bucket
 * notes its multipart uploads in the database `db` while they run (for the purge), where one is given.
 */
export async function openAttachmentStore(config: Pick<AppConfig, 'attachments' | 'uploadDir'>, db?: Executor): Promise<AttachmentStore> {
  const { storage, s3, timeoutMs } = config.attachments;
  if (storage?.kind === 's3') {
    // The S3 SDK is loaded only where it is used.
    const { S3Store } = await import('./s3-store.ts');
    return new S3Store({ bucket: storage.bucket, prefix: storage.prefix, ...s3, timeoutMs, ...(db ? { journal: uploadJournal(db) } : {}) });
  }
  return new AttachmentFiles(config.uploadDir);
}
