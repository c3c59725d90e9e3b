import { type Static, Type } from 'typebox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/shared/pagination.ts';
import { Id, NullableTimestamp, ScopeQuery } from './common.ts';
import { named } from './named.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';
import { BoardFields, CustomFieldValue, ListFields, Member } from './records.ts';

/**
 * What a card's face on a board shows, and nothing else (docs/decisions/0094): the Card record's
 * fields of the same names mean the same, the rest are counts of its parts. Get Card Details
 * answers the whole card.
 */
export const CardFace = named(
  'CardFace',
  Type.Object({
    _id: Id,
    name: Type.String(),
    position: Type.Number(),
    cover: Type.String({ description: 'as the card\'s `cover`: an image URL or a colour, "" for none' }),
    startDate: NullableTimestamp,
    dueDate: NullableTimestamp,
    complete: Type.Object({ status: Type.Boolean() }),
    archived: Type.Object({ status: Type.Boolean() }),
    isTemplate: Type.Boolean({ description: "as the card's `isTemplate`" }),
    labels: Type.Array(Id, { description: "the ids of the card's labels (Get Labels of the board names them), in the card's order" }),
    members: Type.Array(Member, { description: "the card's members, in the card's order" }),
    allChecklistItemsCount: Type.Object({ completed: Type.Integer(), total: Type.Integer() }),
    commentsCount: Type.Integer({ description: "the number of the card's `comments`" }),
    attachmentsCount: Type.Integer({ description: "the number of the card's `attachments`" }),
    hasDescription: Type.Boolean({ description: 'whether `description` is not empty' }),
    customFields: Type.Array(CustomFieldValue, { description: "as the card's `customFields`" }),
    board: Id,
    list: Id,
    __v: Type.Integer({ description: "the card's revision: `If-Match` of its writes" }),
  }),
);
export type CardFace = Static<typeof CardFace>;

export const ListWithCardFaces = Type.Object({
  ...ListFields,
  cards: Type.Array(CardFace, { description: 'the first `limit` unarchived cards of the list, in position order' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'more cards: pass as `cursor` to Get List Card Faces (or Get List Card); null when `cards` is all of them',
  }),
});

export const BoardWithCardFaces = Type.Object({
  ...BoardFields,
  lists: Type.Array(ListWithCardFaces, { description: 'in position order' }),
});
export type BoardWithCardFaces = Static<typeof BoardWithCardFaces>;

export const BoardCardFacesQuery = Type.Object(
  {
    ...ScopeQuery.properties,
    archived: Type.Optional(Type.Boolean({ default: false, description: 'true: archived lists too' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
        description: `cards of each list (default ${DEFAULT_PAGE_SIZE}, max ${MAX_PAGE_SIZE}); the rest from Get List Card Faces`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type BoardCardFacesQuery = Static<typeof BoardCardFacesQuery>;

/**
 * A dates window (docs/decisions/0295): the cards whose due date (`by=due`), start date
 * (`by=start`), or span from start to due (`by=span`) falls in [`from`, `to`).
 */
export const DatesWindowFields = {
  from: Type.String({ format: 'date-time', description: "the window's start (inclusive)" }),
  to: Type.String({ format: 'date-time', description: "the window's end (exclusive); after `from`" }),
  by: Type.Optional(
    Type.Union([Type.Literal('due'), Type.Literal('start'), Type.Literal('span')], {
      default: 'due',
      description:
        'which date falls in the window: `due` (default) the due date, `start` the start date, `span` any day from the start date to the due date (a card with one date: that day)',
    }),
  ),
};

export const BoardDatedCardFacesQuery = Type.Object(
  {
    ...ScopeQuery.properties,
    ...DatesWindowFields,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
        description: `cards of each list in the window (default ${DEFAULT_PAGE_SIZE}, max ${MAX_PAGE_SIZE}); the rest from Get List Card Faces with the same window`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type BoardDatedCardFacesQuery = Static<typeof BoardDatedCardFacesQuery>;

export const ListCardFacesQuery = Type.Object(
  {
    ...ScopeQuery.properties,
    archived: Type.Optional(Type.Boolean({ default: false, description: 'true: the archived cards of the list; false (default): the others' })),
    ...PageQueryFields,
    from: Type.Optional(Type.String({ format: 'date-time', description: 'with `to`: only the cards in this dates window (as Get Board Card Faces by Dates)' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: "with `from`: the window's end (exclusive)" })),
    by: Type.Optional(
      Type.Union([Type.Literal('due'), Type.Literal('start'), Type.Literal('span')], {
        description: 'with `from` and `to`: which date falls in the window (default `due`)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListCardFacesQuery = Static<typeof ListCardFacesQuery>;

export const CardFacesPage = Type.Object({
  message: Type.String(),
  cards: Type.Array(CardFace, { description: 'in position order' }),
  nextCursor: NextCursor,
});
