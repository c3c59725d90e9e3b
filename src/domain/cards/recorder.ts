/**
 * The card change recorder: the one place in src/domain that counts a change of a card (`__v` + 1,
 * `updatedAt`). Every write of a card's world (the card, its labels, members, checklists, items,
 * comments, discussions, cheers, attachments, its position, its first view) records its change
 * here, with who made it and what kind of change it is, so that what every change should also do
 * (an event, say) has exactly one place to go. test/unit/change-path.test.ts keeps it the only one.
 * Each recorded change is also an event of `kind` (src/domain/events/record.ts), filed under the
 * card, its board, team and company, with what the change did as its `data`.
 *
 * A change is recorded after it is applied, by a transaction that already holds the card's lock
 * (`lockCardRows` of ./locks.ts, or `requireAccess` with `lock`, step 2 of the lock rule in
 * src/domain/access/access.ts), which is why it takes a `Transaction`.
 */
import type { Transaction } from '../../storage/database.ts';
import * as cardViews from '../../storage/repositories/card-views.ts';
import * as cards from '../../storage/repositories/cards.ts';
import { recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';

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
  | 'card.custom_fields.set'
  | 'card.relation.added'
  | 'card.relation.removed'
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
  | 'card.reminder'
  | 'card.overdue';

/** What a change did, as its event's `data` tells it. */
export type ChangeData = Record<string, unknown>;

/** Who changed the card (null: the system, e.g. a reminder), how, when, and what the change did. */
export interface CardChange {
  caller: Caller | null;
  kind: CardChangeKind;
  at: string;
  /** The event's `data`: what the change did, known once it is done. */
  data?: ChangeData | undefined;
}

/**
 * Records one change of a card whose lock this transaction holds (src/domain/access/access.ts):
 * `__v` + 1 and `updatedAt`, and the change's event with what it did, filed under `place` (where
 * the card is once the change is done).
 */
export async function recordCardChange(trx: Transaction, place: cards.CardPlace, change: CardChange): Promise<void> {
  await cards.recordCardChange(trx, place.id, change.at);
  cardEvent(trx, place, change);
}

function cardEvent(trx: Transaction, place: cards.CardPlace, change: CardChange): void {
  const subject = { company: place.company_id, team: place.team_id, board: place.board_id, card: place.id };
  recordEvent(trx, change.caller, change.kind, subject, change.data ?? {}, change.at);
}

/** Gives cards of the list new positions (a placement's renumbering), each a change of that card. */
export async function recordRenumbering(
  trx: Transaction,
  listId: string,
  moves: readonly { id: string; position: number }[],
  change: CardChange,
): Promise<void> {
  for (const place of await cards.renumberCards(trx, listId, moves, change.at)) {
    cardEvent(trx, place, { ...change, data: { position: moves.find((move) => move.id === place.id)?.position } });
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
