import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { toggleLabels } from '../../domain/cards/labels.ts';
import { toggleMembers } from '../../domain/cards/members.ts';
import { ToggleMembersBody } from '../../schemas/card-edits.ts';
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
        operationId: 'toggleMultipleLabels',
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
      const card = await toggleLabels(app.services, request.caller, request.params.cardId, request.query, request.body.labels);
      return { message: 'Labels toggled', card };
    },
  );

  app.post(
    '/cards/:cardId/members',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['cards'],
        operationId: 'toggleMultipleMembers',
        summary: 'Toggle Multiple Members',
        description:
          'Toggles every user in the array: added if absent (only members of the card\'s team), removed if present ' +
          '(even one who has left the team), all in one transaction. An id that can be neither rejects the whole request (400, details name it).',
        params: CardParams,
        querystring: ScopeQuery,
        body: ToggleMembersBody,
        response: { 200: success('card', Card), ...errorResponses() },
      },
    },
    async (request) => {
      const card = await toggleMembers(app.services, request.caller, request.params.cardId, request.query, request.body.members);
      return { message: 'Members toggled', card };
    },
  );
};

export default cardsV2;
