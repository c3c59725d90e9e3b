import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createCalendarFeed, listCalendarFeeds, revokeCalendarFeed } from '../../../domain/calendar/feeds.ts';
import {
  CalendarFeedParams,
  CalendarFeedsResponse,
  CreateCalendarFeedBody,
  CreateCalendarFeedQuery,
  IssuedCalendarFeedResponse,
} from '../../../schemas/calendar-feeds.ts';
import { NoQuery } from '../../../schemas/common.ts';
import { calendarFeedUrl } from '../../calendar.ts';
import { operations } from '../../operation.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['calendar-feeds']);

  route(
    'GET /calendar-feeds',
    {
      tier: 'very-low',
      operationId: 'listCalendarFeeds',
      summary: "List Calendar Feeds: the caller's secret iCalendar URLs (never their tokens)",
      querystring: NoQuery,
      answer: CalendarFeedsResponse,
      message: 'Calendar feeds',
    },
    async ({ caller }) => ({ calendarFeeds: await listCalendarFeeds(app.services, caller) }),
  );

  route(
    'POST /calendar-feeds',
    {
      tier: 'secure',
      operationId: 'createCalendarFeed',
      summary: "Create Calendar Feed: a secret iCalendar URL of the caller's My Tasks or of one board, shown in this answer only",
      description:
        'A calendar app subscribes to the URL and reads the dated cards the caller reaches at each read (the soonest ' +
        '2,000 due): one event per card, from its start date (or at its due date) to its due date. Revoke it to stop it.',
      querystring: CreateCalendarFeedQuery,
      body: CreateCalendarFeedBody,
      answer: IssuedCalendarFeedResponse,
      status: 201,
      location: () => '/api/v1/calendar-feeds',
      message: 'Calendar feed created; copy the URL now, it is not shown again',
    },
    async ({ caller, body, query, request }) => {
      const { calendarFeed, token } = await createCalendarFeed(app.services, caller, body, query);
      return { calendarFeed, url: calendarFeedUrl(app.config.people.publicUrl, request, token) };
    },
  );

  route(
    'DELETE /calendar-feeds/:feedId',
    {
      tier: 'secure',
      operationId: 'revokeCalendarFeed',
      summary: 'Revoke Calendar Feed: its URL stops working at once',
      params: CalendarFeedParams,
      querystring: NoQuery,
      answer: CalendarFeedsResponse,
      message: 'Calendar feed revoked',
    },
    async ({ caller, params }) => {
      await revokeCalendarFeed(app.services, caller, params.feedId);
      return { calendarFeeds: await listCalendarFeeds(app.services, caller) };
    },
  );
};

export default routes;
