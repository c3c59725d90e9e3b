import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as cardService from '../../../domain/cards/service.ts';
import { getCardWatch, setCardWatch } from '../../../domain/cards/watch.ts';
import { CardParams, CardWatchAnswer, CreateCardBody, ScopeQuery } from '../../../schemas/cards.ts';
import { success } from '../../../schemas/common.ts';
import { Card } from '../../../schemas/records.ts';
import { operations, renderedRecord } from '../../operation.ts';

const cards: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['cards']);

  route(
    'POST /cards',
    {
      tier: 'medium',
      operationId: 'createCard',
      summary: 'Create Card',
      querystring: ScopeQuery,
      body: CreateCardBody,
      answer: ['card', Card],
      status: 201,
      location: (card) => `/api/v1/cards/${card._id}`,
      message: 'Card created',
    },
    ({ caller, query, body }) => cardService.createCard(app.services, caller, query, body),
  );

  route(
    'GET /cards/:cardId',
    {
      tier: 'very-low',
      operationId: 'getCardDetails',
      summary: 'Get Card Details (adds the caller to seen)',
      params: CardParams,
      querystring: ScopeQuery,
      // the whole body: the record comes rendered (often stored so: the card read model), by this route's serializer of the Card schema
      answer: success('card', Card),
      answersRevision: true,
      message: 'Card details',
    },
    async ({ caller, params, query, serializer }) =>
      renderedRecord('card', await cardService.getCardDetails(app.services, caller, params.cardId, query, serializer(Card))),
  );

  route(
    'GET /cards/:cardId/watch',
    {
      tier: 'very-low',
      operationId: 'getCardWatch',
      summary: 'Get Card Watch: whether the caller watches the card',
      params: CardParams,
      querystring: ScopeQuery,
      answer: CardWatchAnswer,
      message: 'Card watch',
    },
    ({ caller, params, query }) => getCardWatch(app.services, caller, params.cardId, query),
  );

  route(
    'POST /cards/:cardId/watch',
    {
      tier: 'low',
      operationId: 'watchCard',
      summary: 'Watch Card: the caller is told of the card as its members are (again: no change)',
      params: CardParams,
      querystring: ScopeQuery,
      answer: CardWatchAnswer,
      message: 'Card watched',
    },
    ({ caller, params, query }) => setCardWatch(app.services, caller, params.cardId, query, true),
  );

  route(
    'DELETE /cards/:cardId/watch',
    {
      tier: 'low',
      operationId: 'unwatchCard',
      summary: 'Unwatch Card: the caller is no longer told of the card unless a member (again: no change)',
      params: CardParams,
      querystring: ScopeQuery,
      answer: CardWatchAnswer,
      message: 'Card unwatched',
    },
    ({ caller, params, query }) => setCardWatch(app.services, caller, params.cardId, query, false),
  );
};

export default cards;
