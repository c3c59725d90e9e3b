import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { renderCalendarFeed } from '../domain/calendar/feeds.ts';
import { NotFoundError } from '../domain/shared/errors.ts';
import { ErrorBody, NoQuery } from '../schemas/common.ts';

const PATH = '/calendar';

/** The secret URL of a calendar feed's token, on the public address when one is set. */
export function calendarFeedUrl(publicUrl: string | undefined, request: FastifyRequest, token: string): string {
  return `${appUrl(publicUrl, request)}${PATH}/${token}.ics`;
}

function appUrl(publicUrl: string | undefined, request: FastifyRequest): string {
  return (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/$/, '');
}

/**
 * The calendar feeds themselves (src/domain/calendar/feeds.ts): read by calendar apps, which send no
 * key and no cookie; the secret token in the path is the credential.
 */
const calendar: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    `${PATH}/:file`,
    {
      config: { public: true },
      schema: {
        operationId: 'readCalendarFeed',
        summary: 'Read Calendar Feed: the iCalendar (RFC 5545) text of a calendar feed, by the secret URL Create Calendar Feed gave',
        tags: ['calendar-feeds'],
        params: Type.Object({ file: Type.String({ maxLength: 200, description: 'the token, then `.ics`' }) }, { additionalProperties: false }),
        querystring: NoQuery,
        produces: ['text/calendar'],
        response: { 200: Type.String({ description: 'text/calendar' }), 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const token = request.params.file.endsWith('.ics') ? request.params.file.slice(0, -'.ics'.length) : '';
      if (!token) throw new NotFoundError('Calendar feed');
      const text = await renderCalendarFeed(app.services, token, appUrl(app.config.people.publicUrl, request), request.id);
      return reply.type('text/calendar; charset=utf-8').header('Cache-Control', 'private, no-cache').send(text);
    },
  );
};

export default calendar;
