import type { Kysely } from 'kysely';

/**
 * Calendar feeds (docs/decisions/0212-calendar-feeds.md): a person's secret iCalendar URL of the
 * dated cards they reach, of their My Tasks (no board) or of one board. Only the token's SHA-256 is
 * kept; a feed goes with its person or its board.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('calendar_feeds')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('board_id', 'char(24)', (c) => c.references('boards.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('calendar_feeds_user').on('calendar_feeds').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('calendar_feeds').execute();
}
