import { type Static, Type } from 'typebox';
import { Id, IdOf, Timestamp } from './common.ts';
import { named } from './named.ts';

/** Card relations (docs/decisions/0291): blocks / is blocked by, relates to, duplicates / is duplicated by. */

export const RelationKind = Type.Union([Type.Literal('blocks'), Type.Literal('relates'), Type.Literal('duplicates')], {
  description: 'as stored: `from` blocks, relates to, or duplicates `to`',
});

export const RelationSide = Type.Union(
  [Type.Literal('blocks'), Type.Literal('blocked_by'), Type.Literal('relates'), Type.Literal('duplicates'), Type.Literal('duplicated_by')],
  { description: 'the relation as the card sees it: this card blocks, is blocked by, relates to, duplicates or is duplicated by the other' },
);

export const RelatedCard = named(
  'RelatedCard',
  Type.Object({
    _id: Id,
    name: Type.String(),
    board: Id,
    boardName: Type.String(),
    list: Id,
    listName: Type.String(),
    complete: Type.Object({ status: Type.Boolean() }),
    archived: Type.Object({ status: Type.Boolean() }),
    open: Type.Boolean({ description: 'neither complete nor archived: a card it blocks is blocked' }),
  }),
);

export const CardRelation = named(
  'CardRelation',
  Type.Object({
    _id: Id,
    kind: RelationSide,
    card: RelatedCard,
    creator: Id,
    createdAt: Timestamp,
  }),
);
export type CardRelation = Static<typeof CardRelation>;

export const BoardRelation = named(
  'BoardRelation',
  Type.Object({
    _id: Id,
    kind: RelationKind,
    from: RelatedCard,
    to: RelatedCard,
    creator: Id,
    createdAt: Timestamp,
  }),
);
export type BoardRelation = Static<typeof BoardRelation>;

export const CreateRelationBody = Type.Object(
  {
    kind: RelationSide,
    card: IdOf('the other card: any card of the same company the caller reaches, on any board'),
  },
  { additionalProperties: false },
);
export type CreateRelationBody = Static<typeof CreateRelationBody>;

export const RelationParams = Type.Object({ cardId: Id, relationId: Id }, { additionalProperties: false });
