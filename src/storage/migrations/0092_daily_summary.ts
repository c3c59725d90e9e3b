import type { Kysely } from 'kysely';

/**
 * The daily summary mail (docs/people.md, "Mail"): a person's time zone (an IANA name; null follows
 * the browser in the web app, and UTC for mails), how their notification mail comes (`minute`: the digest a minute after the first; `daily`: one
 * summary each morning instead) and the local date of the last summary sent, which claims each day's
 * summary once across instances.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('email_cadence', 'text', (c) => c.notNull().defaultTo('minute'))
    .execute();
  await db.schema.alterTable('users').addColumn('summary_sent_on', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('summary_sent_on').execute();
  await db.schema.alterTable('users').dropColumn('email_cadence').execute();
  await db.schema.alterTable('users').dropColumn('time_zone').execute();
}
