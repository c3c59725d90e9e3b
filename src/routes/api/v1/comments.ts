import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as commentService from '../../../domain/comments/service.ts';
import { DEFAULT_PAGE_SIZE } from '../../../domain/shared/pagination.ts';
import { CardParams } from '../../../schemas/cards.ts';
import { Comment, CommentBody, CommentParams, CommentsPage, CommentsQuery, Discussion, DiscussionParams } from '../../../schemas/comments.ts';
import { ScopeQuery } from '../../../schemas/common.ts';
import { operations } from '../../operation.ts';

/** Comments on cards, and discussions: the replies under a comment. */
const comments: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['comments']);
  const comment = ['comment', Comment] as const;
  const discussion = ['discussion', Discussion] as const;
  const discussions = ['discussions'];

  route(
    'POST /cards/:cardId/comments',
    {
      tier: 'low',
      operationId: 'createComment',
      summary: 'Create Comment',
      description: "Adds a comment to the card; it joins the end of `card.comments`. The card's `__v` grows by one.",
      params: CardParams,
      querystring: ScopeQuery,
      body: CommentBody,
      answer: comment,
      status: 201,
      location: (comment) => `/api/v1/comments/${comment._id}`,
      message: 'Comment created',
    },
    ({ caller, params, query, body }) => commentService.createComment(app.services, caller, params.cardId, query, body.content),
  );

  route(
    'GET /cards/:cardId/comments',
    {
      tier: 'very-low',
      operationId: 'getComments',
      summary: 'Get Comments',
      description:
        'The comments of the card, oldest first (the order of `card.comments`) or newest first with `order=newest`, each ' +
        'with its discussions (oldest first) and cheers. Paged by `limit` and the opaque `cursor`; comments added meanwhile ' +
        'come after every earlier one, so paging neither repeats nor skips.',
      params: CardParams,
      querystring: CommentsQuery,
      answer: CommentsPage,
      message: 'Comments retrieved',
    },
    ({ caller, params, query: { limit, cursor, order, companyId, teamId } }) =>
      commentService.listComments(app.services, caller, params.cardId, { companyId, teamId }, { limit: limit ?? DEFAULT_PAGE_SIZE, cursor, order }),
  );

  route(
    'GET /comments/:commentId',
    {
      tier: 'very-low',
      operationId: 'getComment',
      summary: 'Get Comment',
      description:
        'One comment of a card the caller reaches, with its discussions (oldest first) and cheers, as Get Comments shows it (where Create Comment points `Location`).',
      params: CommentParams,
      querystring: ScopeQuery,
      answer: comment,
      message: 'Comment retrieved',
    },
    ({ caller, params, query }) => commentService.getComment(app.services, caller, params.commentId, query),
  );

  route(
    'PATCH /comments/:commentId',
    {
      tier: 'low',
      operationId: 'updateComment',
      summary: 'Update Comment',
      description: "Replaces the comment's content. Only its author may (403 for anyone else).",
      params: CommentParams,
      querystring: ScopeQuery,
      body: CommentBody,
      answer: comment,
      errors: [403],
      message: 'Comment updated',
    },
    ({ caller, params, query, body }) => commentService.updateComment(app.services, caller, params.commentId, query, body.content),
  );

  route(
    'DELETE /comments/:commentId',
    {
      tier: 'low',
      operationId: 'deleteComment',
      summary: 'Delete Comment',
      description:
        'Deletes the comment with its discussions and every cheer on them; it leaves `card.comments`. Its author or a ' +
        'company owner or admin may (403 for anyone else). Answers the comment as it was.',
      params: CommentParams,
      querystring: ScopeQuery,
      answer: comment,
      errors: [403],
      message: 'Comment deleted',
    },
    ({ caller, params, query }) => commentService.deleteComment(app.services, caller, params.commentId, query),
  );

  route(
    'POST /comments/:commentId/discussions',
    {
      tier: 'low',
      tags: discussions,
      operationId: 'createDiscussion',
      summary: 'Create Discussion',
      description: 'Adds a reply under the comment; it joins the end of `comment.discussions`.',
      params: CommentParams,
      querystring: ScopeQuery,
      body: CommentBody,
      answer: discussion,
      status: 201,
      location: (discussion) => `/api/v1/cards/${discussion.card}/comments`,
      message: 'Discussion created',
    },
    ({ caller, params, query, body }) => commentService.createDiscussion(app.services, caller, params.commentId, query, body.content),
  );

  route(
    'PATCH /discussions/:discussionId',
    {
      tier: 'low',
      tags: discussions,
      operationId: 'updateDiscussion',
      summary: 'Update Discussion',
      description: "Replaces the reply's content. Only its author may (403 for anyone else).",
      params: DiscussionParams,
      querystring: ScopeQuery,
      body: CommentBody,
      answer: discussion,
      errors: [403],
      message: 'Discussion updated',
    },
    ({ caller, params, query, body }) => commentService.updateDiscussion(app.services, caller, params.discussionId, query, body.content),
  );

  route(
    'DELETE /discussions/:discussionId',
    {
      tier: 'low',
      tags: discussions,
      operationId: 'deleteDiscussion',
      summary: 'Delete Discussion',
      description: 'Deletes the reply and its cheers. Its author or a company owner or admin may (403 for anyone else). Answers the reply as it was.',
      params: DiscussionParams,
      querystring: ScopeQuery,
      answer: discussion,
      errors: [403],
      message: 'Discussion deleted',
    },
    ({ caller, params, query }) => commentService.deleteDiscussion(app.services, caller, params.discussionId, query),
  );
};

export default comments;
