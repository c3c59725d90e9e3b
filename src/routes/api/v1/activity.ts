import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import { type ActivityOf, readActivity } from '../../../domain/events/events.ts';
import { DEFAULT_PAGE_SIZE } from '../../../domain/shared/pagination.ts';
import { BoardParams } from '../../../schemas/boards.ts';
import { CardParams } from '../../../schemas/cards.ts';
import { TeamParams } from '../../../schemas/companies.ts';
import { ActivityPage, ActivityQuery } from '../../../schemas/events.ts';
import { keyedPage, operations } from '../../operation.ts';

const DESCRIPTION =
  'Newest first; paged by `limit` and the opaque `cursor` (events recorded meanwhile are newer, so paging neither repeats ' +
  'nor skips); `type` keeps one type and those below it, or every type starting with a prefix that ends in a dot (`card.`).';

/** The activity reads: the events filed under a card, a board or a team (docs/events.md, Activity reads). */
const activity: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['activity']);
  const activityOf = (kind: ActivityOf['kind'], params: TSchema, what: string) => {
    const Kind = `${kind[0]?.toUpperCase()}${kind.slice(1)}`;
    route(
      `GET /${kind}s/:${kind}Id/activity`,
      {
        tier: 'very-low',
        operationId: `get${Kind}Activity`,
        summary: `Get ${Kind} Activity`,
        description: `The events of ${what}. ${DESCRIPTION}`,
        params,
        querystring: ActivityQuery,
        answer: ActivityPage,
        message: 'Activity retrieved',
      },
      async ({ caller, params: ids, query: { limit, cursor, type, companyId, teamId } }) => {
        const id = (ids as Record<string, string>)[`${kind}Id`] as string;
        const page = await readActivity(app.services, caller, { kind, id }, { companyId, teamId }, { limit: limit ?? DEFAULT_PAGE_SIZE, cursor, type });
        return keyedPage('events', page);
      },
    );
  };

  activityOf('card', CardParams, 'the card: its own changes and those of what it keeps');
  activityOf('board', BoardParams, 'the board, its lists and labels, and its cards');
  activityOf('team', TeamParams, 'the team: its membership, boards and everything on them');
};

export default activity;
