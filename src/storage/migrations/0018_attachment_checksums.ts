import type { Kysely } from 'kysely';

/**
 * A file attachment keeps the SHA-256 of its bytes (hex): downloads answer with it as their ETag,
 * and `taskboard attachments migrate` checks each copy against it. Files stored before this have
 * none until the migrate command (or a copy) measures them; their downloads carry no ETag.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('attachments').addColumn('sha256', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('attachments').dropColumn('sha256').execute();
}
