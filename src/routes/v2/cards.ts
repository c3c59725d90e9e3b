import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as cardService from '../../domain/cards/service.ts';
import { CardParams, ScopeQuery, ToggleLabelsBody } from '../../schemas/cards.ts';
import { errorResponses, success } from '../../schemas/common.ts';
import { Card } from '../../schemas/records.ts';

/** The /v2 toggles: several labels (or members) of a card in one atomic request. */
const cardsV2: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/cards/:cardId/labels',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['cards'],
        summary: 'Toggle Multiple Labels',
        description:
          'Toggles every label in the array: added if absent, removed if present, all in one transaction. ' +
          "An id that is not a label of the card's board rejects the whole request (400, details name it).",
        params: CardParams,
        querystring: ScopeQuery,
        body: ToggleLabelsBody,
        response: { 200: success('card', Card), ...errorResponses() },
      },
    },
    async (request) => {
      const card = await cardService.toggleLabels(app.services, request.caller, request.params.cardId, request.query, request.body.labels);
      return { message: 'Labels toggled', card };
    },
  );
};

export default cardsV2;
