/**
 * The change path of a card's world: every write of a card, or of what it keeps (labels, members,
 * checklists, items, comments, discussions, cheers, attachments), runs in one transaction that
 * starts here: the card's change is recorded (`__v` + 1, `updatedAt`, by the change recorder
 * ./recorder.ts, with the caller and the kind of change), which takes its lock by the
 * rule of src/domain/access/access.ts, and reach is decided by `requireAccess` on the rows read
 * under that lock; then the change is applied. A 404 rolls the recorded change back with the rest.
 */
import type { Card } from '../../schemas/records.ts';
import type { SyncTransaction, Transaction } from '../../storage/database.ts';
import * as cards from '../../storage/repositories/cards.ts';
import { type CardRef, requireAccess, requireAccessToEach, requireLockedCardNow } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import type { PendingEvent } from '../events/record.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { nowIso } from '../shared/ids.ts';
import { inGroupCommit, inTransaction } from '../shared/transaction.ts';
import { type CardChangeKind, cardEventOf, recordCardChanges } from './recorder.ts';
import { loadCard, loadCardNow, loadCards } from './service.ts';

/**
 * One change to one card, in one transaction: the card locked and in reach (`requireAccess` with
 * `lock`), handed to `change` with the change's event, whose `data` it fills with what it did.
 * Answers the card as the change left it: the record `change` answers, when it read it after its
 * writes (in their statement: a round trip fewer), else read here.
 */
export async function changeCard(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  kind: CardChangeKind,
  change: (trx: Transaction, card: cards.CardTableRow, at: string, event: PendingEvent) => Promise<Card | void>,
): Promise<Card> {
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const card = await requireAccess(trx, caller, { kind: 'card', id: cardId, scope, lock: true, at, change: kind });
    return (await change(trx, card, at, cardEventOf(trx, card.id))) ?? loadCard(ctx, cardId, trx);
  });
}

/**
 * `changeCard` whose work is one statement that needs nothing the card's change answers: `work`
 * gives it first (`Dialect.afterNextStatement`), so it goes out right behind the card's change, in
 * the same round trip, and the card's lock is held a round trip less. It runs before reach is
 * decided, but a 404 or a 412 rolls it back with the rest, and its answer (errors included) is
 * read only after them, by `finish`, with the change's event to fill.
 */
export async function changeCardAlong<T>(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  kind: CardChangeKind,
  work: (trx: Transaction, at: string) => Promise<() => Promise<T>>,
  finish: (answer: T, event: PendingEvent) => Card,
): Promise<Card> {
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const answer = await work(trx, at);
    const card = await requireAccess(trx, caller, { kind: 'card', id: cardId, scope, lock: true, at, change: kind });
    return finish(await answer(), cardEventOf(trx, card.id));
  });
}

/**
 * `changeCard` whose `change` runs synchronously, in the storage's group commit (`inGroupCommit`):
 * the same steps, each a statement compiled once, none waiting on another request. Undefined where
 * the storage has no group commit: the caller then runs `changeCard`.
 */
export function changeCardNow(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  kind: CardChangeKind,
  change: (trx: SyncTransaction, card: cards.CardTableRow, at: string, event: PendingEvent) => void,
): Promise<Card> | undefined {
  return inGroupCommit(ctx, (trx) => {
    const at = nowIso();
    const { card, event } = requireLockedCardNow(trx, caller, { id: cardId, scope, at, change: kind });
    change(trx, card, at, event);
    return loadCardNow(trx, cardId);
  });
}

/**
 * One bulk change of several cards, all or nothing, in one transaction: every card's change is
 * recorded once, in id order (the lock rule); every item is checked (reach, in the item's scope,
 * then `check`, given the card's event to fill) before anything is written, and any failing item rejects the request, naming each
 * failing index. Answers the cards in request order.
 */
export async function changeEachCard<T>(
  ctx: ServiceContext,
  caller: Caller,
  items: readonly T[],
  field: string,
  kind: CardChangeKind,
  refOf: (item: T) => CardRef,
  check: (card: cards.CardTableRow, item: T, at: string, event: PendingEvent) => (trx: Transaction) => Promise<void>,
): Promise<Card[]> {
  const cardIds = items.map((item) => refOf(item).cardId);
  rejectRepeatedIds(cardIds, field);
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const recorded = await recordCardChanges(trx, cardIds, { caller, kind, at }, 'skip');
    const rows = await cards.findCardsById(trx, cardIds);
    // a card out of reach fails its item before its event is asked for
    const writes = await requireAccessToEach(trx, caller, {
      items,
      field,
      refOf,
      rows,
      check: (card, item) => check(card, item, at, recorded.get(card.id) as PendingEvent),
    });
    for (const write of writes) await write(trx);
    return loadCards(ctx, cardIds, trx);
  });
}
