import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { archiveCards, archiveCardsMultiTeam, setCardArchived } from '../../../domain/cards/archive.ts';
import { getCardCompanyAndTeam, listCardsOfList } from '../../../domain/cards/listing.ts';
import { reorderCard } from '../../../domain/cards/position.ts';
import { deleteCard, deleteCardsMultiTeam } from '../../../domain/cards/delete.ts';
import { Deleted } from '../../../schemas/boards.ts';
import { updateCard, updateCardsMultiTeam } from '../../../domain/cards/update.ts';
import {
  ArchiveCardsBody,
  ArchiveCardsMultiTeamBody,
  CardCompanyTeam,
  CardsPage,
  CardUpdate,
  DeleteCardsMultiTeamBody,
  ListCardsParams,
  ListCardsQuery,
  NoBody,
  ReorderCardBody,
  UpdateCardsMultiTeamBody,
} from '../../../schemas/card-edits.ts';
import { CardParams } from '../../../schemas/cards.ts';
import { errorResponses, NoQuery, ScopeQuery, success } from '../../../schemas/common.ts';
import { Card } from '../../../schemas/records.ts';

const tags = ['cards'];
const CardAnswer = success('card', Card);
const CardsAnswer = success('cards', Type.Array(Card, { description: 'in request order' }));

const BULK = 'All or nothing, at most 100 items; a failing item rejects the request, and `details` name each failing index ' +
  '(404 when every failure is a card out of reach, else 400). Each card is one change (`__v` + 1).';

/** Card editing, ordering, archiving and listing. */
const cardEdits: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/cards/archived',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        operationId: 'archiveCards',
        summary: 'Archive Cards',
        description: `Archives (status true, the default) or unarchives cards of one team. ${BULK}`,
        querystring: ScopeQuery,
        body: ArchiveCardsBody,
        response: { 200: CardsAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const cards = await archiveCards(app.services, request.caller, request.query, request.body);
      return { message: request.body.status === false ? 'Cards unarchived' : 'Cards archived', cards };
    },
  );

  app.patch(
    '/cards/update-multi-team',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        operationId: 'updateCardsMultiTeam',
        summary: 'Update Cards Multi Team',
        description: `Updates cards of any teams the caller reaches, each item as Update Card does; companyId and teamId must be the card's. ${BULK}`,
        querystring: NoQuery,
        body: UpdateCardsMultiTeamBody,
        response: { 200: CardsAnswer, ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Cards updated', cards: await updateCardsMultiTeam(app.services, request.caller, request.body.cards) }),
  );

  app.patch(
    '/cards/archived-multi-team',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        operationId: 'archiveCardsMultiTeam',
        summary: 'Archive Cards Multi Team',
        description: `Archives (status true, the default) or unarchives cards of any teams the caller reaches; companyId and teamId must be the card's. ${BULK}`,
        querystring: NoQuery,
        body: ArchiveCardsMultiTeamBody,
        response: { 200: CardsAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const cards = await archiveCardsMultiTeam(app.services, request.caller, request.body);
      return { message: request.body.status === false ? 'Cards unarchived' : 'Cards archived', cards };
    },
  );

  app.patch(
    '/cards/:cardId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'updateCard',
        summary: 'Update Card',
        description: 'Changes the given fields. A change of complete.status sets complete.setAt; dueDate must not be before startDate (given or stored).',
        params: CardParams,
        querystring: ScopeQuery,
        body: CardUpdate,
        response: { 200: CardAnswer, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Card updated',
      card: await updateCard(app.services, request.caller, request.params.cardId, request.query, request.body),
    }),
  );

  app.patch(
    '/cards/:cardId/position',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'reorderCardPosition',
        summary: 'Reorder Card Position',
        description:
          "Moves the card to `position` (an index among the list's cards as Get List Card shows them, \"top\" or \"bottom\") " +
          "of its list or of `list`, another list of the same board (a list of another board is a 400).",
        params: CardParams,
        querystring: ScopeQuery,
        body: ReorderCardBody,
        response: { 200: CardAnswer, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Card moved',
      card: await reorderCard(app.services, request.caller, request.params.cardId, request.query, request.body),
    }),
  );

  for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
    app.patch(
      `/cards/:cardId/${action}`,
      {
        config: { tier: 'low' },
        // No body, or an empty one; a field in it is a 400 (NoBody).
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags,
          operationId: archived ? 'archiveCard' : 'unarchiveCard',
          summary: archived ? 'Archive Card' : 'Unarchive Card',
          description: archived
            ? 'Archives the card: it leaves the board view and stays readable by id.'
            : 'Puts an archived card back in its list, where it was.',
          params: CardParams,
          querystring: ScopeQuery,
          body: NoBody,
          response: { 200: CardAnswer, ...errorResponses() },
        },
      },
      async (request) => ({
        message: archived ? 'Card archived' : 'Card unarchived',
        card: await setCardArchived(app.services, request.caller, request.params.cardId, request.query, archived),
      }),
    );
  }

  app.get(
    '/lists/:listId/cards',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getListCard',
        summary: 'Get List Card',
        description:
          'The cards of the list in position order (archived=true: its archived cards), `limit` per page; pass `nextCursor` as `cursor` for the next page. ' +
          'Cards present when a walk starts are each shown once, whatever is added meanwhile.',
        params: ListCardsParams,
        querystring: ListCardsQuery,
        response: { 200: CardsPage, ...errorResponses() },
      },
    },
    async (request) => {
      const { companyId, teamId, ...page } = request.query;
      const result = await listCardsOfList(app.services, request.caller, request.params.listId, { companyId, teamId }, page);
      return { message: 'Cards retrieved', cards: result.items, nextCursor: result.nextCursor };
    },
  );

  app.get(
    '/cards/:cardId/company-team',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getCardCompanyAndTeam',
        summary: 'Get Card Company and Team',
        description: 'The company and the team the card belongs to.',
        params: CardParams,
        querystring: ScopeQuery,
        response: { 200: CardCompanyTeam, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Company and team retrieved',
      ...(await getCardCompanyAndTeam(app.services, request.caller, request.params.cardId, request.query)),
    }),
  );

  app.delete(
    '/cards/:cardId',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        summary: 'Delete Card',
        operationId: 'deleteCard',
        description:
          'Deletes the card with its checklists, items, comments, discussions, cheers and attachments, in one transaction; ' +
          'its files are removed later by the purge.',
        params: CardParams,
        querystring: ScopeQuery,
        response: { 200: success('card', Deleted), ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Card deleted', card: await deleteCard(app.services, request.caller, request.params.cardId, request.query) }),
  );

  app.patch(
    '/cards/delete-multi-team',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Delete Cards Multi Team',
        operationId: 'deleteCardsMultiTeam',
        description: `Deletes cards of any teams the caller reaches, each as Delete Card does; companyId and teamId must be the card's. ${BULK}`,
        querystring: NoQuery,
        body: DeleteCardsMultiTeamBody,
        response: { 200: success('cards', Type.Array(Deleted, { description: 'in request order' })), ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Cards deleted', cards: await deleteCardsMultiTeam(app.services, request.caller, request.body.cards) }),
  );
};

export default cardEdits;
