import { type Static, Type } from 'typebox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/shared/pagination.ts';
import { Id, NullableTimestamp, ScopeQuery } from './common.ts';
import { named } from './named.ts';
import { NextCursor } from './pagination.ts';
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

export const CardFacesPage = Type.Object({
  message: Type.String(),
  cards: Type.Array(CardFace, { description: 'in position order' }),
  nextCursor: NextCursor,
});
