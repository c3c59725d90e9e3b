import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as cardService from '../../../domain/cards/service.ts';
import { CardParams, CreateCardBody, ScopeQuery } from '../../../schemas/cards.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { Card } from '../../../schemas/records.ts';

const CardAnswer = success('card', Card);

const cards: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/cards',
    {
      config: { tier: 'medium' },
      schema: {
        tags: ['cards'],
        operationId: 'createCard',
        summary: 'Create Card',
        querystring: ScopeQuery,
        body: CreateCardBody,
        response: { 201: CardAnswer, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const card = await cardService.createCard(app.services, request.caller, request.query, request.body);
      return reply.status(201).send({ message: 'Card created', card });
    },
  );

  app.get(
    '/cards/:cardId',
    {
      config: { tier: 'very-low' },
      schema: {
        tags: ['cards'],
        operationId: 'getCardDetails',
        summary: 'Get Card Details (adds the caller to seen)',
        params: CardParams,
        querystring: ScopeQuery,
        response: { 200: CardAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const card = await cardService.getCardDetails(app.services, request.caller, request.params.cardId, request.query);
      return { message: 'Card details', card };
    },
  );
};

export default cards;
