/**
 * Who is told of a card: the people who reach it (its team's members, its company's owners and
 * admins: the reach rule of ./access.ts, asked of people rather than of a caller). A mention names
 * only them (src/domain/notifications/mentions.ts) and a watcher who no longer reaches the card is
 * told nothing, so nothing of a card reaches anyone outside its reach through a notification.
 */
import type { Executor } from '../../storage/database.ts';
import { cardMemberIds } from '../../storage/repositories/card-copies.ts';
import { type CardTeam, peopleOfCardTeam, watcherIdsOfCardTeam } from '../../storage/repositories/watchers.ts';

/** The people who reach the card, with their full names (whom `@Handle` may name). */
export function peopleWhoReachCard(db: Executor, card: CardTeam): Promise<{ id: string; full_name: string }[]> {
  return peopleOfCardTeam(db, card);
}

/** Whom news of the card goes to: its members, and its watchers who still reach it. */
export async function cardAudience(db: Executor, card: CardTeam): Promise<string[]> {
  const [members, watchers] = await Promise.all([cardMemberIds(db, card.id), watcherIdsOfCardTeam(db, card)]);
  return [...new Set([...members, ...watchers])];
}
