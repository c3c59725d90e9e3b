import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { toggleLabels } from '../../domain/cards/labels.ts';
import { toggleMembers } from '../../domain/cards/members.ts';
import { ToggleMembersBody } from '../../schemas/card-edits.ts';
import { CardParams, ScopeQuery, ToggleLabelsBody } from '../../schemas/cards.ts';
import { Card } from '../../schemas/records.ts';
import { operations } from '../operation.ts';

/** The /v2 toggles: several labels (or members) of a card in one atomic request. */
const cardsV2: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['cards']);
  /** Both toggle a set on one card and answer the card. */
  const toggle = { tier: 'low', params: CardParams, querystring: ScopeQuery, answer: ['card', Card] } as const;

  route(
    'POST /cards/:cardId/labels',
    {
      ...toggle,
      operationId: 'toggleMultipleLabels',
      summary: 'Toggle Multiple Labels',
      description:
        'Toggles every label in the array: added if absent, removed if present, all in one transaction. ' +
        "An id that is not a label of the card's board rejects the whole request (400, details name it).",
      body: ToggleLabelsBody,
      message: 'Labels toggled',
    },
    ({ caller, params, query, body }) => toggleLabels(app.services, caller, params.cardId, query, body.labels),
  );

  route(
    'POST /cards/:cardId/members',
    {
      ...toggle,
      operationId: 'toggleMultipleMembers',
      summary: 'Toggle Multiple Members',
      description:
        "Toggles every user in the array: added if absent (only members of the card's team), removed if present " +
        '(even one who has left the team), all in one transaction. An id that can be neither rejects the whole request (400, details name it).',
      body: ToggleMembersBody,
      message: 'Members toggled',
    },
    ({ caller, params, query, body }) => toggleMembers(app.services, caller, params.cardId, query, body.members),
  );
};

export default cardsV2;
