import type { Kysely } from 'kysely';

/**
 * Languages (docs/people.md, "Languages"): the language a person picked for the web app and their
 * mails (null: the browser's, and English for mail), and the language each queued mail is written in,
 * so a digest gathered from several rows wraps them in the same one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('locale', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('language', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mail_outbox').dropColumn('language').execute();
  await db.schema.alterTable('users').dropColumn('locale').execute();
}
