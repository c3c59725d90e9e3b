/**
 * Locking cards for bulk changes and placements, by the lock rule documented in
 * src/domain/access/access.ts (a list, then cards in id order, then what belongs to them).
 */
import type { Transaction } from '../../storage/database.ts';
import { type CardTableRow, cardPositionsInListByState, lockCards } from '../../storage/repositories/cards.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';
import { type PositionRequest, placeAmong } from '../shared/positions.ts';
import { recordRenumbering } from './recorder.ts';

export { lockCards, lockList } from '../../storage/repositories/cards.ts';

/**
 * `lockCards` for a write that changes them: their rows under their locks, and a 404 for a card that
 * is not there, unless `missing` is 'skip' (a bulk request reports each missing card on its own item).
 */
export async function lockCardRows(
  trx: Transaction,
  cardIds: readonly string[],
  missing: 'not-found' | 'skip' = 'not-found',
): Promise<Map<string, CardTableRow>> {
  const locked = await lockCards(trx, cardIds);
  if (missing === 'not-found' && cardIds.some((id) => !locked.has(id))) throw new NotFoundError('Card');
  return locked;
}

/** Which card is placed, and what else the transaction locks. */
export interface CardPlacing {
  /** The card being moved, left out of its siblings; none for a new card. */
  cardId?: string | undefined;
  /** Its archived state: the index counts the cards of that state. New cards are unarchived. */
  archived?: boolean | undefined;
  /** Cards the transaction locks anyway: locked with the renumbered ones, in one pass (step 2). */
  alsoLocking?: readonly string[] | undefined;
}

/**
 * The position of a card placed at `request` in the list `listId`: an index among the list's cards
 * of its archived state (the cards a client sees together), "top" or "bottom". Call it holding the
 * list's lock (step 1), before locking any card. When the siblings must be spread again, each
 * renumbered card records a change (`__v` + 1), locked in id order together with `alsoLocking`.
 */
export async function placeCard(
  trx: Transaction,
  caller: Caller,
  listId: string,
  request: PositionRequest | undefined,
  at: string,
  placing: CardPlacing = {},
): Promise<number> {
  const siblings = await cardPositionsInListByState(trx, listId, placing.archived ?? false, placing.cardId);
  return placeAmong(siblings, request, async (moves) => {
    await lockCards(trx, [...(placing.alsoLocking ?? []), ...moves.map((m) => m.id)]);
    await recordRenumbering(trx, listId, moves, { caller, kind: 'card.renumbered', at });
  });
}
