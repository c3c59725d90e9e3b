import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Executor, Transaction } from '../database.ts';

/** Where a card belongs: the columns that say who may reach it. */
export interface CardTeam {
  id: string;
  company_id: string;
  team_id: string;
}

/**
 * Whether the user in `userColumn` reaches the card: a member of its team, or an owner or admin of
 * its company (the reach rule of src/domain/access/access.ts, asked of people).
 */
function reachesCardTeam(eb: ExpressionBuilder<any, any>, userColumn: string, card: CardTeam): Expression<SqlBool> {
  return eb.or([
    eb.exists(
      eb.selectFrom('team_members').select('team_members.user_id').whereRef('team_members.user_id', '=', userColumn).where('team_id', '=', card.team_id),
    ),
    eb.exists(
      eb
        .selectFrom('company_members')
        .select('company_members.user_id')
        .whereRef('company_members.user_id', '=', userColumn)
        .where('company_id', '=', card.company_id)
        .where('role', 'in', ['owner', 'admin']),
    ),
  ]);
}

/**
 * The people of a card's team and the owners and admins of its company, with their names: those
 * src/domain/access/people.ts counts as reaching the card. One query.
 */
export function peopleOfCardTeam(db: Executor, card: CardTeam): Promise<{ id: string; full_name: string }[]> {
  return db
    .selectFrom('users')
    .select(['users.id', 'users.full_name'])
    .where((eb) => reachesCardTeam(eb, 'users.id', card))
    .orderBy('users.id')
    .execute();
}

/** The card's watchers who are still of its team or an owner or admin of its company (one query). */
export async function watcherIdsOfCardTeam(db: Executor, card: CardTeam): Promise<string[]> {
  const rows = await db
    .selectFrom('card_watchers as w')
    .select('w.user_id')
    .where('w.card_id', '=', card.id)
    .where((eb) => reachesCardTeam(eb, 'w.user_id', card))
    .orderBy('w.user_id')
    .execute();
  return rows.map((row) => row.user_id);
}

export async function isWatching(db: Executor, cardId: string, userId: string): Promise<boolean> {
  return (await db.selectFrom('card_watchers').select('user_id').where('card_id', '=', cardId).where('user_id', '=', userId).executeTakeFirst()) !== undefined;
}

/** Adds the watcher; false when they were watching already. */
export async function addWatcher(db: Transaction, cardId: string, userId: string, at: string): Promise<boolean> {
  if (await isWatching(db, cardId, userId)) return false;
  await db.insertInto('card_watchers').values({ card_id: cardId, user_id: userId, created_at: at }).execute();
  return true;
}

/** Removes the watcher; false when they were not watching. */
export async function removeWatcher(db: Transaction, cardId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('card_watchers').where('card_id', '=', cardId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
