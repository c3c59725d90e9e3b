import { type Kysely, sql } from 'kysely';

/**
 * The card read model (docs/decisions/0036): each card's record as Get Card Details answers it, kept as one
 * string, with the stamps it was built from. It counts only while every stamp still holds, so a
 * view is never served stale and needs no deleting:
 *
 *   - `card_version`: the card's `__v`, moved by every change of the card's world (the change
 *     recorder, src/domain/cards/recorder.ts);
 *   - `labels_stamp`: the card's board's `labels_stamp`, moved when a label of the board is renamed
 *     or recoloured (a card shows only labels of its own board);
 *   - `users_stamp`: the `users` row of `card_view_stamps`, moved when a user changes the name or
 *     photo that cards show (members, attachments' and cheers' creators);
 *   - `form`: how the record is written (the Card schema and the mapping); another form is a miss.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('boards')
    .addColumn('labels_stamp', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('card_view_stamps')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('stamp', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into card_view_stamps (name, stamp) values ('users', 0)`.execute(db);
  await db.schema
    .createTable('card_views')
    .addColumn('card_id', 'char(24)', (c) => c.primaryKey().references('cards.id').onDelete('cascade'))
    .addColumn('form', 'text', (c) => c.notNull())
    .addColumn('card_version', 'integer', (c) => c.notNull())
    .addColumn('labels_stamp', 'integer', (c) => c.notNull())
    .addColumn('users_stamp', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('card_views').execute();
  await db.schema.dropTable('card_view_stamps').execute();
  await db.schema.alterTable('boards').dropColumn('labels_stamp').execute();
}
