import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type ActivityOf, readActivity } from '../../../domain/events/events.ts';
import { DEFAULT_PAGE_SIZE } from '../../../domain/shared/pagination.ts';
import { BoardParams } from '../../../schemas/boards.ts';
import { CardParams } from '../../../schemas/cards.ts';
import { errorResponses } from '../../../schemas/common.ts';
import { TeamParams } from '../../../schemas/companies.ts';
import { ActivityPage, ActivityQuery } from '../../../schemas/events.ts';

const DESCRIPTION =
  'Newest first; paged by `limit` and the opaque `cursor` (events recorded meanwhile are newer, so paging neither repeats ' +
  'nor skips); `type` keeps one type and those below it, or every type starting with a prefix that ends in a dot (`card.`).';

/** The activity reads: the events filed under a card, a board or a team (README, "Events"). */
const activity: FastifyPluginAsyncTypebox = async (app) => {
  const answer = async (of: ActivityOf, request: { caller: Parameters<typeof readActivity>[1]; query: ActivityQuery }) => {
    const { limit, cursor, type, companyId, teamId } = request.query;
    const page = await readActivity(app.services, request.caller, of, { companyId, teamId }, { limit: limit ?? DEFAULT_PAGE_SIZE, cursor, type });
    return { message: 'Activity retrieved', events: page.items, nextCursor: page.nextCursor };
  };
  const schema = (summary: string, what: string) => ({
    tags: ['activity'],
    summary,
    operationId: `get${summary.replace(/^Get | /g, '')}`,
    description: `The events of ${what}. ${DESCRIPTION}`,
    querystring: ActivityQuery,
    response: { 200: ActivityPage, ...errorResponses() },
  });

  app.get(
    '/cards/:cardId/activity',
    { config: { tier: 'very-low' }, schema: { ...schema('Get Card Activity', 'the card: its own changes and those of what it keeps'), params: CardParams } },
    (request) => answer({ kind: 'card', id: request.params.cardId }, request),
  );
  app.get(
    '/boards/:boardId/activity',
    { config: { tier: 'very-low' }, schema: { ...schema('Get Board Activity', 'the board, its lists and labels, and its cards'), params: BoardParams } },
    (request) => answer({ kind: 'board', id: request.params.boardId }, request),
  );
  app.get(
    '/teams/:teamId/activity',
    { config: { tier: 'very-low' }, schema: { ...schema('Get Team Activity', 'the team: its membership, boards and everything on them'), params: TeamParams } },
    (request) => answer({ kind: 'team', id: request.params.teamId }, request),
  );
};

export default activity;
