import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as checklistService from '../../../domain/checklists/service.ts';
import { CardParams, RenameBody } from '../../../schemas/cards.ts';
import {
  Checklist,
  ChecklistParams,
  ChecklistsPage,
  CopyChecklistBody,
  CreateChecklistBody,
  PagedScopeQuery,
  PositionBody,
} from '../../../schemas/checklists.ts';
import { ScopeQuery } from '../../../schemas/common.ts';
import { Card } from '../../../schemas/records.ts';
import { keyedPage, operations } from '../../operation.ts';

const checklists: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['checklists']);
  const checklist = ['checklist', Checklist] as const;

  route(
    'GET /cards/:cardId/checklists',
    {
      tier: 'very-low',
      operationId: 'getChecklists',
      summary: 'Get Checklists',
      description: "The card's checklists in order, each with all its items in order; paginated by `limit` and `cursor`.",
      params: CardParams,
      querystring: PagedScopeQuery,
      answer: ChecklistsPage,
      message: 'Checklists retrieved',
    },
    async ({ caller, params, query: { limit, cursor, ...scope } }) => {
      const page = await checklistService.getChecklists(app.services, caller, params.cardId, scope, { limit, cursor });
      return keyedPage('checklists', page);
    },
  );

  route(
    'POST /cards/:cardId/checklists',
    {
      tier: 'medium',
      operationId: 'createChecklist',
      summary: 'Create Checklist',
      description: "A new, empty checklist at `position` among the card's checklists (default: the bottom).",
      params: CardParams,
      querystring: ScopeQuery,
      body: CreateChecklistBody,
      answer: checklist,
      status: 201,
      location: (checklist) => `/api/v1/cards/${checklist.card}/checklists`,
      message: 'Checklist created',
    },
    ({ caller, params, query, body }) => checklistService.createChecklist(app.services, caller, params.cardId, query, body),
  );

  route(
    'PATCH /checklists/:checklistId',
    {
      tier: 'low',
      operationId: 'updateChecklistName',
      summary: 'Update Checklist Name',
      params: ChecklistParams,
      querystring: ScopeQuery,
      body: RenameBody,
      answer: checklist,
      message: 'Checklist renamed',
    },
    ({ caller, params, query, body }) => checklistService.renameChecklist(app.services, caller, params.checklistId, query, body.name),
  );

  route(
    'PATCH /checklists/:checklistId/position',
    {
      tier: 'low',
      operationId: 'reorderChecklistPosition',
      summary: 'Reorder Checklist Position',
      description: "`position` is the checklist's new index among the card's checklists (0 is the first), or top / bottom.",
      params: ChecklistParams,
      querystring: ScopeQuery,
      body: PositionBody,
      answer: checklist,
      message: 'Checklist moved',
    },
    ({ caller, params, query, body }) => checklistService.moveChecklist(app.services, caller, params.checklistId, query, body.position),
  );

  route(
    'POST /checklists/:checklistId/copy',
    {
      tier: 'medium',
      operationId: 'copyChecklist',
      summary: 'Copy Checklist',
      description:
        'Copies the checklist, with its items (name, order, date, completion), to the bottom of `card`, any card the caller ' +
        "reaches. Item members who are not members of that card's team are left out; attachments are not copied. " +
        '`companyId` / `teamId` scope the source checklist.',
      params: ChecklistParams,
      querystring: ScopeQuery,
      body: CopyChecklistBody,
      answer: checklist,
      status: 201,
      location: (checklist) => `/api/v1/cards/${checklist.card}/checklists`,
      message: 'Checklist copied',
    },
    ({ caller, params, query, body }) => checklistService.copyChecklist(app.services, caller, params.checklistId, query, body),
  );

  route(
    'DELETE /checklists/:checklistId',
    {
      tier: 'low',
      operationId: 'deleteChecklist',
      summary: 'Delete Checklist',
      description: 'Deletes the checklist and its items; answers the card.',
      params: ChecklistParams,
      querystring: ScopeQuery,
      answer: ['card', Card],
      message: 'Checklist deleted',
    },
    ({ caller, params, query }) => checklistService.deleteChecklist(app.services, caller, params.checklistId, query),
  );
};

export default checklists;
