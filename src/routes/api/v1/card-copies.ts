import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as copyService from '../../../domain/cards/copy.ts';
import { moveCardsMultiTeam } from '../../../domain/cards/move.ts';
import { BulkCardsAnswer, CopyCardAnswer, CopyCardBody, CopyCardsBody, MultiTeamCardsBody } from '../../../schemas/card-copies.ts';
import { CardParams } from '../../../schemas/cards.ts';
import { NoQuery, ScopeQuery } from '../../../schemas/common.ts';
import { operations } from '../../operation.ts';

/** Copy Card, Copy Cards, Copy Cards Multi Team, Move Cards Multi Team. */
const cardCopies: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['cards']);

  route(
    'POST /cards/:cardId/copy',
    {
      tier: 'medium',
      operationId: 'copyCard',
      summary: 'Copy Card (answers the copy, and what it could not keep)',
      params: CardParams,
      querystring: ScopeQuery,
      body: CopyCardBody,
      answer: CopyCardAnswer,
      status: 201,
      location: ({ card }) => `/api/v1/cards/${card._id}`,
      errors: [409],
      message: 'Card copied',
    },
    ({ caller, params, query, body }) => copyService.copyCard(app.services, caller, params.cardId, query, body),
  );

  route(
    'PATCH /cards/copy',
    {
      tier: 'medium',
      operationId: 'copyCards',
      summary: 'Copy Cards: cards of one team to the bottom of a list of that team',
      querystring: ScopeQuery,
      body: CopyCardsBody,
      answer: BulkCardsAnswer,
      errors: [409],
      message: 'Cards copied',
    },
    ({ caller, query, body }) => copyService.copyCards(app.services, caller, query, body),
  );

  route(
    'PATCH /cards/copy-multi-team',
    {
      tier: 'high',
      operationId: 'copyCardsMultiTeam',
      summary: 'Copy Cards Multi Team: cards of any reachable teams to the bottom of the target list',
      querystring: NoQuery,
      body: MultiTeamCardsBody,
      answer: BulkCardsAnswer,
      errors: [409],
      message: 'Cards copied',
    },
    ({ caller, body }) => copyService.copyCardsMultiTeam(app.services, caller, body),
  );

  route(
    'PATCH /cards/move-multi-team',
    {
      tier: 'high',
      operationId: 'moveCardsMultiTeam',
      summary: 'Move Cards Multi Team: cards of any reachable teams to the bottom of the target list',
      querystring: NoQuery,
      body: MultiTeamCardsBody,
      answer: BulkCardsAnswer,
      message: 'Cards moved',
    },
    ({ caller, body }) => moveCardsMultiTeam(app.services, caller, body),
  );
};

export default cardCopies;
