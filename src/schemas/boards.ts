import { type Static, Type } from 'typebox';
import { CardDescription, Id, IdOf, Name, PositionRequest, ScopeQuery, UpdateOf } from './common.ts';
import { BoardFields, Card, List, ListFields } from './records.ts';

/** Request and answer shapes of boards, lists and labels beyond the records themselves. */

export const ListWithCards = Type.Object({
  ...ListFields,
  cards: Type.Array(Card, { description: 'the first page (50) of the unarchived cards of the list, in position order' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'more cards: pass as `cursor` to Get List Card (GET /api/v1/lists/:listId/cards); null when `cards` is all of them',
  }),
});
export type ListWithCards = Static<typeof ListWithCards>;

export const BoardWithLists = Type.Object({
  ...BoardFields,
  lists: Type.Array(List, { description: 'in position order' }),
});
export type BoardWithLists = Static<typeof BoardWithLists>;

export const BoardWithListsAndCards = Type.Object({
  ...BoardFields,
  lists: Type.Array(ListWithCards, { description: 'in position order' }),
});
export type BoardWithListsAndCards = Static<typeof BoardWithListsAndCards>;

/** Creating a board names its team; `companyId` may be given too and must then match. */
export const CreateBoardQuery = Type.Object(
  {
    companyId: Type.Optional(Id),
    teamId: Id,
  },
  { additionalProperties: false },
);
export type CreateBoardQuery = Static<typeof CreateBoardQuery>;

export const CreateBoardBody = Type.Object(
  {
    name: Name,
    defaultLabels: Type.Optional(
      Type.Boolean({
        description:
          "true: the board starts with Trello's default labels, six unnamed ones coloured green, yellow, orange, red, purple and blue (as Trello's `defaultLabels`); default false: no labels",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateBoardBody = Static<typeof CreateBoardBody>;

export const BoardParams = Type.Object({ boardId: Id }, { additionalProperties: false });
export const ListParams = Type.Object({ listId: Id }, { additionalProperties: false });
export const LabelParams = Type.Object({ labelId: Id }, { additionalProperties: false });

export const CreateListBody = Type.Object(
  {
    board: Id,
    name: Name,
    position: Type.Optional(PositionRequest),
  },
  { additionalProperties: false },
);
export type CreateListBody = Static<typeof CreateListBody>;

export const UpdateListBody = UpdateOf({ name: Name, position: PositionRequest });
export type UpdateListBody = Static<typeof UpdateListBody>;

/** A label colour is named by the `_id` of a palette colour. */
const ColorId = IdOf('the _id of a colour of GET /api/v1/label-colors');

export const CreateLabelBody = Type.Object(
  {
    name: Name,
    color: ColorId,
  },
  { additionalProperties: false },
);
export type CreateLabelBody = Static<typeof CreateLabelBody>;

export const UpdateLabelBody = UpdateOf({ name: Name, color: ColorId });
export type UpdateLabelBody = Static<typeof UpdateLabelBody>;

/** Collection and board reads: archived boards and lists are left out unless `archived=true`. */
export const ArchivedScopeQuery = Type.Object(
  {
    ...ScopeQuery.properties,
    archived: Type.Optional(Type.Boolean({ default: false, description: 'true: archived boards and lists too' })),
  },
  { additionalProperties: false },
);

export const UpdateBoardBody = UpdateOf({ name: Name, description: CardDescription });

export const DeleteListQuery = Type.Object(
  {
    ...ScopeQuery.properties,
    cascade: Type.Optional(Type.Boolean({ default: false, description: 'true: delete the list with its unarchived cards' })),
  },
  { additionalProperties: false },
);

/** What a delete answers: the id of what went. */
export const Deleted = Type.Object({ _id: Id });

export const BoardStarAnswer = Type.Object({
  message: Type.String(),
  starred: Type.Boolean({ description: "whether the caller starred the board (the caller's own mark, listed by Get Starred Boards)" }),
});
