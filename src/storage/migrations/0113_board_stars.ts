import type { Kysely } from 'kysely';

/**
 * Starred boards (docs/decisions/0276-starred-boards.md): a person's own marks, kept on the server so
 * they follow the person to every browser and device. A star goes with its person or its board.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('board_stars')
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('board_id', 'char(24)', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('board_stars_pk', ['user_id', 'board_id'])
    .execute();
  await db.schema.createIndex('board_stars_board').on('board_stars').column('board_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('board_stars').execute();
}
