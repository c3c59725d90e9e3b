import type { Comment, Discussion } from '../../schemas/comments.ts';
import type { Cheer } from '../../schemas/records.ts';
import type { CheerWithCreatorRow } from '../../storage/repositories/cheers.ts';
import type { CommentRow, DiscussionRow } from '../../storage/repositories/comments.ts';
import { toCheer, toMember } from '../cards/records.ts';
import { inTeam, stamps } from '../shared/records.ts';

/** Row → API record mappings for comments and their replies (discussions). */

const creatorOf = (row: CommentRow | DiscussionRow) => toMember({ id: row.creator_id, full_name: row.creator_full_name, photo_url: row.creator_photo_url });

export function toDiscussion(row: DiscussionRow, cheers: Cheer[]): Discussion {
  return {
    _id: row.id,
    content: row.content,
    creator: creatorOf(row),
    comment: row.comment_id,
    card: row.card_id,
    ...inTeam(row),
    cheers,
    ...stamps(row),
  };
}

export function toComment(row: CommentRow, discussions: Discussion[], cheers: Cheer[]): Comment {
  return {
    _id: row.id,
    content: row.content,
    creator: creatorOf(row),
    card: row.card_id,
    ...inTeam(row),
    discussions,
    cheers,
    ...stamps(row),
  };
}

/**
 * Whole comment records from their rows and the rows under them (already in display order): each
 * comment with its replies, each of those with its cheers.
 */
export function toComments(comments: CommentRow[], discussions: DiscussionRow[], cheerRows: CheerWithCreatorRow[]): Comment[] {
  const cheers = cheerRows.map(toCheer);
  const cheersOn = (type: 'comment' | 'discussion', id: string) => cheers.filter((c) => c.primaryParent.type === type && c.primaryParent.id === id);
  return comments.map((comment) =>
    toComment(
      comment,
      discussions.filter((d) => d.comment_id === comment.id).map((d) => toDiscussion(d, cheersOn('discussion', d.id))),
      cheersOn('comment', comment.id),
    ),
  );
}
