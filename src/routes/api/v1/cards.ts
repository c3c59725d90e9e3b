import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as cardService from '../../../domain/cards/service.ts';
import { CardParams, CreateCardBody, ScopeQuery } from '../../../schemas/cards.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { Card, type Card as CardRecord } from '../../../schemas/records.ts';

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
    async (request, reply) => {
      // the record comes rendered (often stored so: the card read model), by this route's serializer of the Card schema
      const render = reply.compileSerializationSchema(Card as unknown as Record<string, unknown>) as (card: CardRecord) => string;
      const card = await cardService.getCardDetails(app.services, request.caller, request.params.cardId, request.query, render);
      // a string with a JSON content type is sent as it is, past the route's serializer
      const body: string = `{"message":"Card details","card":${card}}`;
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
};

export default cards;
