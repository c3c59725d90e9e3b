/**
 * The card change recorder: the one place in src/domain that counts a change of a card (`__v` + 1,
 * `updatedAt`). Every write of a card's world (the card, its labels, members, checklists, items,
 * comments, discussions, cheers, attachments, its position, its first view) records its change
 * here, with who made it and what kind of change it is, so that what every change should also do
 * (an event, say) has exactly one place to go. test/unit/change-path.test.ts keeps it the only one.
 * Each recorded change is also an event of `kind` (src/domain/events/record.ts), filed under the
 * card, its board, team and company; the answer is that pending event, whose `data` the call site
 * completes with what the change did.
 *
 * Recording a change also takes the card's row lock (step 2 of the lock rule in
 * src/domain/access/access.ts), which is why it takes a `Transaction`.
 */
import type { SyncTransaction, Transaction } from '../../storage/database.ts';
import * as cardViews from '../../storage/repositories/card-views.ts';
import * as cards from '../../storage/repositories/cards.ts';
import { type PendingEvent, pendingEvents, recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';

/** What a change of a card was: the card's own fields, or what it keeps. */
export type CardChangeKind =
  | 'card.updated'
  | 'card.archived'
  | 'card.deleted'
  | 'card.unarchived'
  | 'card.moved'
  | 'card.renumbered'
  | 'card.seen'
  | 'card.labels.toggled'
  | 'card.members.toggled'
  | 'attachment.created'
  | 'attachment.renamed'
  | 'attachment.deleted'
  | 'checklist.created'
  | 'checklist.updated'
  | 'checklist.moved'
  | 'checklist.deleted'
  | 'checklist.copied'
  | 'checklist.item.created'
  | 'checklist.item.updated'
  | 'checklist.item.completed'
  | 'checklist.item.uncompleted'
  | 'checklist.item.moved'
  | 'checklist.item.members.toggled'
  | 'checklist.item.deleted'
  | 'checklist.item.copied'
  | 'comment.created'
  | 'comment.updated'
  | 'comment.deleted'
  | 'discussion.created'
  | 'discussion.updated'
  | 'discussion.deleted'
  | 'cheer.created'
  | 'cheer.deleted'
  | 'card.reminder';

/** Who changed the card (null: the system, e.g. a reminder), how, and when. */
export interface CardChange {
  caller: Caller | null;
  kind: CardChangeKind;
  at: string;
}

/** Records one change of the card (and takes its lock); undefined when there is no such card. */
export async function recordCardChange(trx: Transaction, cardId: string, change: CardChange): Promise<PendingEvent | undefined> {
  return (await recordCardChangeOf(trx, cardId, change))?.event;
}

/** What recording a change of a card answers: its row as the change left it, and the change's event. */
export interface RecordedChange {
  card: cards.CardTableRow;
  event: PendingEvent;
}

/** `recordCardChange`, answering the card's row too (read by the same statement). */
export async function recordCardChangeOf(trx: Transaction, cardId: string, change: CardChange): Promise<RecordedChange | undefined> {
  const card = await cards.recordCardChange(trx, cardId, change.at);
  return card && { card, event: cardEvent(trx, card, change) };
}

/** `recordCardChangeOf` in a group commit (src/domain/shared/transaction.ts, `inGroupCommit`). */
export function recordCardChangeNow(trx: SyncTransaction, cardId: string, change: CardChange): RecordedChange | undefined {
  const card = cards.recordCardChangeNow(trx, cardId, change.at);
  return card && { card, event: cardEvent(trx, card, change) };
}

function cardEvent(trx: Transaction | SyncTransaction, place: cards.CardPlace, change: CardChange): PendingEvent {
  const subject = { company: place.company_id, team: place.team_id, board: place.board_id, card: place.id };
  return recordEvent(trx, change.caller, change.kind, subject, {}, change.at);
}

/**
 * The event the card's change recorded in this transaction (the latest, when there are several),
 * for the call site to complete its `data`. Read from the transaction's log: no query.
 */
export function cardEventOf(trx: Transaction, cardId: string): PendingEvent {
  const event = pendingEvents(trx).findLast((pending) => pending.card === cardId);
  if (!event) throw new Error(`no change of card ${cardId} recorded in this transaction`);
  return event;
}

/**
 * Records a change of each card, taking their locks in id order (step 2). A card that does not exist
 * is a 404, unless `missing` is 'skip' (a bulk request reports each missing card on its own item).
 */
export async function recordCardChanges(
  trx: Transaction,
  cardIds: readonly string[],
  change: CardChange,
  missing: 'not-found' | 'skip' = 'not-found',
): Promise<Map<string, PendingEvent>> {
  const recorded = new Map<string, PendingEvent>();
  for (const cardId of [...new Set(cardIds)].sort()) {
    const event = await recordCardChange(trx, cardId, change);
    if (event) recorded.set(cardId, event);
    else if (missing === 'not-found') throw new NotFoundError('Card');
  }
  return recorded;
}

/** Gives cards of the list new positions (a placement's renumbering), each a change of that card. */
export async function recordRenumbering(
  trx: Transaction,
  listId: string,
  moves: readonly { id: string; position: number }[],
  change: CardChange,
): Promise<void> {
  for (const place of await cards.renumberCards(trx, listId, moves, change.at)) {
    const event = cardEvent(trx, place, change);
    event.data.position = moves.find((move) => move.id === place.id)?.position;
  }
}

/**
 * Records a change of what cards show that is no change of the cards themselves (their `__v`
 * stays): a label of the board renamed or recoloured. Every card of the board may show it (a card
 * carries only labels of its own board), so the board's labels stamp moves, and no stored card view
 * (./view.ts) built before counts any more. Takes the board's lock: call it before the label's.
 */
export async function recordBoardLabelsChange(trx: Transaction, boardId: string): Promise<void> {
  await cardViews.restampBoardLabels(trx, boardId);
}

/**
 * Records a change of a user's name or photo, which any card may show (members, the creators of
 * attachments and cheers, even past members): the users' stamp moves, and no stored card view built
 * before counts any more. Rare enough that one stamp for all users costs less than finding the
 * cards that show this one (and, unlike finding them, it cannot miss a card that a concurrent
 * transaction is giving the user).
 */
export async function recordUsersChange(trx: Transaction): Promise<void> {
  await cardViews.restampUsers(trx);
}
