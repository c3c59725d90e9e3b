import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as commentService from '../../../domain/comments/service.ts';
import { CardParams } from '../../../schemas/cards.ts';
import {
  Comment,
  CommentBody,
  CommentParams,
  CommentsPage,
  CommentsQuery,
  Discussion,
  DiscussionParams,
} from '../../../schemas/comments.ts';
import { errorResponses, ScopeQuery, success } from '../../../schemas/common.ts';
import { DEFAULT_PAGE_SIZE } from '../../../domain/shared/pagination.ts';

const CommentAnswer = success('comment', Comment);
const DiscussionAnswer = success('discussion', Discussion);

/** Comments on cards, and discussions: the replies under a comment. */
const comments: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/cards/:cardId/comments',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['comments'],
        operationId: 'createComment',
        summary: 'Create Comment',
        description: "Adds a comment to the card; it joins the end of `card.comments`. The card's `__v` grows by one.",
        params: CardParams,
        querystring: ScopeQuery,
        body: CommentBody,
        response: { 201: CommentAnswer, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const comment = await commentService.createComment(app.services, request.caller, request.params.cardId, request.query, request.body.content);
      return reply.status(201).send({ message: 'Comment created', comment });
    },
  );

  app.get(
    '/cards/:cardId/comments',
    {
      config: { tier: 'very-low' },
      schema: {
        tags: ['comments'],
        operationId: 'getComments',
        summary: 'Get Comments',
        description:
          'The comments of the card, oldest first (the order of `card.comments`), each with its discussions (oldest first) ' +
          'and cheers. Paged by `limit` and the opaque `cursor`; comments added meanwhile come after every earlier one, so ' +
          'paging neither repeats nor skips.',
        params: CardParams,
        querystring: CommentsQuery,
        response: { 200: CommentsPage, ...errorResponses() },
      },
    },
    async (request) => {
      const { limit, cursor, companyId, teamId } = request.query;
      const page = await commentService.listComments(app.services, request.caller, request.params.cardId, { companyId, teamId }, {
        limit: limit ?? DEFAULT_PAGE_SIZE,
        cursor,
      });
      return { message: 'Comments retrieved', ...page };
    },
  );

  app.patch(
    '/comments/:commentId',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['comments'],
        operationId: 'updateComment',
        summary: 'Update Comment',
        description: "Replaces the comment's content. Only its author may (403 for anyone else).",
        params: CommentParams,
        querystring: ScopeQuery,
        body: CommentBody,
        response: { 200: CommentAnswer, ...errorResponses(403) },
      },
    },
    async (request) => {
      const comment = await commentService.updateComment(app.services, request.caller, request.params.commentId, request.query, request.body.content);
      return { message: 'Comment updated', comment };
    },
  );

  app.delete(
    '/comments/:commentId',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['comments'],
        operationId: 'deleteComment',
        summary: 'Delete Comment',
        description:
          'Deletes the comment with its discussions and every cheer on them; it leaves `card.comments`. Its author or a ' +
          'company owner or admin may (403 for anyone else). Answers the comment as it was.',
        params: CommentParams,
        querystring: ScopeQuery,
        response: { 200: CommentAnswer, ...errorResponses(403) },
      },
    },
    async (request) => {
      const comment = await commentService.deleteComment(app.services, request.caller, request.params.commentId, request.query);
      return { message: 'Comment deleted', comment };
    },
  );

  app.post(
    '/comments/:commentId/discussions',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['discussions'],
        operationId: 'createDiscussion',
        summary: 'Create Discussion',
        description: 'Adds a reply under the comment; it joins the end of `comment.discussions`.',
        params: CommentParams,
        querystring: ScopeQuery,
        body: CommentBody,
        response: { 201: DiscussionAnswer, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const discussion = await commentService.createDiscussion(
        app.services,
        request.caller,
        request.params.commentId,
        request.query,
        request.body.content,
      );
      return reply.status(201).send({ message: 'Discussion created', discussion });
    },
  );

  app.patch(
    '/discussions/:discussionId',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['discussions'],
        operationId: 'updateDiscussion',
        summary: 'Update Discussion',
        description: "Replaces the reply's content. Only its author may (403 for anyone else).",
        params: DiscussionParams,
        querystring: ScopeQuery,
        body: CommentBody,
        response: { 200: DiscussionAnswer, ...errorResponses(403) },
      },
    },
    async (request) => {
      const discussion = await commentService.updateDiscussion(
        app.services,
        request.caller,
        request.params.discussionId,
        request.query,
        request.body.content,
      );
      return { message: 'Discussion updated', discussion };
    },
  );

  app.delete(
    '/discussions/:discussionId',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['discussions'],
        operationId: 'deleteDiscussion',
        summary: 'Delete Discussion',
        description: 'Deletes the reply and its cheers. Its author or a company owner or admin may (403 for anyone else). Answers the reply as it was.',
        params: DiscussionParams,
        querystring: ScopeQuery,
        response: { 200: DiscussionAnswer, ...errorResponses(403) },
      },
    },
    async (request) => {
      const discussion = await commentService.deleteDiscussion(app.services, request.caller, request.params.discussionId, request.query);
      return { message: 'Discussion deleted', discussion };
    },
  );
};

export default comments;
