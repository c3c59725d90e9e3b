import { MAX_CHEER_LENGTH } from '../../schemas/cheers.ts';
import type { Cheer } from '../../schemas/records.ts';
import type { CheerParentType, Executor, Transaction } from '../../storage/database.ts';
import { recordAttachmentChange } from '../../storage/repositories/attachments.ts';
import type { CardTableRow } from '../../storage/repositories/cards.ts';
import * as cheers from '../../storage/repositories/cheers.ts';
import { latestCreatedAt, recordPostChange } from '../../storage/repositories/comments.ts';
import type { LockedRows } from '../access/access.ts';
import { changeCardWorld } from '../cards/change.ts';
import { toCheer } from '../cards/records.ts';
import { nextCreatedAt } from '../comments/ordering.ts';
import type { ServiceContext } from '../context.ts';
import { notify } from '../notifications/notify.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { newMade, onCard } from '../shared/records.ts';

/** What can be cheered. */
export type CheeredType = 'card' | 'comment' | 'discussion' | 'attachment';
export const CHEERED_TYPES: readonly CheeredType[] = ['card', 'comment', 'discussion', 'attachment'];
const NAMES: Record<CheeredType, string> = { card: 'Card', comment: 'Comment', discussion: 'Discussion', attachment: 'Attachment' };

interface ParentRef {
  type: CheerParentType;
  id: string;
}

/** A cheerable thing, resolved: where it sits, who made it, and the records that show its cheers. */
interface Cheered {
  card: CardTableRow;
  primary: ParentRef;
  /** What the cheered thing sits in; a card sits in nothing fixed (it moves), so it is its own. */
  secondary: ParentRef;
  commentId: string | null;
  receiverId: string;
  /** Records a change of every record besides the card that shows the cheer; false if one is gone. */
  recordChange(trx: Transaction, at: string): Promise<boolean>;
}

const NO_OTHER_RECORD = async () => true;

/**
 * The cheerable thing, from what the change path locked (`requireAccess` with `lock`: the card, as
 * it is under its lock, decided reach).
 */
function cheeredOf(locked: LockedRows[CheeredType]): Cheered {
  const { card } = locked;
  if ('comment' in locked) {
    const { comment } = locked;
    return {
      card,
      primary: { type: 'comment', id: comment.id },
      secondary: { type: 'card', id: card.id },
      commentId: comment.id,
      receiverId: comment.creator_id,
      recordChange: (db, at) => recordPostChange(db, 'comments', comment.id, at),
    };
  }
  if ('discussion' in locked) {
    const { discussion } = locked;
    return {
      card,
      primary: { type: 'discussion', id: discussion.id },
      secondary: { type: 'comment', id: discussion.comment_id },
      commentId: discussion.comment_id,
      receiverId: discussion.creator_id,
      // the comment's record shows its replies, cheers included
      recordChange: async (db, at) =>
        (await recordPostChange(db, 'discussions', discussion.id, at)) && (await recordPostChange(db, 'comments', discussion.comment_id, at)),
    };
  }
  if ('attachment' in locked) {
    const { id: attachmentId, checklist_item_id: itemId, creator_id: creatorId } = locked.attachment;
    return {
      card,
      primary: { type: 'attachment', id: attachmentId },
      secondary: itemId ? { type: 'checklistItem', id: itemId } : { type: 'card', id: card.id },
      commentId: null,
      receiverId: creatorId,
      recordChange: (db, at) => recordAttachmentChange(db, attachmentId, at),
    };
  }
  const self = { type: 'card', id: card.id } as const;
  return { card, primary: self, secondary: self, commentId: null, receiverId: card.creator_id, recordChange: NO_OTHER_RECORD };
}

/** Trimmed and in NFC, so that the same emoji or word typed two ways is one content. */
function normaliseContent(content: string): string {
  const normalised = content.trim().normalize('NFC');
  if (normalised.length === 0 || [...normalised].length > MAX_CHEER_LENGTH) {
    throw new ValidationError(`content must be 1 to ${MAX_CHEER_LENGTH} characters`, [
      { field: 'body.content', message: `must be 1 to ${MAX_CHEER_LENGTH} characters once trimmed` },
    ]);
  }
  return normalised;
}

