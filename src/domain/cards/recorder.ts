/**
 * The card change recorder: the one place in src/domain that counts a change of a card (`__v` + 1,
 * `updatedAt`). Every write of a card's world (the card, its labels, members, checklists, items,
 * comments, discussions, cheers, attachments, its position, its first view) records its change
 * here, with who made it and what kind of change it is, so that what every change should also do
 * (an event, say) has exactly one place to go. test/unit/change-path.test.ts keeps it the only one.
 * Today only `at` is written; `caller` and `kind` are carried for the events issue (#11), whose
 * recording goes here, so that no call site has to change again when it lands.
 *
 * Recording a change also takes the card's row lock (step 2 of the lock rule in
 * src/domain/access/access.ts), which is why it takes a `Transaction`.
 */
import type { Transaction } from '../../storage/database.ts';
import * as cards from '../../storage/repositories/cards.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';

/** What a change of a card was: the card's own fields, or what it keeps. */
export type CardChangeKind =
  | 'card.updated'
  | 'card.archived'
  | 'card.moved'
  | 'card.renumbered'
  | 'card.seen'
  | 'card.labels.changed'
  | 'card.members.changed'
  | 'card.label.deleted'
  | 'card.attachment.added'
  | 'card.attachment.renamed'
  | 'card.attachment.deleted'
  | 'checklist.created'
  | 'checklist.updated'
  | 'checklist.moved'
  | 'checklist.deleted'
  | 'checklist.copied'
  | 'checklist.item.created'
  | 'checklist.item.updated'
  | 'checklist.item.completed'
  | 'checklist.item.moved'
  | 'checklist.item.members.changed'
  | 'checklist.item.attachment.added'
  | 'checklist.item.attachment.renamed'
  | 'checklist.item.attachment.deleted'
  | 'checklist.item.deleted'
  | 'checklist.item.copied'
  | 'comment.created'
  | 'comment.updated'
  | 'comment.deleted'
  | 'discussion.created'
  | 'discussion.updated'
  | 'discussion.deleted'
  | 'cheer.created'
  | 'cheer.deleted';

/** Who changed the card, how, and when. */
export interface CardChange {
  caller: Caller;
  kind: CardChangeKind;
  at: string;
}

/** Records one change of the card (and takes its lock); false when there is no such card. */
export async function recordCardChange(trx: Transaction, cardId: string, change: CardChange): Promise<boolean> {
  return cards.recordCardChange(trx, cardId, change.at);
}

/**
 * Records a change of each card, taking their locks in id order (step 2). A card that does not exist
 * is a 404, unless `missing` is 'skip' (a bulk request reports each missing card on its own item).
 */
export async function recordCardChanges(trx: Transaction, cardIds: readonly string[], change: CardChange, missing: 'not-found' | 'skip' = 'not-found'): Promise<void> {
  for (const cardId of [...new Set(cardIds)].sort()) {
    if (!(await recordCardChange(trx, cardId, change)) && missing === 'not-found') throw new NotFoundError('Card');
  }
}

/** Gives cards of the list new positions (a placement's renumbering), each a change of that card. */
export async function recordRenumbering(trx: Transaction, listId: string, moves: readonly { id: string; position: number }[], change: CardChange): Promise<void> {
  await cards.renumberCards(trx, listId, moves, change.at);
}
