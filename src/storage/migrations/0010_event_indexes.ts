import type { Kysely } from 'kysely';

/**
 * Fewer indexes to write per recorded event (recording an event should add little to a write such as a
 * label toggle; each index is one more B-tree insert and one more page in the commit).
 * Every read of `events` keeps an index or order that serves it:
 *
 *   - `events_company_id` goes: only the webhook fan-out filtered on the company, and it reads the
 *     feed in order after its cursor (SQLite: the rowid `seq`; PostgreSQL: `events_feed`);
 *   - `events_user_id` becomes partial: only events addressed to a user (notifications) have one,
 *     and only the notification stream reads by user (`user_id = ?` implies not null);
 *   - `events_created_at` goes: the retention prune reads the `id` index instead, whose first eight
 *     characters are the event's creation second (src/domain/events/record.ts, `newId(at)`).
 *
 * Kept: `id` (Last-Event-ID, the prune), `(card_id|board_id|team_id, seq)` (the activity reads).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_company_id').execute();
  await db.schema.dropIndex('events_created_at').execute();
  await db.schema.dropIndex('events_user_id').execute();
  await db.schema.createIndex('events_user_id').on('events').columns(['user_id', 'seq']).where('user_id', 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_user_id').execute();
  await db.schema.createIndex('events_user_id').on('events').columns(['user_id', 'seq']).execute();
  await db.schema.createIndex('events_created_at').on('events').column('created_at').execute();
  await db.schema.createIndex('events_company_id').on('events').columns(['company_id', 'seq']).execute();
}
