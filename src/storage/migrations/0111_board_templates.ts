import type { Kysely } from 'kysely';

/**
 * Board templates kept on a team (docs/decisions/0303-board-templates.md): a snapshot of a board's
 * lists, labels, custom fields and rules as JSON text, from which new boards of the team are made.
 * A snapshot, not a hidden board: nothing of it runs (its rules), is listed or searched.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('board_templates')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('team_id', 'char(24)', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    // JSON text: the lists, labels, fields and rules, tied together by keys of the template's own
    .addColumn('content', 'text', (c) => c.notNull())
    // the board it was made from, for the record only: the board may be gone
    .addColumn('source_board_id', 'char(24)')
    .addColumn('creator_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('board_templates_team').on('board_templates').columns(['team_id', 'name']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('board_templates').execute();
}
