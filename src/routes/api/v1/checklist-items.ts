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
import { ScopeQuery } from '../../../schemas/common.ts';
import { keyedPage, operations } from '../../operation.ts';

const checklistItems: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['checklist items']);
  const item = ['checklistItem', ChecklistItem] as const;

  route(
    'GET /checklists/:checklistId/items',
    {
      tier: 'very-low',
      operationId: 'getItems',
      summary: 'Get Items',
      description: "The checklist's items in order; paginated by `limit` and `cursor`.",
      params: ChecklistParams,
      querystring: PagedScopeQuery,
      answer: ItemsPage,
      message: 'Checklist items retrieved',
    },
    async ({ caller, params, query: { limit, cursor, ...scope } }) => {
      const page = await itemService.getItems(app.services, caller, params.checklistId, scope, { limit, cursor });
      return keyedPage('checklistItems', page);
    },
  );

  route(
    'POST /checklists/:checklistId/items',
    {
      tier: 'medium',
      operationId: 'createItem',
      summary: 'Create Item',
      description:
        "A new item at `position` (default: the bottom). `members` must be members of the card's team, each once. " +
        'A checklist holds at most 200 items (409 beyond).',
      params: ChecklistParams,
      querystring: ScopeQuery,
      body: CreateItemBody,
      answer: item,
      status: 201,
      location: (item) => `/api/v1/checklist-items/${item._id}`,
      errors: [409],
      message: 'Checklist item created',
    },
    ({ caller, params, query, body }) => itemService.createItem(app.services, caller, params.checklistId, query, body),
  );

  route(
    'GET /checklist-items/:itemId',
    {
      tier: 'very-low',
      operationId: 'getItemById',
      summary: 'Get Item by ID',
      params: ItemParams,
      querystring: ScopeQuery,
      answer: item,
      answersRevision: true,
      message: 'Checklist item retrieved',
    },
    ({ caller, params, query }) => itemService.getItem(app.services, caller, params.itemId, query),
  );

  route(
    'PATCH /checklist-items/:itemId',
    {
      tier: 'low',
      operationId: 'updateItemName',
      summary: 'Update Item Name',
      params: ItemParams,
      querystring: ScopeQuery,
      body: RenameBody,
      answer: item,
      message: 'Checklist item renamed',
    },
    ({ caller, params, query, body }) => itemService.renameItem(app.services, caller, params.itemId, query, body.name),
  );

  route(
    'PATCH /checklist-items/:itemId/date',
    {
      tier: 'low',
      operationId: 'updateItemDate',
      summary: 'Update Item Date',
      description: '`date`: an ISO 8601 date-time (stored as UTC with milliseconds), or null to clear it.',
      params: ItemParams,
      querystring: ScopeQuery,
      body: ItemDateBody,
      answer: item,
      message: 'Checklist item date updated',
    },
    ({ caller, params, query, body }) => itemService.setItemDate(app.services, caller, params.itemId, query, body.date),
  );

  route(
    'PATCH /checklist-items/:itemId/complete',
    {
      tier: 'low',
      operationId: 'toggleItemCompleteStatus',
      summary: 'Toggle Item Complete Status',
      description: '`status` sets the status; without it (or without a body) the status flips. Setting the status it has changes nothing.',
      params: ItemParams,
      querystring: ScopeQuery,
      body: ItemCompleteBody,
      optionalBody: true,
      answer: item,
      message: 'Checklist item complete status updated',
    },
    ({ caller, params, query, body }) => itemService.toggleItemComplete(app.services, caller, params.itemId, query, body.status),
  );

  route(
    'PATCH /checklist-items/:itemId/position',
    {
      tier: 'low',
      operationId: 'reorderItem',
      summary: 'Reorder Item',
      description:
        "`position` is the item's new index among the target checklist's items (0 is the first), or top / bottom; " +
        '`checklist` moves it to another checklist of the same card (at most 200 items there, else 409).',
      params: ItemParams,
      querystring: ScopeQuery,
      body: ItemPositionBody,
      answer: item,
      errors: [409],
      message: 'Checklist item moved',
    },
    ({ caller, params, query, body }) => itemService.moveItem(app.services, caller, params.itemId, query, body),
  );

  route(
    'POST /checklist-items/:itemId/members',
    {
      tier: 'low',
      operationId: 'toggleItemMembers',
      summary: 'Toggle Item Members',
      description:
        "Each user is added if absent, removed if present, all in one transaction. Users added must be members of the card's " +
        'team; a user listed twice, or one who cannot be added, rejects the whole request (400, details name each).',
      params: ItemParams,
      querystring: ScopeQuery,
      body: ToggleItemMembersBody,
      answer: item,
      message: 'Checklist item members toggled',
    },
    ({ caller, params, query, body }) => itemService.toggleItemMembers(app.services, caller, params.itemId, query, body.members),
  );

  route(
    'POST /checklist-items/:itemId/copy',
    {
      tier: 'medium',
      operationId: 'copyItem',
      summary: 'Copy Item',
      description:
        'Copies the item (name, date, completion) to the bottom of `checklist`, any checklist the caller reaches. Members who are ' +
        "not members of that checklist's team are left out; attachments are not copied. `companyId` / `teamId` scope the source item.",
      params: ItemParams,
      querystring: ScopeQuery,
      body: CopyItemBody,
      answer: item,
      status: 201,
      location: (item) => `/api/v1/checklist-items/${item._id}`,
      errors: [409],
      message: 'Checklist item copied',
    },
    ({ caller, params, query, body }) => itemService.copyItem(app.services, caller, params.itemId, query, body),
  );

  route(
    'DELETE /checklist-items/:itemId',
    {
      tier: 'low',
      operationId: 'deleteItem',
      summary: 'Delete Item',
      description: 'Deletes the item; answers its checklist.',
      params: ItemParams,
      querystring: ScopeQuery,
      answer: ['checklist', Checklist],
      message: 'Checklist item deleted',
    },
    ({ caller, params, query }) => itemService.deleteItem(app.services, caller, params.itemId, query),
  );
};

export default checklistItems;
