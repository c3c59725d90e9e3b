import type { Comment, Discussion } from '../../schemas/comments.ts';
import type { Executor } from '../../storage/database.ts';
import type { CardTableRow } from '../../storage/repositories/cards.ts';
import { cheersOfComments } from '../../storage/repositories/cheers.ts';
import * as comments from '../../storage/repositories/comments.ts';
import { mayModerate, requireAccess } from '../access/access.ts';
import { cardAudience } from '../access/people.ts';
import { changeCardWorld } from '../cards/change.ts';
import type { ServiceContext } from '../context.ts';
import { notifyMentions } from '../notifications/mentions.ts';
import { notify } from '../notifications/notify.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ForbiddenError, NotFoundError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { type CreationKey, creationKey, decodeCursor, isCreationKey, toPage } from '../shared/pagination.ts';
import { newMade, onCard } from '../shared/records.ts';
import { nextCreatedAt } from './ordering.ts';
import { toComments } from './records.ts';

/**
 * Comments on cards and the replies (discussions) under them. Everything here is part of the card:
 * each change is one transaction that starts by recording a change of the card (`__v` + 1,
 * `updatedAt`, and its row lock: `requireAccess` with `lock`, so changes to one card's conversation apply one after another).
 */

function requireAuthor(caller: Caller, row: { creator_id: string }, what: string): void {
  if (row.creator_id !== caller.userId) throw new ForbiddenError(`Only the author may edit this ${what}`);
}

/** The author deletes; so does an owner or admin of the company the card belongs to. */
function requireAuthorOrAdmin(caller: Caller, row: { creator_id: string }, card: CardTableRow, what: string): void {
  if (row.creator_id !== caller.userId && !mayModerate(caller, card.company_id)) {
    throw new ForbiddenError(`Only the author or a company owner or admin may delete this ${what}`);
  }
}

/** Whole comment records (replies and cheers included) for comment rows, in the rows' order. */
async function commentRecords(db: Executor, rows: comments.CommentRow[]): Promise<Comment[]> {
  const ids = rows.map((r) => r.id);
  const [discussions, cheers] = await Promise.all([comments.discussionsOf(db, ids), cheersOfComments(db, ids)]);
  return toComments(rows, discussions, cheers);
}

export async function loadComment(db: Executor, commentId: string): Promise<Comment> {
  const [comment] = await commentRecords(db, await comments.findCommentRows(db, [commentId]));
  if (!comment) throw new NotFoundError('Comment');
  return comment;
}

export async function loadDiscussion(db: Executor, commentId: string, discussionId: string): Promise<Discussion> {
  const discussion = (await loadComment(db, commentId)).discussions.find((d) => d._id === discussionId);
  if (!discussion) throw new NotFoundError('Discussion');
  return discussion;
}

/** A newest-first cursor carries its order, so a cursor of the other order is refused, not misread. */
type NewestKey = [string, string, 'newest'];
const isNewestKey = (key: unknown): key is NewestKey => Array.isArray(key) && key.length === 3 && key[2] === 'newest' && isCreationKey(key.slice(0, 2));

/**
 * Get Comments: a page of the card's comments, oldest first (the order of `card.comments`), or
 * newest first for a conversation read from its latest end.
 */
export async function listComments(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  page: { limit: number; cursor?: string | undefined; order?: 'oldest' | 'newest' | undefined },
): Promise<{ comments: Comment[]; nextCursor: string | null }> {
  const newest = page.order === 'newest';
  const after = page.cursor === undefined ? undefined : newest ? decodeCursor(page.cursor, isNewestKey) : decodeCursor(page.cursor, isCreationKey);
  const card = await requireAccess(ctx.db, caller, { kind: 'card', id: cardId, scope });
  // one more than asked tells whether another page follows
  const rows = await comments.commentPage(ctx.db, card.id, after && { createdAt: after[0], id: after[1] }, page.limit + 1, newest ? 'newest' : 'oldest');
  const { items, nextCursor } = toPage<comments.CommentRow, CreationKey | NewestKey>(
    rows,
    page.limit,
    newest ? (row) => [...creationKey(row), 'newest'] : creationKey,
  );
  return { comments: await commentRecords(ctx.db, items), nextCursor };
}

/** Get Comment: one comment of a card the caller reaches, with its discussions and cheers. */
export async function getComment(ctx: ServiceContext, caller: Caller, commentId: string, scope: Scope): Promise<Comment> {
  const { comment } = await requireAccess(ctx.db, caller, { kind: 'comment', id: commentId, scope });
  return loadComment(ctx.db, comment.id);
}

