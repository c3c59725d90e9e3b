import type { Kysely } from 'kysely';

/**
 * Watchers (docs/people.md, "Watching a card"): a person who is not a card's member may watch it, and
 * is then told of it as its members are. A row per watcher; it goes with the card or the person.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('card_watchers')
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_watchers_pk', ['card_id', 'user_id'])
    .execute();
  await db.schema.createIndex('card_watchers_user').on('card_watchers').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('card_watchers').execute();
}
