import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as copyService from '../../../domain/cards/copy.ts';
import { moveCardsMultiTeam } from '../../../domain/cards/move.ts';
import { BulkCardsAnswer, CopyCardAnswer, CopyCardBody, CopyCardsBody, MultiTeamCardsBody } from '../../../schemas/card-copies.ts';
import { CardParams } from '../../../schemas/cards.ts';
import { errorResponses, NoQuery, ScopeQuery } from '../../../schemas/common.ts';

/** Copy Card, Copy Cards, Copy Cards Multi Team, Move Cards Multi Team. */
const cardCopies: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/cards/:cardId/copy',
    {
      config: { tier: 'medium' },
      schema: {
        tags: ['cards'],
        operationId: 'copyCard',
        summary: 'Copy Card (answers the copy, and what it could not keep)',
        params: CardParams,
        querystring: ScopeQuery,
        body: CopyCardBody,
        response: { 201: CopyCardAnswer, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const result = await copyService.copyCard(app.services, request.caller, request.params.cardId, request.query, request.body);
      return reply.status(201).send({ message: 'Card copied', ...result });
    },
  );

  app.patch(
    '/cards/copy',
    {
      config: { tier: 'medium' },
      schema: {
        tags: ['cards'],
        operationId: 'copyCards',
        summary: 'Copy Cards: cards of one team to the bottom of a list of that team',
        querystring: ScopeQuery,
        body: CopyCardsBody,
        response: { 200: BulkCardsAnswer, ...errorResponses(409) },
      },
    },
    async (request) => {
      const result = await copyService.copyCards(app.services, request.caller, request.query, request.body);
      return { message: 'Cards copied', ...result };
    },
  );

  app.patch(
    '/cards/copy-multi-team',
    {
      config: { tier: 'high' },
      schema: {
        tags: ['cards'],
        operationId: 'copyCardsMultiTeam',
        summary: 'Copy Cards Multi Team: cards of any reachable teams to the bottom of the target list',
        querystring: NoQuery,
        body: MultiTeamCardsBody,
        response: { 200: BulkCardsAnswer, ...errorResponses(409) },
      },
    },
    async (request) => {
      const result = await copyService.copyCardsMultiTeam(app.services, request.caller, request.body);
      return { message: 'Cards copied', ...result };
    },
  );

  app.patch(
    '/cards/move-multi-team',
    {
      config: { tier: 'high' },
      schema: {
        tags: ['cards'],
        operationId: 'moveCardsMultiTeam',
        summary: 'Move Cards Multi Team: cards of any reachable teams to the bottom of the target list',
        querystring: NoQuery,
        body: MultiTeamCardsBody,
        response: { 200: BulkCardsAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const result = await moveCardsMultiTeam(app.services, request.caller, request.body);
      return { message: 'Cards moved', ...result };
    },
  );
};

export default cardCopies;
