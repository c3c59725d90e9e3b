import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createList, deleteList, listLists, setListArchived, updateList } from '../../../domain/boards/lists.ts';
import { ArchivedScopeQuery, CreateListBody, Deleted, DeleteListQuery, ListParams, UpdateListBody } from '../../../schemas/boards.ts';
import { errorResponses, ScopeQuery, success } from '../../../schemas/common.ts';
import { List } from '../../../schemas/records.ts';

const tags = ['lists'];

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/lists',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getAllListsByCompanyAndTeam',
        summary: 'Get All Lists by Company and Team',
        description:
          'Lists of the boards the caller reaches, narrowed by `companyId` / `teamId`: by board (oldest first), then position; ' +
          'archived lists and the lists of archived boards only with `archived=true`.',
        querystring: ArchivedScopeQuery,
        response: { 200: success('lists', Type.Array(List)), ...errorResponses() },
      },
    },
    async (request) => {
      const { archived, ...scope } = request.query;
      return { message: 'Lists retrieved', lists: await listLists(app.services, request.caller, scope, archived) };
    },
  );

  app.post(
    '/lists',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        operationId: 'createList',
        summary: 'Create List',
        description: 'Adds a list to `board` at `position` (an index, "top" or "bottom"; default "bottom").',
        querystring: ScopeQuery,
        body: CreateListBody,
        response: { 201: success('list', List), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const list = await createList(app.services, request.caller, request.body, request.query);
      return reply.status(201).send({ message: 'List created', list });
    },
  );

  app.patch(
    '/lists/:listId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'updateList',
        summary: 'Update List',
        description: 'Renames the list and/or moves it within its board (`position`: an index among the other lists, "top" or "bottom").',
        params: ListParams,
        querystring: ScopeQuery,
        body: UpdateListBody,
        response: { 200: success('list', List), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'List updated',
      list: await updateList(app.services, request.caller, request.params.listId, request.body, request.query),
    }),
  );

  for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
    app.patch(
      `/lists/:listId/${action}`,
      {
        config: { tier: 'low' },
        schema: {
          tags,
          summary: archived ? 'Archive List' : 'Unarchive List',
          operationId: archived ? 'archiveList' : 'unarchiveList',
          description: archived
            ? 'Archives the list: board reads, Get All Lists and My Tasks leave it (and its cards) out unless `archived=true`.'
            : 'Brings an archived list back.',
          params: ListParams,
          querystring: ScopeQuery,
          response: { 200: success('list', List), ...errorResponses() },
        },
      },
      async (request) => ({
        message: archived ? 'List archived' : 'List unarchived',
        list: await setListArchived(app.services, request.caller, request.params.listId, request.query, archived),
      }),
    );
  }

  app.delete(
    '/lists/:listId',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Delete List',
        operationId: 'deleteList',
        description:
          'Team members. 409 while the list holds unarchived cards, unless `cascade=true`. The list and its cards are gone for every ' +
          'request at once (404 afterwards); the rows are removed in the background, in batches.',
        params: ListParams,
        querystring: DeleteListQuery,
        response: { 200: success('list', Deleted), ...errorResponses(409) },
      },
    },
    async (request) => {
      const { cascade = false, ...scope } = request.query;
      return { message: 'List deleted', list: await deleteList(app.services, request.caller, request.params.listId, scope, cascade) };
    },
  );
};

export default routes;
