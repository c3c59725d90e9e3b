import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  createBoard,
  getBoardWithLists,
  getBoardWithListsAndCards,
  listBoards,
} from '../../../domain/boards/boards.ts';
import {
  BoardParams,
  BoardWithLists,
  BoardWithListsAndCards,
  CreateBoardBody,
  CreateBoardQuery,
} from '../../../schemas/boards.ts';
import { errorResponses, ScopeQuery, success } from '../../../schemas/common.ts';
import { Board } from '../../../schemas/records.ts';

const tags = ['boards'];

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/boards',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
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
        summary: 'Get Boards',
        description: 'Boards of the teams the caller reaches, oldest first, narrowed by `companyId` / `teamId`.',
        querystring: ScopeQuery,
        response: { 200: success('boards', Type.Array(Board)), ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Boards retrieved', boards: await listBoards(app.services, request.caller, request.query) }),
  );

  app.get(
    '/boards/:boardId',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        summary: 'Get Board with Lists and Cards',
        description: 'The board, its lists in position order, and each list\'s unarchived cards in position order.',
        params: BoardParams,
        querystring: ScopeQuery,
        response: { 200: success('board', BoardWithListsAndCards), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Board retrieved',
      board: await getBoardWithListsAndCards(app.services, request.caller, request.params.boardId, request.query),
    }),
  );

  app.get(
    '/boards/:boardId/lists',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        summary: 'Get Board with Lists',
        description: 'The board and its lists in position order, without cards.',
        params: BoardParams,
        querystring: ScopeQuery,
        response: { 200: success('board', BoardWithLists), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Board retrieved',
      board: await getBoardWithLists(app.services, request.caller, request.params.boardId, request.query),
    }),
  );
};

export default routes;
