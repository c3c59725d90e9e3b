import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getBoardCardFaces, getBoardDatedCardFaces, getCardFace, listCardFacesOfList } from '../../../domain/cards/faces.ts';
import { BoardParams } from '../../../schemas/boards.ts';
import { ListCardsParams } from '../../../schemas/card-edits.ts';
import { BoardCardFacesQuery, BoardDatedCardFacesQuery, BoardWithCardFaces, CardFace, CardFacesPage, ListCardFacesQuery } from '../../../schemas/card-faces.ts';
import { CardParams } from '../../../schemas/cards.ts';
import { ScopeQuery } from '../../../schemas/common.ts';
import { keyedPage, operations } from '../../operation.ts';

/** Card faces: the compact reads a board page is drawn from (docs/decisions/0094). */
const cardFaces: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['cards']);

  route(
    'GET /boards/:boardId/card-faces',
    {
      tier: 'very-low',
      operationId: 'getBoardCardFaces',
      summary: 'Get Board Card Faces',
      description:
        'Get Board with Lists and Cards in compact form: the board, its unarchived lists (all with `archived=true`) in position order, each with the faces of its first `limit` unarchived cards (what a board shows of a card) and the `nextCursor` Get List Card Faces continues from.',
      params: BoardParams,
      querystring: BoardCardFacesQuery,
      answer: ['board', BoardWithCardFaces],
      answersRevision: true,
      message: 'Board retrieved',
    },
    ({ caller, params, query: { companyId, teamId, ...query } }) => getBoardCardFaces(app.services, caller, params.boardId, { companyId, teamId }, query),
  );

  route(
    'GET /boards/:boardId/card-faces/by-dates',
    {
      tier: 'very-low',
      operationId: 'getBoardCardFacesByDates',
      summary: 'Get Board Card Faces by Dates',
      description:
        'Get Board Card Faces for a dates window (what a calendar or timeline shows): the board and its unarchived lists in position order, each with the faces of its first `limit` unarchived cards whose due date (`by=due`), start date (`by=start`) or span from start to due (`by=span`) falls in [`from`, `to`), in position order, and the `nextCursor` Get List Card Faces continues from when given the same `from`, `to` and `by`. `from` and `to` are both required, and `to` must be after `from` (else 400 naming the field).',
      params: BoardParams,
      querystring: BoardDatedCardFacesQuery,
      answer: ['board', BoardWithCardFaces],
      message: 'Board retrieved',
    },
    ({ caller, params, query: { companyId, teamId, ...query } }) => getBoardDatedCardFaces(app.services, caller, params.boardId, { companyId, teamId }, query),
  );

  route(
    'GET /lists/:listId/card-faces',
    {
      tier: 'very-low',
      operationId: 'getListCardFaces',
      summary: 'Get List Card Faces',
      description:
        "Get List Card in compact form: the faces of the list's cards in position order (archived=true: its archived cards), `limit` per page; its cursors and Get List Card's are interchangeable. With `from` and `to` (and `by`), only the cards in that dates window, as Get Board Card Faces by Dates.",
      params: ListCardsParams,
      querystring: ListCardFacesQuery,
      answer: CardFacesPage,
      message: 'Cards retrieved',
    },
    async ({ caller, params, query: { companyId, teamId, ...page } }) =>
      keyedPage('cards', await listCardFacesOfList(app.services, caller, params.listId, { companyId, teamId }, page)),
  );

  route(
    'GET /cards/:cardId/face',
    {
      tier: 'very-low',
      operationId: 'getCardFace',
      summary: 'Get Card Face',
      description: "The card's face: what a board shows of it. Unlike Get Card Details, reading it does not add the caller to the card's `seen`.",
      params: CardParams,
      querystring: ScopeQuery,
      answer: ['card', CardFace],
      answersRevision: true,
      message: 'Card retrieved',
    },
    ({ caller, params, query }) => getCardFace(app.services, caller, params.cardId, query),
  );
};

export default cardFaces;
