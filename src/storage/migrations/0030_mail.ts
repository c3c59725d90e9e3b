import type { Kysely } from 'kysely';

/**
 * Mail (docs/people.md, "Mail"): the cursor of the notification mail job in the event feed, and an
 * index for the digest window of a person (their notification mails not sent yet).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_feed')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // null: not started; the job's first pass sets it to the feed's end (no mail for the past)
    .addColumn('position', 'text')
    .execute();
  await db.insertInto('mail_feed').values({ id: 'notifications', position: null }).execute();
  await db.schema.createIndex('mail_outbox_user').on('mail_outbox').columns(['user_id', 'sent_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('mail_outbox_user').execute();
  await db.schema.dropTable('mail_feed').execute();
}
