import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  createBoard,
  deleteBoard,
  getBoardWithLists,
  getBoardWithListsAndCards,
  listBoards,
  setBoardArchived,
  updateBoard,
} from '../../../domain/boards/boards.ts';
import { openBoardExport } from '../../../domain/boards/export.ts';
import { listStarredBoards, setBoardStar } from '../../../domain/boards/stars.ts';
import { BoardExport, BoardExportQuery } from '../../../schemas/board-export.ts';
import {
  ArchivedScopeQuery,
  BoardParams,
  BoardStarAnswer,
  BoardWithLists,
  BoardWithListsAndCards,
  CreateBoardBody,
  CreateBoardQuery,
  Deleted,
  UpdateBoardBody,
} from '../../../schemas/boards.ts';
import { errorResponses, ScopeQuery } from '../../../schemas/common.ts';
import { Board } from '../../../schemas/records.ts';
import { operations } from '../../operation.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['boards']);
  const board = ['board', Board] as const;

  route(
    'POST /boards',
    {
      tier: 'medium',
      operationId: 'createBoard',
      summary: 'Create Board',
      description:
        "Creates a board in the team `teamId` (required), which the caller must reach; with `defaultLabels: true` it starts with Trello's six default labels (unnamed, green to blue), made in the same transaction.",
      querystring: CreateBoardQuery,
      body: CreateBoardBody,
      answer: board,
      status: 201,
      location: (board) => `/api/v1/boards/${board._id}`,
      message: 'Board created',
    },
    ({ caller, query, body }) => createBoard(app.services, caller, { ...query, name: body.name, defaultLabels: body.defaultLabels ?? false }),
  );

  route(
    'GET /boards',
    {
      tier: 'very-low',
      operationId: 'getBoards',
      summary: 'Get Boards',
      description: 'Boards of the teams the caller reaches, oldest first, narrowed by `companyId` / `teamId`; archived boards only with `archived=true`.',
      querystring: ArchivedScopeQuery,
      answer: ['boards', Type.Array(Board)],
      message: 'Boards retrieved',
    },
    ({ caller, query: { archived, ...scope } }) => listBoards(app.services, caller, scope, archived),
  );

  route(
    'GET /me/starred-boards',
    {
      tier: 'very-low',
      operationId: 'getStarredBoards',
      summary: 'Get Starred Boards',
      description:
        "The open boards the caller starred and still reaches, in the order starred, narrowed by `companyId` / `teamId`. A star is the caller's own: nobody else sees it.",
      querystring: ScopeQuery,
      answer: ['boards', Type.Array(Board)],
      message: 'Starred boards retrieved',
    },
    ({ caller, query }) => listStarredBoards(app.services, caller, query),
  );

  route(
    'POST /boards/:boardId/star',
    {
      tier: 'low',
      operationId: 'starBoard',
      summary: "Star Board: the board is among the caller's starred boards (again: no change)",
      params: BoardParams,
      querystring: ScopeQuery,
      answer: BoardStarAnswer,
      message: 'Board starred',
    },
    ({ caller, params, query }) => setBoardStar(app.services, caller, params.boardId, query, true),
  );

  route(
    'DELETE /boards/:boardId/star',
    {
      tier: 'low',
      operationId: 'unstarBoard',
      summary: "Unstar Board: the board leaves the caller's starred boards (again: no change)",
      params: BoardParams,
      querystring: ScopeQuery,
      answer: BoardStarAnswer,
      message: 'Board unstarred',
    },
    ({ caller, params, query }) => setBoardStar(app.services, caller, params.boardId, query, false),
  );

  route(
    'GET /boards/:boardId',
    {
      tier: 'very-low',
      operationId: 'getBoardWithListsAndCards',
      summary: 'Get Board with Lists and Cards',
      description: "The board, its unarchived lists (all with `archived=true`) in position order, and each list's unarchived cards in position order.",
      params: BoardParams,
      querystring: ArchivedScopeQuery,
      answer: ['board', BoardWithListsAndCards],
      answersRevision: true,
      message: 'Board retrieved',
    },
    ({ caller, params, query: { archived, ...scope } }) => getBoardWithListsAndCards(app.services, caller, params.boardId, scope, archived),
  );

  app.get(
    '/boards/:boardId/export',
    {
      // as the board read and the attachment download it gathers (very-low in the contract)
      config: { tier: 'very-low' },
      schema: {
        tags: ['boards'],
        operationId: 'exportBoard',
        summary: 'Export Board',
        description:
          'The whole board as a `BoardExport` document (`formatVersion` 1: lists, cards, labels, checklists and items, comments and their discussions, cheers, attachment records), ' +
          'or with `format=csv` one row per card, or with `files=true` a zip of the document (`board.json`) and the attached files. Streamed: written as it is read.',
        params: BoardParams,
        querystring: BoardExportQuery,
        response: {
          200: {
            description: 'the document (JSON), or the cards as CSV (UTF-8 with a byte-order mark); `Content-Disposition` names a file',
            content: {
              'application/json': { schema: BoardExport },
              'text/csv': { schema: { type: 'string' } },
              'application/zip': {
                schema: { type: 'string', format: 'binary', description: '`board.json` and each attached file at the path its record names' },
              },
            },
          },
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      const { format, files, ...scope } = request.query;
      const exported = await openBoardExport(app.services, request.caller, request.params.boardId, scope, { format, files });
      return (
        reply
          .header('Content-Type', exported.contentType)
          .header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(exported.filename)}`)
          .header('Cache-Control', 'private, no-store')
          // the 200 schema documents the document; the type provider cannot type a stream for it
          .send(exported.body as never)
      );
    },
  );

  route(
    'GET /boards/:boardId/lists',
    {
      tier: 'very-low',
      operationId: 'getBoardWithLists',
      summary: 'Get Board with Lists',
      description: 'The board and its unarchived lists (all with `archived=true`) in position order, without cards.',
      params: BoardParams,
      querystring: ArchivedScopeQuery,
      answer: ['board', BoardWithLists],
      message: 'Board retrieved',
    },
    ({ caller, params, query: { archived, ...scope } }) => getBoardWithLists(app.services, caller, params.boardId, scope, archived),
  );

  route(
    'PATCH /boards/:boardId',
    {
      tier: 'low',
      operationId: 'updateBoard',
      summary: 'Update Board',
      description: 'Renames the board and/or changes its description; team members.',
      params: BoardParams,
      querystring: ScopeQuery,
      body: UpdateBoardBody,
      answer: board,
      message: 'Board updated',
    },
    ({ caller, params, query, body }) => updateBoard(app.services, caller, params.boardId, query, body),
  );

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    route(
      `PATCH /boards/:boardId/${action}`,
      {
        tier: 'low',
        operationId: archived ? 'archiveBoard' : 'unarchiveBoard',
        summary: archived ? 'Archive Board' : 'Unarchive Board',
        description: archived
          ? 'Archives the board: Get Boards, Get All Lists and My Tasks leave it out unless `archived=true`; it stays readable by id.'
          : 'Brings an archived board back.',
        params: BoardParams,
        querystring: ScopeQuery,
        answer: board,
        message: archived ? 'Board archived' : 'Board unarchived',
      },
      ({ caller, params, query }) => setBoardArchived(app.services, caller, params.boardId, query, archived),
    );
  }

  route(
    'DELETE /boards/:boardId',
    {
      tier: 'high',
      operationId: 'deleteBoard',
      summary: 'Delete Board',
      description:
        'Company owners and admins (403 for members). The board, its lists, cards and labels are gone for every request at once ' +
        '(404 afterwards); the rows are removed in the background, in batches.',
      params: BoardParams,
      querystring: ScopeQuery,
      answer: ['board', Deleted],
      errors: [403],
      message: 'Board deleted',
    },
    ({ caller, params, query }) => deleteBoard(app.services, caller, params.boardId, query),
  );
};

export default routes;
