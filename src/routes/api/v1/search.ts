import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { search } from '../../../domain/search/service.ts';
import { SearchAnswer, SearchQuery } from '../../../schemas/search.ts';
import { keyedPage, operations } from '../../operation.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['search']);

  route(
    'GET /search',
    {
      tier: 'very-low',
      operationId: 'search',
      summary: 'Search',
      description:
        'Cards (name, description), comments, discussions, checklist items, attachments, boards and lists the caller reaches, ' +
        'narrowed by `companyId` / `teamId` / `boardId` and `types`, matching the query `q`; title matches first, then the most ' +
        'recently written, `limit` per page.',
      querystring: SearchQuery,
      answer: SearchAnswer,
      message: 'Search results',
    },
    async ({ caller, query: { q, companyId, teamId, boardId, types, limit, cursor } }) =>
      keyedPage('hits', await search(app.services, caller, { companyId, teamId }, { q, boardId, types, limit, cursor })),
  );
};

export default routes;
