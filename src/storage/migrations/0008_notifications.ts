import { type Kysely, sql } from 'kysely';

/**
 * Notifications (one row per user told of something) and the indexes that find due reminders.
 *
 * Reminders need no table of their own: a card's four `notified_*` flags already say which were
 * sent, and the card writes already clear them when a date changes. Each reminder has a partial
 * index over its date holding only the cards that may still owe it (unarchived, incomplete, flag not
 * set; the one-day ones also without their one-hour sent, which supersedes them), so the scheduler's
 * range scan (`date` in the reminder's window) never reads a card that has no reminder due. The
 * predicates are literals, which both engines need to match them with the scheduler's query
 * (src/storage/repositories/reminders.ts writes the same ones).
 */
export const REMINDER_INDEXES = [
  { name: 'cards_reminder_start_one_hour', date: 'start_date', pending: 'notified_start_one_hour = 0' },
  { name: 'cards_reminder_start_one_day', date: 'start_date', pending: 'notified_start_one_day = 0 and notified_start_one_hour = 0' },
  { name: 'cards_reminder_due_one_hour', date: 'due_date', pending: 'notified_due_one_hour = 0' },
  { name: 'cards_reminder_due_one_day', date: 'due_date', pending: 'notified_due_one_day = 0 and notified_due_one_hour = 0' },
] as const;

/** An index's predicate: the cards that may still owe its reminder (the scheduler's query repeats it to match). */
export function reminderIndexPredicate(index: (typeof REMINDER_INDEXES)[number]): string {
  return `archived = 0 and complete_status = 0 and ${index.pending}`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    // what it is about; no foreign keys: a notification outlives a deleted comment or cheer
    .addColumn('company_id', 'char(24)')
    .addColumn('team_id', 'char(24)')
    .addColumn('card_id', 'char(24)')
    .addColumn('comment_id', 'char(24)')
    .addColumn('discussion_id', 'char(24)')
    .addColumn('cheer_id', 'char(24)')
    // which reminder of a card.reminder: startOneHour, startOneDay, dueOneHour, dueOneDay
    .addColumn('reminder', 'text')
    // null: the system (a reminder)
    .addColumn('actor_user_id', 'char(24)')
    .addColumn('read_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // the owner's pages, newest first
  await db.schema.createIndex('notifications_user_created').on('notifications').columns(['user_id', 'created_at', 'id']).execute();
  for (const index of REMINDER_INDEXES) {
    await sql`create index ${sql.id(index.name)} on cards (${sql.id(index.date)})
      where ${sql.raw(reminderIndexPredicate(index))}`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of REMINDER_INDEXES) await db.schema.dropIndex(index.name).execute();
  await db.schema.dropTable('notifications').execute();
}
