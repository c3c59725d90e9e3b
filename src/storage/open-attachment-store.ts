import type { AppConfig } from '../config.ts';
import type { AttachmentStore } from './attachment-store.ts';
import { AttachmentFiles } from './files.ts';
import { S3Store } from './s3-store.ts';

/** The store the configuration names, chosen once at start: a bucket, or the upload folder. */
export function openAttachmentStore(config: Pick<AppConfig, 'attachments' | 'uploadDir'>): AttachmentStore {
  const { storage, s3, timeoutMs } = config.attachments;
  if (storage?.kind === 's3') return new S3Store({ bucket: storage.bucket, prefix: storage.prefix, ...s3, timeoutMs });
  return new AttachmentFiles(config.uploadDir);
}
