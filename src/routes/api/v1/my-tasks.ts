import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listMyTasks, listMyTasksInList } from '../../../domain/companies/my-tasks.ts';
import { errorResponses } from '../../../schemas/common.ts';
import { MyTasksAnswer, MyTasksListParams, MyTasksQuery } from '../../../schemas/my-tasks.ts';

const tags = ['my-tasks'];

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/my-tasks',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'listAllMyTasks',
        summary: 'List All My Tasks',
        description:
          'Unarchived cards the caller is a member of, in every team it reaches, narrowed by `companyId` / `teamId` and ' +
          '`complete`; in the order the caller was made a member (oldest first), `limit` per page.',
        querystring: MyTasksQuery,
        response: { 200: MyTasksAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const { companyId, teamId, ...options } = request.query;
      const page = await listMyTasks(app.services, request.caller, { companyId, teamId }, options);
      return { message: 'My tasks', cards: page.items, nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/my-tasks/lists/:listId',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'listAllMyTasksInList',
        summary: 'List All My Tasks In List',
        description: "Unarchived cards of the list that the caller is a member of, in the list's position order, `limit` per page.",
        params: MyTasksListParams,
        querystring: MyTasksQuery,
        response: { 200: MyTasksAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const { companyId, teamId, ...options } = request.query;
      const page = await listMyTasksInList(app.services, request.caller, request.params.listId, { companyId, teamId }, options);
      return { message: 'My tasks in list', cards: page.items, nextCursor: page.nextCursor };
    },
  );
};

export default routes;
