import { Type } from 'typebox';
import { Id, ScopeQuery } from './common.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';
import { Card } from './records.ts';

export const MyTasksQuery = Type.Object(
  {
    ...ScopeQuery.properties,
    complete: Type.Optional(Type.Boolean({ description: 'true: only completed cards; false: only open ones; absent: both' })),
    archived: Type.Optional(Type.Boolean({ default: false, description: 'true: also the cards of archived boards and lists' })),
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

export const MyTasksListParams = Type.Object({ listId: Id }, { additionalProperties: false });

export const MyTasksAnswer = Type.Object({
  message: Type.String(),
  cards: Type.Array(Card, { description: 'unarchived cards the caller is a member of' }),
  nextCursor: NextCursor,
});
