import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as itemService from '../../../domain/checklists/items.ts';
import { RenameBody } from '../../../schemas/cards.ts';
import {
  Checklist,
  ChecklistItem,
  ChecklistParams,
  CopyItemBody,
  CreateItemBody,
  ItemCompleteBody,
  ItemDateBody,
  ItemParams,
  ItemPositionBody,
  ItemsPage,
  PagedScopeQuery,
  ToggleItemMembersBody,
} from '../../../schemas/checklists.ts';
import { errorResponses, ScopeQuery, success } from '../../../schemas/common.ts';

const tags = ['checklist items'];
const ItemAnswer = success('checklistItem', ChecklistItem);

const checklistItems: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/checklists/:checklistId/items',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getItems',
        summary: 'Get Items',
        description: "The checklist's items in order; paginated by `limit` and `cursor`.",
        params: ChecklistParams,
        querystring: PagedScopeQuery,
        response: { 200: ItemsPage, ...errorResponses() },
      },
    },
    async (request) => {
      const { limit, cursor, ...scope } = request.query;
      const page = await itemService.getItems(app.services, request.caller, request.params.checklistId, scope, { limit, cursor });
      return { message: 'Checklist items retrieved', checklistItems: page.items, nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/checklists/:checklistId/items',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        operationId: 'createItem',
        summary: 'Create Item',
        description:
          "A new item at `position` (default: the bottom). `members` must be members of the card's team, each once. " +
          'A checklist holds at most 200 items (409 beyond).',
        params: ChecklistParams,
        querystring: ScopeQuery,
        body: CreateItemBody,
        response: { 201: ItemAnswer, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const checklistItem = await itemService.createItem(app.services, request.caller, request.params.checklistId, request.query, request.body);
      return reply.status(201).send({ message: 'Checklist item created', checklistItem });
    },
  );

  app.get(
    '/checklist-items/:itemId',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getItemById',
        summary: 'Get Item by ID',
        params: ItemParams,
        querystring: ScopeQuery,
        response: { 200: ItemAnswer, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Checklist item retrieved',
      checklistItem: await itemService.getItem(app.services, request.caller, request.params.itemId, request.query),
    }),
  );

  app.patch(
    '/checklist-items/:itemId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'updateItemName',
        summary: 'Update Item Name',
        params: ItemParams,
        querystring: ScopeQuery,
        body: RenameBody,
        response: { 200: ItemAnswer, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Checklist item renamed',
      checklistItem: await itemService.renameItem(app.services, request.caller, request.params.itemId, request.query, request.body.name),
    }),
  );

  app.patch(
    '/checklist-items/:itemId/date',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'updateItemDate',
        summary: 'Update Item Date',
        description: '`date`: an ISO 8601 date-time (stored as UTC with milliseconds), or null to clear it.',
        params: ItemParams,
        querystring: ScopeQuery,
        body: ItemDateBody,
        response: { 200: ItemAnswer, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Checklist item date updated',
      checklistItem: await itemService.setItemDate(app.services, request.caller, request.params.itemId, request.query, request.body.date),
    }),
  );

  app.patch(
    '/checklist-items/:itemId/complete',
    {
      config: { tier: 'low' },
      // No body (or an empty one) flips the status.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        operationId: 'toggleItemCompleteStatus',
        summary: 'Toggle Item Complete Status',
        description: '`status` sets the status; without it (or without a body) the status flips. Setting the status it has changes nothing.',
        params: ItemParams,
        querystring: ScopeQuery,
        body: ItemCompleteBody,
        response: { 200: ItemAnswer, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Checklist item complete status updated',
      checklistItem: await itemService.toggleItemComplete(app.services, request.caller, request.params.itemId, request.query, request.body.status),
    }),
  );

  app.patch(
    '/checklist-items/:itemId/position',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'reorderItem',
        summary: 'Reorder Item',
        description:
          "`position` is the item's new index among the target checklist's items (0 is the first), or top / bottom; " +
          '`checklist` moves it to another checklist of the same card (at most 200 items there, else 409).',
        params: ItemParams,
        querystring: ScopeQuery,
        body: ItemPositionBody,
        response: { 200: ItemAnswer, ...errorResponses(409) },
      },
    },
    async (request) => ({
      message: 'Checklist item moved',
      checklistItem: await itemService.moveItem(app.services, request.caller, request.params.itemId, request.query, request.body),
    }),
  );

  app.post(
    '/checklist-items/:itemId/members',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'toggleItemMembers',
        summary: 'Toggle Item Members',
        description:
          "Each user is added if absent, removed if present, all in one transaction. Users added must be members of the card's " +
          'team; a user listed twice, or one who cannot be added, rejects the whole request (400, details name each).',
        params: ItemParams,
        querystring: ScopeQuery,
        body: ToggleItemMembersBody,
        response: { 200: ItemAnswer, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Checklist item members toggled',
      checklistItem: await itemService.toggleItemMembers(app.services, request.caller, request.params.itemId, request.query, request.body.members),
    }),
  );

  app.post(
    '/checklist-items/:itemId/copy',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        operationId: 'copyItem',
        summary: 'Copy Item',
        description:
          'Copies the item (name, date, completion) to the bottom of `checklist`, any checklist the caller reaches. Members who are ' +
          "not members of that checklist's team are left out; attachments are not copied. `companyId` / `teamId` scope the source item.",
        params: ItemParams,
        querystring: ScopeQuery,
        body: CopyItemBody,
        response: { 201: ItemAnswer, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const checklistItem = await itemService.copyItem(app.services, request.caller, request.params.itemId, request.query, request.body);
      return reply.status(201).send({ message: 'Checklist item copied', checklistItem });
    },
  );

  app.delete(
    '/checklist-items/:itemId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'deleteItem',
        summary: 'Delete Item',
        description: 'Deletes the item; answers its checklist.',
        params: ItemParams,
        querystring: ScopeQuery,
        response: { 200: success('checklist', Checklist), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Checklist item deleted',
      checklist: await itemService.deleteItem(app.services, request.caller, request.params.itemId, request.query),
    }),
  );
};

export default checklistItems;
