import type { Kysely } from 'kysely';

/**
 * A card may be a template of its board (docs/decisions/0302): it stays a card, marked, and new
 * cards are copied from it. Every card made before is not one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('cards')
    .addColumn('is_template', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('cards').dropColumn('is_template').execute();
}
