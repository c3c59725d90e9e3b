import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createRelation, deleteRelation, listBoardRelations, listCardRelations } from '../../../domain/relations/relations.ts';
import { BoardParams } from '../../../schemas/boards.ts';
import { CardParams } from '../../../schemas/cards.ts';
import { ScopeQuery } from '../../../schemas/common.ts';
import { BoardRelation, CardRelation, CreateRelationBody, RelationParams } from '../../../schemas/relations.ts';
import { operations } from '../../operation.ts';

/** Card relations (docs/api.md, "Card relations"). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['card relations']);

  route(
    'GET /cards/:cardId/relations',
    {
      tier: 'very-low',
      operationId: 'getCardRelations',
      summary: 'Get Card Relations',
      description:
        "The card's relations, oldest first, each as the card sees it (`blocks`, `blocked_by`, `relates`, `duplicates`, `duplicated_by`) with the other card: its name, board, list and whether it is `open`. " +
        'A relation whose other card the caller does not reach is left out.',
      params: CardParams,
      querystring: ScopeQuery,
      answer: ['relations', Type.Array(CardRelation)],
      message: 'Card relations retrieved',
    },
    ({ caller, params, query }) => listCardRelations(app.services, caller, params.cardId, query),
  );

  route(
    'GET /boards/:boardId/relations',
    {
      tier: 'very-low',
      operationId: 'getBoardRelations',
      summary: 'Get Board Relations',
      description:
        'Every relation with a card of the board at one end (the other may be on any board), `from` kind `to` as stored; a relation with an end the caller does not reach is left out. ' +
        'What a board shows on its card faces ("blocked by an open card").',
      params: BoardParams,
      querystring: ScopeQuery,
      answer: ['relations', Type.Array(BoardRelation)],
      message: 'Board relations retrieved',
    },
    ({ caller, params, query }) => listBoardRelations(app.services, caller, params.boardId, query),
  );

  route(
    'POST /cards/:cardId/relations',
    {
      tier: 'medium',
      operationId: 'createCardRelation',
      summary: 'Create Card Relation',
      description:
        'Relates the card to another card of the same company that the caller reaches, on any board or team: `kind` as the card sees it. A change of both cards (`__v` + 1 each, `If-Match` applies to this one). ' +
        'A relation that exists already, or a "blocks" that would close a cycle of blocks, is a 409; a card out of reach, at either end, a 404.',
      params: CardParams,
      querystring: ScopeQuery,
      body: CreateRelationBody,
      answer: ['relation', CardRelation],
      status: 201,
      location: (created) => `/api/v1/cards/${created.card._id}/relations`,
      errors: [409],
      message: 'Card relation created',
    },
    ({ caller, params, query, body }) => createRelation(app.services, caller, params.cardId, query, body),
  );

  route(
    'DELETE /cards/:cardId/relations/:relationId',
    {
      tier: 'low',
      operationId: 'deleteCardRelation',
      summary: 'Delete Card Relation',
      description: 'Removes a relation of the card (a change of both cards, `If-Match` applies to this one); answers it as the card saw it.',
      params: RelationParams,
      querystring: ScopeQuery,
      answer: ['relation', CardRelation],
      message: 'Card relation deleted',
    },
    ({ caller, params, query }) => deleteRelation(app.services, caller, params.cardId, params.relationId, query),
  );
};

export default routes;