async function loadCheer(db: Executor, cheerId: string): Promise<Cheer> {
  const row = await cheers.findCheer(db, cheerId);
  if (!row) throw new NotFoundError('Cheer');
  return toCheer(row);
}

/**
 * Create Cheer on a card, comment, discussion or attachment. One user gives a content once per
 * thing (a repeat is a 409), like reactions; anyone who reaches the card may cheer, its own work
 * included. The card's record changes, and so does every record that shows the cheer.
 */
export function createCheer(
  ctx: ServiceContext,
  caller: Caller,
  type: CheeredType,
  cheeredId: string,
  scope: Scope,
  input: { content: string },
): Promise<Cheer> {
  const content = normaliseContent(input.content);
  const id = newId();
  return changeCardWorld(ctx, caller, { kind: type, id: cheeredId, scope }, 'cheer.created', async (trx, locked, now) => {
    const cheered = cheeredOf(locked);
    // gone (deleted) while this request waited for the card's lock
    if (!(await cheered.recordChange(trx, now))) throw new NotFoundError(NAMES[type]);
    // under the card's lock, so two parallel identical cheers cannot both pass this check
    if (await cheers.findSameCheer(trx, cheered.primary, caller.userId, content)) {
      throw new ConflictError(`You already cheered this ${type} with "${content}"`, [{ field: 'body.content', message: 'already given' }]);
    }
    const at = nextCreatedAt(await latestCreatedAt(trx, 'cheers', cheered.card.id), now);
    // the receiver is told in this transaction (nobody when cheering one's own work)
    const told = (
      await notify(
        trx,
        caller,
        'cheer.received',
        [cheered.receiverId],
        {
          card: cheered.card,
          comment: cheered.commentId,
          discussion: cheered.primary.type === 'discussion' ? cheered.primary.id : null,
          cheer: id,
        },
        at,
      )
    ).get(cheered.receiverId);
    await cheers.insertCheer(trx, {
      ...newMade(id, caller.userId, at),
      ...onCard(cheered.card),
      content,
      receiver_id: cheered.receiverId,
      primary_type: cheered.primary.type,
      primary_id: cheered.primary.id,
      secondary_type: cheered.secondary.type,
      secondary_id: cheered.secondary.id,
      comment_id: cheered.commentId,
      feature_type: type,
      is_notified: told ? 1 : 0,
      notification: told?._id ?? '',
    });
    return { data: { cheer: id, on: type, [type]: cheeredId, content }, answer: (trx) => loadCheer(trx, id) };
  });
}

/** Delete Cheer: its creator only (403 for anyone else who sees it). Answers the cheer as it was. */
export function deleteCheer(ctx: ServiceContext, caller: Caller, type: CheeredType, cheeredId: string, cheerId: string, scope: Scope): Promise<Cheer> {
  return changeCardWorld(ctx, caller, { kind: type, id: cheeredId, scope }, 'cheer.deleted', async (trx, locked, now) => {
    const cheered = cheeredOf(locked);
    const cheer = await cheers.findCheer(trx, cheerId);
    if (!cheer || cheer.primary_type !== cheered.primary.type || cheer.primary_id !== cheered.primary.id) throw new NotFoundError('Cheer');
    if (cheer.creator_id !== caller.userId) throw new ForbiddenError('Only the member who gave a cheer may delete it');
    // deleted (what the cheer cheers, or the cheer itself) while this request waited for the card's lock
    if (!(await cheered.recordChange(trx, now)) || !(await cheers.deleteCheer(trx, cheer.id))) throw new NotFoundError('Cheer');
    return { data: { cheer: cheer.id, on: type, [type]: cheeredId }, answer: async () => toCheer(cheer) };
  });
}
