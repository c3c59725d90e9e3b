import type { Kysely } from 'kysely';

/**
 * The card's record (`cardQuery`, src/storage/repositories/card-records.ts) lists what a card keeps,
 * each list in its order. Where no index walked a list in that order, SQLite sorted it in a
 * temporary B-tree on every build of a record (a toggle's answer, a card read without a stored
 * view, a page's cards). Each list now has an index in its order, starting with the card:
 * members and seen marks by time then user, attachments by time then id (its columns also serve
 * the attachment seen marks' join), cheers by time then id, checklists by position then id. Where
 * an index is replaced, the new one starts with the old one's columns and serves what it served.
 * The card's labels keep their one index: a new one would cost every toggle's label writes more
 * than it saves the record.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('attachments_card').execute();
  await db.schema.createIndex('attachments_card').on('attachments').columns(['card_id', 'is_deleted', 'created_at', 'id']).execute();
  await db.schema.dropIndex('checklists_card_position').execute();
  await db.schema.createIndex('checklists_card_position').on('checklists').columns(['card_id', 'position', 'id']).execute();
  await db.schema.dropIndex('cheers_card').execute();
  await db.schema.createIndex('cheers_card').on('cheers').columns(['card_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('card_members_card').on('card_members').columns(['card_id', 'created_at', 'user_id']).execute();
  await db.schema.createIndex('card_seen_card').on('card_seen').columns(['card_id', 'seen_at', 'user_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('card_seen_card').execute();
  await db.schema.dropIndex('card_members_card').execute();
  await db.schema.dropIndex('cheers_card').execute();
  await db.schema.createIndex('cheers_card').on('cheers').column('card_id').execute();
  await db.schema.dropIndex('checklists_card_position').execute();
  await db.schema.createIndex('checklists_card_position').on('checklists').columns(['card_id', 'position']).execute();
  await db.schema.dropIndex('attachments_card').execute();
  await db.schema.createIndex('attachments_card').on('attachments').columns(['card_id', 'is_deleted', 'created_at']).execute();
}
