import type { Kysely } from 'kysely';

/**
 * The whole life of boards, lists and cards: boards get a description; boards and lists
 * an archived flag; boards, lists and cards a deletion mark. Deleting a list or a board marks it and
 * its cards at once (every read leaves marked rows out), then the sweeper removes them in bounded
 * batches (src/domain/boards/sweep.ts). `released_files` keeps the stored files of removed
 * attachment records until the purge may remove them (no request can still be serving them).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('boards')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  for (const table of ['boards', 'lists'] as const) {
    await db.schema
      .alterTable(table)
      .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable(table).addColumn('archived_at', 'text').execute();
  }
  for (const table of ['boards', 'lists', 'cards'] as const) {
    await db.schema.alterTable(table).addColumn('deleted_at', 'text').execute();
    await db.schema.createIndex(`${table}_deleted`).on(table).column('deleted_at').where('deleted_at', 'is not', null).execute();
  }
  await db.schema
    .createTable('released_files')
    .addColumn('storage_key', 'text', (c) => c.primaryKey())
    .addColumn('released_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('released_files_at').on('released_files').column('released_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('released_files').execute();
  for (const table of ['boards', 'lists', 'cards'] as const) {
    await db.schema.dropIndex(`${table}_deleted`).execute();
    await db.schema.alterTable(table).dropColumn('deleted_at').execute();
  }
  for (const table of ['boards', 'lists'] as const) {
    await db.schema.alterTable(table).dropColumn('archived').execute();
    await db.schema.alterTable(table).dropColumn('archived_at').execute();
  }
  await db.schema.alterTable('boards').dropColumn('description').execute();
}
