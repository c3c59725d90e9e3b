import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listMyTasks, listMyTasksInList } from '../../../domain/companies/my-tasks.ts';
import { MyTasksAnswer, MyTasksListParams, MyTasksQuery } from '../../../schemas/my-tasks.ts';
import { Card } from '../../../schemas/records.ts';
import { operations, renderedPage } from '../../operation.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['my-tasks']);

  route(
    'GET /my-tasks',
    {
      tier: 'very-low',
      operationId: 'listAllMyTasks',
      summary: 'List All My Tasks',
      description:
        'Unarchived cards the caller is a member of, in every team it reaches, narrowed by `companyId` / `teamId` and ' +
        '`complete`; in the order the caller was made a member (oldest first), `limit` per page.',
      querystring: MyTasksQuery,
      answer: MyTasksAnswer,
      message: 'My tasks',
    },
    async ({ caller, query: { companyId, teamId, ...options }, serializer }) =>
      renderedPage('cards', await listMyTasks(app.services, caller, { companyId, teamId }, options, serializer(Card))),
  );

  route(
    'GET /my-tasks/lists/:listId',
    {
      tier: 'very-low',
      operationId: 'listAllMyTasksInList',
      summary: 'List All My Tasks In List',
      description: "Unarchived cards of the list that the caller is a member of, in the list's position order, `limit` per page.",
      params: MyTasksListParams,
      querystring: MyTasksQuery,
      answer: MyTasksAnswer,
      message: 'My tasks in list',
    },
    async ({ caller, params, query: { companyId, teamId, ...options }, serializer }) =>
      renderedPage('cards', await listMyTasksInList(app.services, caller, params.listId, { companyId, teamId }, options, serializer(Card))),
  );
};

export default routes;
