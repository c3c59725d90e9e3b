import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createList, deleteList, getList, listLists, setListArchived, updateList } from '../../../domain/boards/lists.ts';
import { ArchivedScopeQuery, CreateListBody, Deleted, DeleteListQuery, ListParams, UpdateListBody } from '../../../schemas/boards.ts';
import { ScopeQuery } from '../../../schemas/common.ts';
import { List } from '../../../schemas/records.ts';
import { operations } from '../../operation.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['lists']);
  const list = ['list', List] as const;

  route(
    'GET /lists',
    {
      tier: 'very-low',
      operationId: 'getAllListsByCompanyAndTeam',
      summary: 'Get All Lists by Company and Team',
      description:
        'Lists of the boards the caller reaches, narrowed by `companyId` / `teamId`: by board (oldest first), then position; ' +
        'archived lists and the lists of archived boards only with `archived=true`.',
      querystring: ArchivedScopeQuery,
      answer: ['lists', Type.Array(List)],
      message: 'Lists retrieved',
    },
    ({ caller, query: { archived, ...scope } }) => listLists(app.services, caller, scope, archived),
  );

  route(
    'POST /lists',
    {
      tier: 'medium',
      operationId: 'createList',
      summary: 'Create List',
      description: 'Adds a list to `board` at `position` (an index, "top" or "bottom"; default "bottom").',
      querystring: ScopeQuery,
      body: CreateListBody,
      answer: list,
      status: 201,
      location: (list) => `/api/v1/lists/${list._id}`,
      message: 'List created',
    },
    ({ caller, query, body }) => createList(app.services, caller, body, query),
  );

  route(
    'GET /lists/:listId',
    {
      tier: 'very-low',
      operationId: 'getList',
      summary: 'Get List',
      description: 'One list of a board the caller reaches, archived or not (where Create List points `Location`).',
      params: ListParams,
      querystring: ScopeQuery,
      answer: list,
      message: 'List retrieved',
    },
    ({ caller, params, query }) => getList(app.services, caller, params.listId, query),
  );

  route(
    'PATCH /lists/:listId',
    {
      tier: 'low',
      operationId: 'updateList',
      summary: 'Update List',
      description: 'Renames the list and/or moves it within its board (`position`: an index among the other lists, "top" or "bottom").',
      params: ListParams,
      querystring: ScopeQuery,
      body: UpdateListBody,
      answer: list,
      message: 'List updated',
    },
    ({ caller, params, query, body }) => updateList(app.services, caller, params.listId, body, query),
  );

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    route(
      `PATCH /lists/:listId/${action}`,
      {
        tier: 'low',
        operationId: archived ? 'archiveList' : 'unarchiveList',
        summary: archived ? 'Archive List' : 'Unarchive List',
        description: archived
          ? 'Archives the list: board reads, Get All Lists and My Tasks leave it (and its cards) out unless `archived=true`.'
          : 'Brings an archived list back.',
        params: ListParams,
        querystring: ScopeQuery,
        answer: list,
        message: archived ? 'List archived' : 'List unarchived',
      },
      ({ caller, params, query }) => setListArchived(app.services, caller, params.listId, query, archived),
    );
  }

  route(
    'DELETE /lists/:listId',
    {
      tier: 'high',
      operationId: 'deleteList',
      summary: 'Delete List',
      description:
        'Team members. 409 while the list holds unarchived cards, unless `cascade=true`. The list and its cards are gone for every ' +
        'request at once (404 afterwards); the rows are removed in the background, in batches.',
      params: ListParams,
      querystring: DeleteListQuery,
      answer: ['list', Deleted],
      errors: [409],
      message: 'List deleted',
    },
    ({ caller, params, query: { cascade = false, ...scope } }) => deleteList(app.services, caller, params.listId, scope, cascade),
  );
};

export default routes;
