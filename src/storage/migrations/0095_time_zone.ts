import type { Kysely } from 'kysely';

/**
 * Time zones (docs/people.md, "Time zone"): the IANA time zone a person picked for the web app's
 * dates (null: the browser's).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('time_zone').execute();
}
