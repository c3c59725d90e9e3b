import type { Kysely } from 'kysely';

/**
 * The multipart uploads to a bucket that are running, each noted before its first part and struck
 * off once completed or aborted: a row still there after the grace period is an upload a killed
 * instance left behind, which `taskboard purge-attachments` aborts. Not every S3-compatible server
 * lists its unfinished uploads, so the database keeps the list.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('multipart_uploads')
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('begun_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('multipart_uploads_pk', ['store', 'upload_id'])
    .execute();
  await db.schema.createIndex('multipart_uploads_begun').on('multipart_uploads').columns(['store', 'begun_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('multipart_uploads').execute();
}
