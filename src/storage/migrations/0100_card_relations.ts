import type { Kysely } from 'kysely';

/**
 * Card relations (docs/decisions/0291): "blocks", "relates" and "duplicates" between two cards of one
 * company. A row reads `from` kind `to` ("A blocks B"); a "relates" row keeps the smaller id first,
 * so one pair has one row whichever card asked. Deleting either card deletes the row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('card_relations')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('from_card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('to_card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    // blocks, relates, duplicates
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('creator_id', 'char(24)', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // one relation of a kind per pair; the cycle check walks "blocks" forward from a card
  await db.schema.createIndex('card_relations_pair').on('card_relations').columns(['from_card_id', 'kind', 'to_card_id']).unique().execute();
  await db.schema.createIndex('card_relations_to').on('card_relations').columns(['to_card_id', 'kind']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('card_relations').execute();
}
