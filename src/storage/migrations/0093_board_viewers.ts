import type { Kysely } from 'kysely';

/**
 * Who is viewing a board now (docs/decisions/0260-board-presence.md): one row per open board stream
 * that asked to be counted, kept alive by its instance until `seen_until` and deleted when the stream
 * ends. A row whose instance stopped refreshing it (a crash) is past `seen_until` and counts no more.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('board_viewers')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('board_id', 'char(24)', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('joined_at', 'text', (c) => c.notNull())
    // ISO, UTC: past it the row counts no more
    .addColumn('seen_until', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('board_viewers_board').on('board_viewers').columns(['board_id', 'seen_until']).execute();
  await db.schema.createIndex('board_viewers_expiry').on('board_viewers').column('seen_until').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('board_viewers').execute();
}
