/**
 * The change path of a card's world: every write of a card, or of what it keeps (labels, members,
 * checklists, items, comments, discussions, cheers, attachments), runs in one transaction that
 * starts here, in three steps:
 *   1. access: the owning card's lock, then reach and `If-Match` on the rows read under it
 *      (`requireAccess` with `lock`, src/domain/access/access.ts); a 404 or 412 writes nothing;
 *   2. the change itself, which answers what it did;
 *   3. the card's change recorded (`__v` + 1, `updatedAt`, and its event with what the change did,
 *      by the change recorder ./recorder.ts).
 * Any error rolls the whole transaction back.
 */
import type { Card } from '../../schemas/records.ts';
import type { Transaction } from '../../storage/database.ts';
import type * as cards from '../../storage/repositories/cards.ts';
import { type CardRef, type LockedRows, type LockRequest, requireAccess, requireAccessToEach } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { lockCardRows } from './locks.ts';
import { type CardChangeKind, type ChangeData, recordCardChange } from './recorder.ts';
import { loadCard, loadCards } from './service.ts';

/** What a change of a card's world did, and how the request's answer is read once it is recorded. */
export interface WorldChange<T> {
  /** The `data` of the change's event. */
  data?: ChangeData | undefined;
  /** The kind of change, where the change itself decides it (an item's completion flipped either way). */
  kind?: CardChangeKind | undefined;
  /** Read after the card's change is recorded, in the same transaction. */
  answer: (trx: Transaction) => Promise<T>;
}

/** What a write of a card's world names: the thing it changes, and the request's scope (access locks it). */
export type WorldRef<K extends keyof LockedRows> = Omit<LockRequest<K>, 'lock'>;

/** The ids of the thing kept with the card that a change is about, as its event names them. */
function about(locked: LockedRows[keyof LockedRows]): ChangeData {
  if ('checklist' in locked) return { checklist: locked.checklist.id };
  if ('item' in locked) return { checklist: locked.item.checklist_id, checklistItem: locked.item.id };
  if ('comment' in locked) return { comment: locked.comment.id };
  if ('discussion' in locked) return { comment: locked.discussion.comment_id, discussion: locked.discussion.id };
  if ('attachment' in locked) return { attachment: locked.attachment.id };
  return {};
}

/**
 * One change of a card's world, in one transaction: access (the owning card locked, the thing in
 * reach), then `change`, then the card's change recorded with what `change` did. Answers what
 * `change`'s `answer` reads.
 */
export function changeCardWorld<K extends keyof LockedRows, T>(
  ctx: ServiceContext,
  caller: Caller,
  ref: WorldRef<K>,
  kind: CardChangeKind,
  change: (trx: Transaction, locked: LockedRows[K], at: string) => Promise<WorldChange<T>>,
): Promise<T> {
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const locked = await requireAccess(trx, caller, { ...ref, lock: true });
    const done = await change(trx, locked, at);
    await recordCardChange(trx, locked.card, { caller, kind: done.kind ?? kind, at, data: { ...about(locked), ...done.data } });
    return done.answer(trx);
  });
}

/**
 * One change to one card (`changeCardWorld` of the card itself): `change` answers what it did, the
 * `data` of the change's event. Answers the card as the change left it.
 */
export function changeCard(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  kind: CardChangeKind,
  change: (trx: Transaction, card: cards.CardTableRow, at: string) => Promise<ChangeData | void>,
): Promise<Card> {
  return changeCardWorld(ctx, caller, { kind: 'card', id: cardId, scope }, kind, async (trx, { card }, at) => ({
    data: (await change(trx, card, at)) ?? undefined,
    answer: (trx) => loadCard(ctx, card.id, trx),
  }));
}

/** One item's part of a bulk change: what it did (its event's `data`) and its write. */
export interface ItemChange {
  data?: ChangeData | undefined;
  write: (trx: Transaction) => Promise<void>;
}

/**
 * One bulk change of several cards, all or nothing, in one transaction: every card locked in id
 * order (the lock rule); every item is checked (reach, in the item's scope, then `check`) before
 * anything is written, and any failing item rejects the request, naming each failing index; then
 * each item's write, and its card's change recorded. Answers the cards in request order.
 */
export async function changeEachCard<T>(
  ctx: ServiceContext,
  caller: Caller,
  items: readonly T[],
  field: string,
  kind: CardChangeKind,
  refOf: (item: T) => CardRef,
  check: (card: cards.CardTableRow, item: T, at: string) => ItemChange,
  /** A last write of the same transaction, after every card's change (what the bulk change also updates). */
  finish?: (trx: Transaction, at: string) => Promise<void>,
): Promise<Card[]> {
  const cardIds = items.map((item) => refOf(item).cardId);
  rejectRepeatedIds(cardIds, field);
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const rows = await lockCardRows(trx, cardIds, 'skip');
    const checked = await requireAccessToEach(trx, caller, {
      items,
      field,
      refOf,
      rows,
      check: (card, item) => ({ card, ...check(card, item, at) }),
    });
    for (const { card, data, write } of checked) {
      await write(trx);
      await recordCardChange(trx, card, { caller, kind, at, data });
    }
    await finish?.(trx, at);
    return loadCards(ctx, cardIds, trx);
  });
}
