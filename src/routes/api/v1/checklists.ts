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
import { errorResponses, ScopeQuery, success } from '../../../schemas/common.ts';
import { Card } from '../../../schemas/records.ts';

const tags = ['checklists'];
const ChecklistAnswer = success('checklist', Checklist);

const checklists: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/cards/:cardId/checklists',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getChecklists',
        summary: 'Get Checklists',
        description: "The card's checklists in order, each with all its items in order; paginated by `limit` and `cursor`.",
        params: CardParams,
        querystring: PagedScopeQuery,
        response: { 200: ChecklistsPage, ...errorResponses() },
      },
    },
    async (request) => {
      const { limit, cursor, ...scope } = request.query;
      const page = await checklistService.getChecklists(app.services, request.caller, request.params.cardId, scope, { limit, cursor });
      return { message: 'Checklists retrieved', checklists: page.items, nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/cards/:cardId/checklists',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        operationId: 'createChecklist',
        summary: 'Create Checklist',
        description: 'A new, empty checklist at `position` among the card\'s checklists (default: the bottom).',
        params: CardParams,
        querystring: ScopeQuery,
        body: CreateChecklistBody,
        response: { 201: ChecklistAnswer, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const checklist = await checklistService.createChecklist(app.services, request.caller, request.params.cardId, request.query, request.body);
      return reply.status(201).send({ message: 'Checklist created', checklist });
    },
  );

  app.patch(
    '/checklists/:checklistId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'updateChecklistName',
        summary: 'Update Checklist Name',
        params: ChecklistParams,
        querystring: ScopeQuery,
        body: RenameBody,
        response: { 200: ChecklistAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const checklist = await checklistService.renameChecklist(app.services, request.caller, request.params.checklistId, request.query, request.body.name);
      return { message: 'Checklist renamed', checklist };
    },
  );

  app.patch(
    '/checklists/:checklistId/position',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'reorderChecklistPosition',
        summary: 'Reorder Checklist Position',
        description: "`position` is the checklist's new index among the card's checklists (0 is the first), or top / bottom.",
        params: ChecklistParams,
        querystring: ScopeQuery,
        body: PositionBody,
        response: { 200: ChecklistAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const checklist = await checklistService.moveChecklist(app.services, request.caller, request.params.checklistId, request.query, request.body.position);
      return { message: 'Checklist moved', checklist };
    },
  );

  app.post(
    '/checklists/:checklistId/copy',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        operationId: 'copyChecklist',
        summary: 'Copy Checklist',
        description:
          'Copies the checklist, with its items (name, order, date, completion), to the bottom of `card`, any card the caller ' +
          "reaches. Item members who are not members of that card's team are left out; attachments are not copied. " +
          '`companyId` / `teamId` scope the source checklist.',
        params: ChecklistParams,
        querystring: ScopeQuery,
        body: CopyChecklistBody,
        response: { 201: ChecklistAnswer, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const checklist = await checklistService.copyChecklist(app.services, request.caller, request.params.checklistId, request.query, request.body);
      return reply.status(201).send({ message: 'Checklist copied', checklist });
    },
  );

  app.delete(
    '/checklists/:checklistId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'deleteChecklist',
        summary: 'Delete Checklist',
        description: 'Deletes the checklist and its items; answers the card.',
        params: ChecklistParams,
        querystring: ScopeQuery,
        response: { 200: success('card', Card), ...errorResponses() },
      },
    },
    async (request) => {
      const card = await checklistService.deleteChecklist(app.services, request.caller, request.params.checklistId, request.query);
      return { message: 'Checklist deleted', card };
    },
  );
};

export default checklists;
