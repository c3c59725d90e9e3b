import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CHEERED_TYPES, createCheer, deleteCheer } from '../../../domain/cheers/service.ts';
import { CheerBody, CheerOfParentParams, CheerParams } from '../../../schemas/cheers.ts';
import { errorResponses, ScopeQuery, success } from '../../../schemas/common.ts';
import { Cheer } from '../../../schemas/records.ts';

const CheerAnswer = success('cheer', Cheer);

/** Cheers (reactions) on cards, comments, discussions and attachments: one pair of routes each. */
const cheers: FastifyPluginAsyncTypebox = async (app) => {
  for (const type of CHEERED_TYPES) {
    const idParam = `${type}Id`;
    const base = `/${type}s/:${idParam}/cheers`;

    app.post(
      base,
      {
        config: { tier: 'low' },
        schema: {
          tags: ['cheers'],
          operationId: `createCheerOn${type[0]?.toUpperCase()}${type.slice(1)}`,
          summary: `Create Cheer on ${type[0]?.toUpperCase()}${type.slice(1)}`,
          description:
            `Cheers the ${type} with an emoji or a short text. One member gives one content once per ${type} ` +
            '(a repeat is a 409). The cheer shows in the record of what it cheers; the card\'s `__v` grows by one.',
          params: CheerParams[type],
          querystring: ScopeQuery,
          body: CheerBody,
          response: { 201: CheerAnswer, ...errorResponses(409) },
        },
      },
      async (request, reply) => {
        const cheeredId = (request.params as Record<string, string>)[idParam] as string;
        const cheer = await createCheer(app.services, request.caller, type, cheeredId, request.query, request.body);
        return reply.status(201).send({ message: 'Cheer created', cheer });
      },
    );

    app.delete(
      `${base}/:cheerId`,
      {
        config: { tier: 'low' },
        schema: {
          tags: ['cheers'],
          operationId: `deleteCheerOn${type[0]?.toUpperCase()}${type.slice(1)}`,
          summary: `Delete Cheer on ${type[0]?.toUpperCase()}${type.slice(1)}`,
          description: 'Deletes the cheer. Only the member who gave it may (403 for anyone else). Answers the cheer as it was.',
          params: CheerOfParentParams[type],
          querystring: ScopeQuery,
          response: { 200: CheerAnswer, ...errorResponses(403) },
        },
      },
      async (request) => {
        const params = request.params as Record<string, string>;
        const cheer = await deleteCheer(app.services, request.caller, type, params[idParam] as string, params.cheerId as string, request.query);
        return { message: 'Cheer deleted', cheer };
      },
    );
  }
};

export default cheers;
