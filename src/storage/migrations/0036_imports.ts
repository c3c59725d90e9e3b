import type { Kysely } from 'kysely';

/**
 * Board imports (docs/api.md, "Imports"): one row per import, read by Get Import. While it runs, the
 * board it writes stays marked deleted (hidden from every read) and `lease_until` keeps the sweeper
 * off it; an import that stops renewing its lease (its process died) counts as failed, and the sweeper
 * removes what it wrote.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('imports')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('team_id', 'char(24)', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // trello or taskboard
    .addColumn('source', 'text', (c) => c.notNull())
    // running, done or failed
    .addColumn('status', 'text', (c) => c.notNull())
    // not a foreign key: the board is written (and may be swept) after this row
    .addColumn('board_id', 'char(24)', (c) => c.notNull())
    .addColumn('board_name', 'text', (c) => c.notNull())
    .addColumn('cards_total', 'integer', (c) => c.notNull())
    .addColumn('cards_done', 'integer', (c) => c.notNull())
    // JSON text: what was brought over, matched, left out
    .addColumn('report', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('request_id', 'text')
    .addColumn('lease_until', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('imports_board').on('imports').column('board_id').execute();
  await db.schema.createIndex('imports_status_lease').on('imports').columns(['status', 'lease_until']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('imports').execute();
}
