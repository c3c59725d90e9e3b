/**
 * Locking cards for bulk changes and placements, by the lock rule documented in
 * src/domain/access/access.ts (a list, then cards in id order, then what belongs to them).
 */
import type { Transaction } from '../../storage/database.ts';
import { cardPositionsInListByState, lockCards, recordCardChange, renumberCards } from '../../storage/repositories/cards.ts';
import { NotFoundError } from '../shared/errors.ts';
import { placeAmong, type PositionRequest } from '../shared/positions.ts';

export { lockCards, lockList } from '../../storage/repositories/cards.ts';

/**
 * Records a change of each card (`__v` + 1, `updatedAt`), taking their locks in id order (step 2).
 * A card that does not exist is a 404, unless `missing` is 'skip' (a bulk request reports each
 * missing card on its own item).
 */
export async function recordCardChanges(trx: Transaction, cardIds: readonly string[], at: string, missing: 'not-found' | 'skip' = 'not-found'): Promise<void> {
  for (const cardId of [...new Set(cardIds)].sort()) {
    if (!(await recordCardChange(trx, cardId, at)) && missing === 'not-found') throw new NotFoundError('Card');
  }
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
export async function placeCard(trx: Transaction, listId: string, request: PositionRequest | undefined, at: string, placing: CardPlacing = {}): Promise<number> {
  const siblings = await cardPositionsInListByState(trx, listId, placing.archived ?? false, placing.cardId);
  return placeAmong(siblings, request, async (moves) => {
    await lockCards(trx, [...(placing.alsoLocking ?? []), ...moves.map((m) => m.id)]);
    await renumberCards(trx, listId, moves, at);
  });
}
