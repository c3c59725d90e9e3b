import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as recurrences from '../../../domain/recurrences/service.ts';
import { NoQuery } from '../../../schemas/common.ts';
import {
  PreviewAnswer,
  PreviewBody,
  Recurrence,
  RecurrenceDefinition,
  RecurrenceParams,
  RecurrencesAnswer,
  UpdateRecurrenceBody,
} from '../../../schemas/recurrences.ts';
import { BoardRulesParams } from '../../../schemas/rules.ts';
import { operations } from '../../operation.ts';

const who = "Anyone who reaches the board (its team's members, the company's owners and admins); a board out of reach is a 404.";

/** Recurring cards (docs/api.md, "Recurring cards"). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['recurrences']);
  const recurrence = ['recurrence', Recurrence] as const;

  route(
    'POST /boards/:boardId/recurrences',
    {
      tier: 'medium',
      operationId: 'createRecurrence',
      summary: 'Create Recurring Card',
      description: `A card made at each occurrence of an RFC 5545 rule in a time zone, in a list of the board, with the reach of its author (the caller); the answer shows the next three occurrences. ${who}`,
      params: BoardRulesParams,
      querystring: NoQuery,
      body: RecurrenceDefinition,
      answer: recurrence,
      status: 201,
      location: (created) => `/api/v1/recurrences/${created._id}`,
      message: 'Recurring card created',
    },
    ({ caller, params, body }) => recurrences.createRecurrence(app.services, caller, params.boardId, body),
  );

  route(
    'GET /boards/:boardId/recurrences',
    {
      tier: 'very-low',
      operationId: 'getBoardRecurrences',
      summary: 'Get Recurring Cards',
      description: `The board's recurring cards, oldest first. ${who}`,
      params: BoardRulesParams,
      querystring: NoQuery,
      answer: RecurrencesAnswer,
      message: 'Recurring cards retrieved',
    },
    async ({ caller, params }) => ({ recurrences: await recurrences.listRecurrences(app.services, caller, params.boardId) }),
  );

  route(
    'POST /boards/:boardId/recurrences/preview',
    {
      tier: 'low',
      operationId: 'previewRecurrence',
      summary: 'Preview Recurrence',
      description: `The next three occurrences of a schedule from now, before it is saved; changes nothing. ${who}`,
      params: BoardRulesParams,
      querystring: NoQuery,
      body: PreviewBody,
      answer: PreviewAnswer,
      message: 'Occurrences computed',
    },
    async ({ caller, params, body }) => ({ occurrences: await recurrences.previewOnBoard(app.services, caller, params.boardId, body) }),
  );

  route(
    'GET /recurrences/:recurrenceId',
    {
      tier: 'very-low',
      operationId: 'getRecurrence',
      summary: 'Get Recurring Card',
      description: who,
      params: RecurrenceParams,
      querystring: NoQuery,
      answer: recurrence,
      message: 'Recurring card retrieved',
    },
    ({ caller, params }) => recurrences.getRecurrence(app.services, caller, params.recurrenceId),
  );

  route(
    'PATCH /recurrences/:recurrenceId',
    {
      tier: 'low',
      operationId: 'updateRecurrence',
      summary: 'Update Recurring Card',
      description: `Changes future occurrences only (cards made stay); \`enabled: false\` pauses, \`true\` resumes from now. The caller becomes its author. ${who}`,
      params: RecurrenceParams,
      querystring: NoQuery,
      body: UpdateRecurrenceBody,
      answer: recurrence,
      message: 'Recurring card updated',
    },
    ({ caller, params, body }) => recurrences.updateRecurrence(app.services, caller, params.recurrenceId, body),
  );

  route(
    'DELETE /recurrences/:recurrenceId',
    {
      tier: 'low',
      operationId: 'deleteRecurrence',
      summary: 'Delete Recurring Card',
      description: `Stops it; the cards it made stay. ${who}`,
      params: RecurrenceParams,
      querystring: NoQuery,
      answer: recurrence,
      message: 'Recurring card deleted',
    },
    ({ caller, params }) => recurrences.deleteRecurrence(app.services, caller, params.recurrenceId),
  );
};

export default routes;
