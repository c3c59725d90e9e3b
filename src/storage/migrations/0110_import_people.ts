import type { Kysely } from 'kysely';

/**
 * People an import could not map (docs/decisions/0155-import-people-mapping.md): which card or
 * checklist item each unmapped person of the file was on, so that mapping them after the import puts
 * the chosen member there. A row goes when its person is mapped, or with its card or item.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_unmapped_places')
    .addColumn('import_id', 'char(24)', (c) => c.notNull().references('imports.id').onDelete('cascade'))
    // the file's key of the person (a Trello member id, an exported user id)
    .addColumn('person_key', 'text', (c) => c.notNull())
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('checklist_item_id', 'char(24)', (c) => c.references('checklist_items.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('import_unmapped_places_person').on('import_unmapped_places').columns(['import_id', 'person_key']).execute();
  // a card's removal finds its rows by this
  await db.schema.createIndex('import_unmapped_places_card').on('import_unmapped_places').column('card_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_unmapped_places').execute();
}
