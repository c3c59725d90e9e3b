import type { AppConfig } from '../config.ts';
import type { AttachmentStore } from './attachment-store.ts';
import type { Executor } from './database.ts';
import { AttachmentFiles } from './files.ts';
import { uploadJournal } from './repositories/multipart-uploads.ts';
import { S3Store } from './s3-store.ts';

/**
 * The store the configuration names, chosen once at start: a bucket, or the upload folder. A bucket
 * notes its multipart uploads in the database `db` while they run (for the purge), where one is given.
 */
export function openAttachmentStore(config: Pick<AppConfig, 'attachments' | 'uploadDir'>, db?: Executor): AttachmentStore {
  const { storage, s3, timeoutMs } = config.attachments;
  if (storage?.kind === 's3')
    return new S3Store({ bucket: storage.bucket, prefix: storage.prefix, ...s3, timeoutMs, ...(db ? { journal: uploadJournal(db) } : {}) });
  return new AttachmentFiles(config.uploadDir);
}
