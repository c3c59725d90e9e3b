import type { Kysely } from 'kysely';

/**
 * My Tasks walks the caller's memberships in the order it was made a member: with (user, assigned
 * at, card) in one index a page reads its rows in order and stops at the page's end, instead of
 * sorting every membership of the user per page. It replaces the index on the user alone, which
 * it covers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('card_members_user_assigned').on('card_members').columns(['user_id', 'created_at', 'card_id']).execute();
  await db.schema.dropIndex('card_members_user').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('card_members_user').on('card_members').column('user_id').execute();
  await db.schema.dropIndex('card_members_user_assigned').execute();
}
