import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createList, listLists, updateList } from '../../../domain/boards/lists.ts';
import { CreateListBody, ListParams, UpdateListBody } from '../../../schemas/boards.ts';
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
        summary: 'Get All Lists by Company and Team',
        description: 'Lists of the boards the caller reaches, narrowed by `companyId` / `teamId`: by board (oldest first), then position.',
        querystring: ScopeQuery,
        response: { 200: success('lists', Type.Array(List)), ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Lists retrieved', lists: await listLists(app.services, request.caller, request.query) }),
  );

  app.post(
    '/lists',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
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
};

export default routes;
