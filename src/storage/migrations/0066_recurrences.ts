import type { Kysely } from 'kysely';

/**
 * Recurring cards (docs/api.md, "Recurring cards"; docs/decisions/0142-recurring-cards.md): a card
 * template with an RFC 5545 rule in a time zone, the next occurrence it owes, and one row per
 * occurrence made (its key: the recurrence and the occurrence's instant), so that none is made twice.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('recurrences')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('team_id', 'char(24)', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('board_id', 'char(24)', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('list_id', 'char(24)', (c) => c.notNull())
    .addColumn('position', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON text: the card each occurrence makes
    .addColumn('card', 'text', (c) => c.notNull())
    .addColumn('rule', 'text', (c) => c.notNull())
    // the first occurrence's wall-clock time in the zone, `2031-03-01T09:00`
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    // create or skip: what a pass does with occurrences missed while no server ran
    .addColumn('missed', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('paused_reason', 'text')
    .addColumn('author_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // the instant of the next occurrence owed (ISO, UTC); null: the rule has no more
    .addColumn('next_at', 'text')
    .addColumn('made', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recurrences_due').on('recurrences').columns(['enabled', 'next_at']).execute();
  await db.schema.createIndex('recurrences_board').on('recurrences').column('board_id').execute();
  await db.schema
    .createTable('recurrence_occurrences')
    .addColumn('recurrence_id', 'char(24)', (c) => c.notNull().references('recurrences.id').onDelete('cascade'))
    .addColumn('occurs_at', 'text', (c) => c.notNull())
    .addColumn('card_id', 'char(24)', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('recurrence_occurrences_pk', ['recurrence_id', 'occurs_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recurrence_occurrences').execute();
  await db.schema.dropTable('recurrences').execute();
}
