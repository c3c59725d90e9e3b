/**
 * The lock rule of the card and checklist services.
 *
 * A transaction keeps every row it wrote locked until it ends (where the database runs write
 * transactions side by side), so two transactions that lock the same rows in opposite orders wait on
 * each other in a circle: a deadlock, which the database breaks by aborting one of them. Every
 * transaction that changes cards therefore locks in one order:
 *
 *   1. the list it places cards in (`lockList`: Create Card, Reorder Card, the copies and moves),
 *      one list per transaction (lists that cards leave are not locked: see `renumberCards`);
 *   2. then cards, in id order and in one pass (`lockCards`, `recordCardChanges`): the cards the
 *      request changes or copies, together with the cards its placement renumbers (`placeCard`);
 *   3. then what belongs to those cards (checklists, items, members, labels, comments, cheers,
 *      attachments), which nothing changes without holding its card.
 *
 * (A board comes before its lists: the lists service locks the board to place lists.) A transaction
 * holding a lock thus waits only for locks further down the order, so no circle can form. Where a
 * request learns what to lock only from rows it read before locking, it checks them again under the
 * locks and starts over when they changed (`ChangedMeanwhile`, run again by `inTransaction`, which
 * also runs again a transaction the database aborted as a deadlock's victim).
 */
import type { Executor } from '../../storage/database.ts';
import { cardPositionsInListByState, type CardTableRow, findCard, lockCards, recordCardChange, renumberCards } from '../../storage/repositories/cards.ts';
import { type Caller, requireReach, type Scope } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';
import { placeAmong, type PositionRequest } from '../shared/positions.ts';

export { lockCards, lockList } from '../../storage/repositories/cards.ts';

/**
 * Records a change of the card (`__v` + 1, `updatedAt`), which takes its row lock, and only then
 * reads the card and checks reach and scope: read before the lock, a card moved meanwhile to
 * another team would be judged, and new rows stamped, by the team it left. Whatever is kept with a
 * card (a checklist, an item, a comment, a reply) is reached through its card, whatever the row
 * itself carries. Outside reach, or without a card (the thing is not there), it is a 404 named
 * `what`; the transaction then rolls back, so nothing changed.
 */
export async function lockCardInReach(
  trx: Executor,
  caller: Caller,
  cardId: string | undefined,
  what: string,
  scope: Scope,
  at: string,
): Promise<CardTableRow> {
  if (cardId === undefined || !(await recordCardChange(trx, cardId, at))) throw new NotFoundError(what);
  return requireReach(caller, await findCard(trx, cardId), what, scope);
}

/**
 * Records a change of each card (`__v` + 1, `updatedAt`), taking their locks in id order (step 2).
 * A card that does not exist is a 404, unless `missing` is 'skip' (a bulk request reports each
 * missing card on its own item).
 */
export async function recordCardChanges(trx: Executor, cardIds: readonly string[], at: string, missing: 'not-found' | 'skip' = 'not-found'): Promise<void> {
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
export async function placeCard(trx: Executor, listId: string, request: PositionRequest | undefined, at: string, placing: CardPlacing = {}): Promise<number> {
  const siblings = await cardPositionsInListByState(trx, listId, placing.archived ?? false, placing.cardId);
  return placeAmong(siblings, request, async (moves) => {
    await lockCards(trx, [...(placing.alsoLocking ?? []), ...moves.map((m) => m.id)]);
    await renumberCards(trx, listId, moves, at);
  });
}
