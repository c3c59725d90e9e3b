import { type Kysely, sql } from 'kysely';

/**
 * The overdue notice: a card's members are told once when its due date passes while it is
 * incomplete. Its flag sits beside the reminders' (migration 0008) and a partial index over the due
 * date holds only the cards that may still owe it, so the scheduler's range scan reads no other card.
 * The predicate is a literal, which src/storage/repositories/reminders.ts repeats for the planners.
 */
export const OVERDUE_INDEX = { name: 'cards_overdue', pending: 'archived = 0 and complete_status = 0 and notified_overdue = 0' } as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('cards')
    .addColumn('notified_overdue', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`create index ${sql.id(OVERDUE_INDEX.name)} on cards (due_date) where ${sql.raw(OVERDUE_INDEX.pending)}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex(OVERDUE_INDEX.name).execute();
  await db.schema.alterTable('cards').dropColumn('notified_overdue').execute();
}
