import { type Static, Type } from 'typebox';
import { Id, ScopeQuery, TEXT_CAPS, Text, Timestamp } from './common.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';
import { Cheer, Member, record } from './records.ts';

/** Request and answer shapes of comments and of discussions (the replies under a comment). */

export const CommentParams = Type.Object({ commentId: Id }, { additionalProperties: false });
export const DiscussionParams = Type.Object({ discussionId: Id }, { additionalProperties: false });

/** The longest comment or reply, in characters: Trello's limit. */
export const MAX_COMMENT_LENGTH = TEXT_CAPS.comment;

/** What a comment or a reply says: free text, not blank; stored trimmed. */
export const CommentContent = Text({
  maxLength: MAX_COMMENT_LENGTH,
  blank: false,
  description: `free text, 1 to ${MAX_COMMENT_LENGTH} characters with at least one that is not a space; stored trimmed`,
});

export const CommentBody = Type.Object({ content: CommentContent }, { additionalProperties: false });
export type CommentBody = Static<typeof CommentBody>;

export const COMMENT_ORDERS = ['oldest', 'newest'] as const;

export const CommentsQuery = Type.Object(
  {
    ...ScopeQuery.properties,
    ...PageQueryFields,
    order: Type.Optional(
      Type.Union(
        COMMENT_ORDERS.map((order) => Type.Literal(order)),
        {
          default: 'oldest',
          description: 'oldest first (the default, the order of `card.comments`) or newest first; a cursor pages only the order that made it',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CommentsQuery = Static<typeof CommentsQuery>;

/** What a comment and a reply both are: a post of a member on a card. */
const Post = {
  content: Type.String(),
  creator: Member,
  card: Id,
  company: Id,
  team: Id,
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const Discussion = record('Discussion', {
  ...Post,
  comment: Id,
  cheers: Type.Array(Cheer, { description: 'oldest first' }),
  __v: Type.Integer({ description: 'grows on every change to the reply: its content or its cheers' }),
});
export type Discussion = Static<typeof Discussion>;

export const Comment = record('Comment', {
  ...Post,
  discussions: Type.Array(Discussion, { description: 'the replies, oldest first' }),
  cheers: Type.Array(Cheer, { description: 'cheers on the comment itself, oldest first' }),
  __v: Type.Integer({ description: 'grows on every change to what the record shows: content, replies, cheers' }),
});
export type Comment = Static<typeof Comment>;

export const CommentsPage = Type.Object({
  message: Type.String(),
  comments: Type.Array(Comment, { description: 'in the asked order: oldest first (the order of card.comments) unless `order=newest`' }),
  nextCursor: NextCursor,
});
