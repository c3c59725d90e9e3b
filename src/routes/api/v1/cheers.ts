import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CHEERED_TYPES, createCheer, deleteCheer } from '../../../domain/cheers/service.ts';
import { CheerBody, CheerOfParentParams, CheerParams } from '../../../schemas/cheers.ts';
import { ScopeQuery } from '../../../schemas/common.ts';
import { Cheer } from '../../../schemas/records.ts';
import { operations } from '../../operation.ts';

/** Cheers (reactions) on cards, comments, discussions and attachments: one pair of routes each. */
const cheers: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['cheers']);
  const cheer = ['cheer', Cheer] as const;
  for (const type of CHEERED_TYPES) {
    const idParam = `${type}Id`;
    const base = `/${type}s/:${idParam}/cheers` as const;
    const Cheered = `${type[0]?.toUpperCase()}${type.slice(1)}`;

    route(
      `POST ${base}`,
      {
        tier: 'low',
        operationId: `createCheerOn${Cheered}`,
        summary: `Create Cheer on ${Cheered}`,
        description:
          `Cheers the ${type} with an emoji or a short text. One member gives one content once per ${type} ` +
          "(a repeat is a 409). The cheer shows in the record of what it cheers; the card's `__v` grows by one.",
        params: CheerParams[type],
        querystring: ScopeQuery,
        body: CheerBody,
        answer: cheer,
        status: 201,
        location: (cheer) => (cheer.comment ? `/api/v1/cards/${cheer.card}/comments` : `/api/v1/cards/${cheer.card}`),
        errors: [409],
        message: 'Cheer created',
      },
      ({ caller, params, query, body }) => createCheer(app.services, caller, type, (params as Record<string, string>)[idParam] as string, query, body),
    );

    route(
      `DELETE ${base}/:cheerId`,
      {
        tier: 'low',
        operationId: `deleteCheerOn${Cheered}`,
        summary: `Delete Cheer on ${Cheered}`,
        description: 'Deletes the cheer. Only the member who gave it may (403 for anyone else). Answers the cheer as it was.',
        params: CheerOfParentParams[type],
        querystring: ScopeQuery,
        answer: cheer,
        errors: [403],
        message: 'Cheer deleted',
      },
      ({ caller, params, query }) => {
        const ids = params as Record<string, string>;
        return deleteCheer(app.services, caller, type, ids[idParam] as string, ids.cheerId as string, query);
      },
    );
  }
};

export default cheers;
