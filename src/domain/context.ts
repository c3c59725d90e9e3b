import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { AttachmentFiles } from '../storage/files.ts';

/** What every domain service works with. Built once per app; no framework types inside. */
export interface ServiceContext {
  db: Kysely<Database>;
  files: AttachmentFiles;
}
