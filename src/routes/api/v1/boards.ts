import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  createBoard,
  deleteBoard,
  setBoardArchived,
  updateBoard,
  getBoardWithLists,
  getBoardWithListsAndCards,
  listBoards,
} from '../../../domain/boards/boards.ts';
import {
  ArchivedScopeQuery,
  BoardParams,
  Deleted,
  UpdateBoardBody,
  BoardWithLists,
  BoardWithListsAndCards,
  CreateBoardBody,
  CreateBoardQuery,
} from '../../../schemas/boards.ts';
import { errorResponses, ScopeQuery, success } from '../../../schemas/common.ts';
import { Board } from '../../../schemas/records.ts';

const tags = ['boards'];

function scopeOf(query: { companyId?: string | undefined; teamId?: string | undefined }) {
  return { companyId: query.companyId, teamId: query.teamId };
}

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/boards',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        operationId: 'createBoard',
        summary: 'Create Board',
        description: 'Creates a board in the team `teamId` (required), which the caller must reach.',
        querystring: CreateBoardQuery,
        body: CreateBoardBody,
        response: { 201: success('board', Board), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const board = await createBoard(app.services, request.caller, { ...request.query, name: request.body.name });
      return reply.status(201).send({ message: 'Board created', board });
    },
  );

  app.get(
    '/boards',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getBoards',
        summary: 'Get Boards',
        description: 'Boards of the teams the caller reaches, oldest first, narrowed by `companyId` / `teamId`; archived boards only with `archived=true`.',
        querystring: ArchivedScopeQuery,
        response: { 200: success('boards', Type.Array(Board)), ...errorResponses() },
      },
    },
    async (request) => {
      const { archived, ...scope } = request.query;
      return { message: 'Boards retrieved', boards: await listBoards(app.services, request.caller, scope, archived) };
    },
  );

  app.get(
    '/boards/:boardId',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getBoardWithListsAndCards',
        summary: 'Get Board with Lists and Cards',
        description: 'The board, its unarchived lists (all with `archived=true`) in position order, and each list\'s unarchived cards in position order.',
        params: BoardParams,
        querystring: ArchivedScopeQuery,
        response: { 200: success('board', BoardWithListsAndCards), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Board retrieved',
      board: await getBoardWithListsAndCards(app.services, request.caller, request.params.boardId, scopeOf(request.query), request.query.archived),
    }),
  );

  app.get(
    '/boards/:boardId/lists',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getBoardWithLists',
        summary: 'Get Board with Lists',
        description: 'The board and its unarchived lists (all with `archived=true`) in position order, without cards.',
        params: BoardParams,
        querystring: ArchivedScopeQuery,
        response: { 200: success('board', BoardWithLists), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Board retrieved',
      board: await getBoardWithLists(app.services, request.caller, request.params.boardId, scopeOf(request.query), request.query.archived),
    }),
  );

  app.patch(
    '/boards/:boardId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        summary: 'Update Board',
        operationId: 'updateBoard',
        description: 'Renames the board and/or changes its description; team members.',
        params: BoardParams,
        querystring: ScopeQuery,
        body: UpdateBoardBody,
        response: { 200: success('board', Board), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Board updated',
      board: await updateBoard(app.services, request.caller, request.params.boardId, request.query, request.body),
    }),
  );

  for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
    app.patch(
      `/boards/:boardId/${action}`,
      {
        config: { tier: 'low' },
        schema: {
          tags,
          summary: archived ? 'Archive Board' : 'Unarchive Board',
          operationId: archived ? 'archiveBoard' : 'unarchiveBoard',
          description: archived
            ? 'Archives the board: Get Boards, Get All Lists and My Tasks leave it out unless `archived=true`; it stays readable by id.'
            : 'Brings an archived board back.',
          params: BoardParams,
          querystring: ScopeQuery,
          response: { 200: success('board', Board), ...errorResponses() },
        },
      },
      async (request) => ({
        message: archived ? 'Board archived' : 'Board unarchived',
        board: await setBoardArchived(app.services, request.caller, request.params.boardId, request.query, archived),
      }),
    );
  }

  app.delete(
    '/boards/:boardId',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Delete Board',
        operationId: 'deleteBoard',
        description:
          'Company owners and admins (403 for members). The board, its lists, cards and labels are gone for every request at once ' +
          '(404 afterwards); the rows are removed in the background, in batches.',
        params: BoardParams,
        querystring: ScopeQuery,
        response: { 200: success('board', Deleted), ...errorResponses(403) },
      },
    },
    async (request) => ({
      message: 'Board deleted',
      board: await deleteBoard(app.services, request.caller, request.params.boardId, request.query),
    }),
  );
};

export default routes;
