import type { Kysely } from 'kysely';

/**
 * An invitation may be made from a board (its Share button): the invitee joins that board's team
 * and lands on the board after accepting. Invitations made elsewhere keep null.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invitations').addColumn('board_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invitations').dropColumn('board_id').execute();
}
