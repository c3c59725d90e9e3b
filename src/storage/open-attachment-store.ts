import type { AppConfig } from '../config.ts';
import type { AttachmentStore } from './attachment-store.ts';
import { AttachmentFiles } from './files.ts';

/** The store the configuration names, chosen once at start: a bucket, or the upload folder. */
export async function openAttachmentStore(config: Pick<AppConfig, 'attachments' | 'uploadDir'>): Promise<AttachmentStore> {
  const { storage, s3, timeoutMs } = config.attachments;
  if (storage?.kind === 's3') {
    // The S3 SDK is loaded only where it is used.
    const { S3Store } = await import('./s3-store.ts');
    return new S3Store({ bucket: storage.bucket, prefix: storage.prefix, ...s3, timeoutMs });
  }
  return new AttachmentFiles(config.uploadDir);
}