export function createComment(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, content: string): Promise<Comment> {
  const id = newId();
  return changeCardWorld(ctx, caller, { kind: 'card', id: cardId, scope }, 'comment.created', async (trx, { card }, now) => {
    const at = nextCreatedAt(await comments.latestCreatedAt(trx, 'comments', card.id), now);
    await comments.insertComment(trx, { ...newMade(id, caller.userId, at), ...onCard(card), content: content.trim() });
    // a person the comment mentions is told of the mention, not of the comment as well
    const mentioned = await notifyMentions(trx, caller, { after: content.trim() }, { card, comment: id }, at);
    const audience = (await cardAudience(trx, card)).filter((userId) => !mentioned.has(userId));
    await notify(trx, caller, 'comment.created', audience, { card, comment: id }, at);
    return { data: { comment: id }, answer: (trx) => loadComment(trx, id) };
  });
}

/** Update Comment: the author only (403 for anyone else who sees it). */
export function updateComment(ctx: ServiceContext, caller: Caller, commentId: string, scope: Scope, content: string): Promise<Comment> {
  return changeCardWorld(ctx, caller, { kind: 'comment', id: commentId, scope }, 'comment.updated', async (trx, { comment, card }, now) => {
    requireAuthor(caller, comment, 'comment');
    // deleted while this request waited for the card's lock
    if (!(await comments.recordPostChange(trx, 'comments', comment.id, now, content.trim()))) throw new NotFoundError('Comment');
    await notifyMentions(trx, caller, { before: comment.content, after: content.trim() }, { card, comment: comment.id }, now);
    return { answer: (trx) => loadComment(trx, comment.id) };
  });
}

/**
 * Delete Comment: the author, or an owner or admin of the company. Its replies and every cheer on
 * it or on them go with it, and it leaves `card.comments`. Answers the comment as it was.
 */
export function deleteComment(ctx: ServiceContext, caller: Caller, commentId: string, scope: Scope): Promise<Comment> {
  return changeCardWorld(ctx, caller, { kind: 'comment', id: commentId, scope }, 'comment.deleted', async (trx, { comment, card }) => {
    requireAuthorOrAdmin(caller, comment, card, 'comment');
    const record = await loadComment(trx, comment.id);
    await comments.deleteComment(trx, comment.id);
    return { answer: async () => record };
  });
}

/** Create Discussion: a reply under a comment; the comment's record changes too. */
export function createDiscussion(ctx: ServiceContext, caller: Caller, commentId: string, scope: Scope, content: string): Promise<Discussion> {
  const id = newId();
  return changeCardWorld(ctx, caller, { kind: 'comment', id: commentId, scope }, 'discussion.created', async (trx, { comment, card }, now) => {
    if (!(await comments.recordPostChange(trx, 'comments', comment.id, now))) throw new NotFoundError('Comment');
    const at = nextCreatedAt(await comments.latestCreatedAt(trx, 'discussions', card.id), now);
    await comments.insertDiscussion(trx, { ...newMade(id, caller.userId, at), ...onCard(card), comment_id: comment.id, content: content.trim() });
    const mentioned = await notifyMentions(trx, caller, { after: content.trim() }, { card, comment: comment.id, discussion: id }, at);
    await notify(
      trx,
      caller,
      'comment.replied',
      mentioned.has(comment.creator_id) ? [] : [comment.creator_id],
      { card, comment: comment.id, discussion: id },
      at,
    );
    return { data: { discussion: id }, answer: (trx) => loadDiscussion(trx, comment.id, id) };
  });
}

/** Update Discussion: the author only; the reply's and its comment's records change. */
export function updateDiscussion(ctx: ServiceContext, caller: Caller, discussionId: string, scope: Scope, content: string): Promise<Discussion> {
  return changeCardWorld(ctx, caller, { kind: 'discussion', id: discussionId, scope }, 'discussion.updated', async (trx, { discussion, card }, now) => {
    requireAuthor(caller, discussion, 'discussion');
    if (!(await comments.recordPostChange(trx, 'discussions', discussion.id, now, content.trim()))) throw new NotFoundError('Discussion');
    await notifyMentions(
      trx,
      caller,
      { before: discussion.content, after: content.trim() },
      { card, comment: discussion.comment_id, discussion: discussion.id },
      now,
    );
    await comments.recordPostChange(trx, 'comments', discussion.comment_id, now);
    return { answer: (trx) => loadDiscussion(trx, discussion.comment_id, discussion.id) };
  });
}

/** Delete Discussion: the author, or a company owner or admin; its cheers go with it. */
export function deleteDiscussion(ctx: ServiceContext, caller: Caller, discussionId: string, scope: Scope): Promise<Discussion> {
  return changeCardWorld(ctx, caller, { kind: 'discussion', id: discussionId, scope }, 'discussion.deleted', async (trx, { discussion, card }, now) => {
    requireAuthorOrAdmin(caller, discussion, card, 'discussion');
    const record = await loadDiscussion(trx, discussion.comment_id, discussion.id);
    await comments.deleteDiscussion(trx, discussion.id);
    await comments.recordPostChange(trx, 'comments', discussion.comment_id, now);
    return { answer: async () => record };
  });
}
