import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { archiveCards, archiveCardsMultiTeam, setCardArchived } from '../../../domain/cards/archive.ts';
import { deleteCard, deleteCardsMultiTeam } from '../../../domain/cards/delete.ts';
import { getCardCompanyAndTeam, listCardsOfList } from '../../../domain/cards/listing.ts';
import { reorderCard } from '../../../domain/cards/position.ts';
import { updateCard, updateCardsMultiTeam } from '../../../domain/cards/update.ts';
import { Deleted } from '../../../schemas/boards.ts';
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
import { NoQuery, ScopeQuery } from '../../../schemas/common.ts';
import { Card } from '../../../schemas/records.ts';
import { operations, renderedPage } from '../../operation.ts';

const BULK =
  'All or nothing, at most 100 items; a failing item rejects the request, and `details` name each failing index ' +
  '(404 when every failure is a card out of reach, else 400). Each card is one change (`__v` + 1).';

/** What an archive request did: `status` false unarchives. */
const archivedOrNot = ({ body }: { body: { status?: boolean | undefined } }) => (body.status === false ? 'Cards unarchived' : 'Cards archived');

/** Card editing, ordering, archiving and listing. */
const cardEdits: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['cards']);
  const card = ['card', Card] as const;
  const cards = ['cards', Type.Array(Card, { description: 'in request order' })] as const;

  route(
    'PATCH /cards/archived',
    {
      tier: 'medium',
      operationId: 'archiveCards',
      summary: 'Archive Cards',
      description: `Archives (status true, the default) or unarchives cards of one team. ${BULK}`,
      querystring: ScopeQuery,
      body: ArchiveCardsBody,
      answer: cards,
      message: archivedOrNot,
    },
    ({ caller, query, body }) => archiveCards(app.services, caller, query, body),
  );

  route(
    'PATCH /cards/update-multi-team',
    {
      tier: 'high',
      operationId: 'updateCardsMultiTeam',
      summary: 'Update Cards Multi Team',
      description: `Updates cards of any teams the caller reaches, each item as Update Card does; companyId and teamId must be the card's. ${BULK}`,
      querystring: NoQuery,
      body: UpdateCardsMultiTeamBody,
      answer: cards,
      message: 'Cards updated',
    },
    ({ caller, body }) => updateCardsMultiTeam(app.services, caller, body.cards),
  );

  route(
    'PATCH /cards/archived-multi-team',
    {
      tier: 'high',
      operationId: 'archiveCardsMultiTeam',
      summary: 'Archive Cards Multi Team',
      description: `Archives (status true, the default) or unarchives cards of any teams the caller reaches; companyId and teamId must be the card's. ${BULK}`,
      querystring: NoQuery,
      body: ArchiveCardsMultiTeamBody,
      answer: cards,
      message: archivedOrNot,
    },
    ({ caller, body }) => archiveCardsMultiTeam(app.services, caller, body),
  );

  route(
    'PATCH /cards/:cardId',
    {
      tier: 'low',
      operationId: 'updateCard',
      summary: 'Update Card',
      description: 'Changes the given fields. A change of complete.status sets complete.setAt; dueDate must not be before startDate (given or stored).',
      params: CardParams,
      querystring: ScopeQuery,
      body: CardUpdate,
      answer: card,
      message: 'Card updated',
    },
    ({ caller, params, query, body }) => updateCard(app.services, caller, params.cardId, query, body),
  );

  route(
    'PATCH /cards/:cardId/position',
    {
      tier: 'low',
      operationId: 'reorderCardPosition',
      summary: 'Reorder Card Position',
      description:
        'Moves the card to `position` (an index among the list\'s cards as Get List Card shows them, "top" or "bottom") ' +
        'of its list or of `list`, another list of the same board (a list of another board is a 400).',
      params: CardParams,
      querystring: ScopeQuery,
      body: ReorderCardBody,
      answer: card,
      message: 'Card moved',
    },
    ({ caller, params, query, body }) => reorderCard(app.services, caller, params.cardId, query, body),
  );

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    route(
      `PATCH /cards/:cardId/${action}`,
      {
        tier: 'low',
        operationId: archived ? 'archiveCard' : 'unarchiveCard',
        summary: archived ? 'Archive Card' : 'Unarchive Card',
        description: archived
          ? 'Archives the card: it leaves the board view and stays readable by id.'
          : 'Puts an archived card back in its list, where it was.',
        params: CardParams,
        querystring: ScopeQuery,
        // No body, or an empty one; a field in it is a 400.
        body: NoBody,
        optionalBody: true,
        answer: card,
        message: archived ? 'Card archived' : 'Card unarchived',
      },
      ({ caller, params, query }) => setCardArchived(app.services, caller, params.cardId, query, archived),
    );
  }

  route(
    'GET /lists/:listId/cards',
    {
      tier: 'very-low',
      operationId: 'getListCard',
      summary: 'Get List Card',
      description:
        'The cards of the list in position order (archived=true: its archived cards), `limit` per page; pass `nextCursor` as `cursor` for the next page. ' +
        'Cards present when a walk starts are each shown once, whatever is added meanwhile.',
      params: ListCardsParams,
      querystring: ListCardsQuery,
      answer: CardsPage,
      message: 'Cards retrieved',
    },
    async ({ caller, params, query: { companyId, teamId, ...page }, serializer }) =>
      renderedPage('cards', await listCardsOfList(app.services, caller, params.listId, { companyId, teamId }, page, serializer(Card))),
  );

  route(
    'GET /cards/:cardId/company-team',
    {
      tier: 'very-low',
      operationId: 'getCardCompanyAndTeam',
      summary: 'Get Card Company and Team',
      description: 'The company and the team the card belongs to.',
      params: CardParams,
      querystring: ScopeQuery,
      answer: CardCompanyTeam,
      message: 'Company and team retrieved',
    },
    ({ caller, params, query }) => getCardCompanyAndTeam(app.services, caller, params.cardId, query),
  );

  route(
    'DELETE /cards/:cardId',
    {
      tier: 'medium',
      operationId: 'deleteCard',
      summary: 'Delete Card',
      description:
        'Deletes the card with its checklists, items, comments, discussions, cheers and attachments, in one transaction; ' +
        'its files are removed later by the purge.',
      params: CardParams,
      querystring: ScopeQuery,
      answer: ['card', Deleted],
      message: 'Card deleted',
    },
    ({ caller, params, query }) => deleteCard(app.services, caller, params.cardId, query),
  );

  route(
    'PATCH /cards/delete-multi-team',
    {
      tier: 'high',
      operationId: 'deleteCardsMultiTeam',
      summary: 'Delete Cards Multi Team',
      description: `Deletes cards of any teams the caller reaches, each as Delete Card does; companyId and teamId must be the card's. ${BULK}`,
      querystring: NoQuery,
      body: DeleteCardsMultiTeamBody,
      answer: ['cards', Type.Array(Deleted, { description: 'in request order' })],
      message: 'Cards deleted',
    },
    ({ caller, body }) => deleteCardsMultiTeam(app.services, caller, body.cards),
  );
};

export default cardEdits;
