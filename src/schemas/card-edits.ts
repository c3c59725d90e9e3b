import { type Static, Type } from 'typebox';
import { MultiTeamCard } from './card-copies.ts';
import { DateOrNull } from './cards.ts';
import { BulkItems, CardDescription, Id, IdOf, Name, PositionRequest, ScopeQuery, TEXT_CAPS, Text } from './common.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';
import { Card } from './records.ts';

/** Request and answer schemas of card editing, ordering, listing, archiving and member toggling. */

export const WORKLOAD_MEASUREMENTS = ['minutes', 'hours', 'days', 'points'] as const;

export const WorkloadUpdate = Type.Object(
  {
    value: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1e9 }), Type.Null()], { description: 'null clears the estimate' })),
    measurement: Type.Optional(Type.Union(WORKLOAD_MEASUREMENTS.map((m) => Type.Literal(m)))),
  },
  { additionalProperties: false, minProperties: 1, description: 'the given fields replace the stored ones' },
);

export const CompleteUpdate = Type.Object(
  {
    status: Type.Boolean({ description: 'a change of status sets complete.setAt' }),
    type: Type.Optional(Text({ maxLength: TEXT_CAPS.completeType, blank: false, examples: ['todo'] })),
  },
  { additionalProperties: false },
);

/** The fields Update Card changes; also the `update` of each item of Update Cards Multi Team. */
export const CardUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    cover: Type.Optional(Text({ maxLength: TEXT_CAPS.url, description: 'an image URL or colour; "" removes the cover' })),
    description: Type.Optional(CardDescription),
    startDate: Type.Optional(DateOrNull),
    dueDate: Type.Optional(DateOrNull),
    workload: Type.Optional(WorkloadUpdate),
    isPublic: Type.Optional(Type.Boolean()),
    isTemplate: Type.Optional(Type.Boolean({ description: 'make the card a template of its board, or a plain card again' })),
    complete: Type.Optional(CompleteUpdate),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'at least one field; dueDate must not be before startDate, the stored one counting for the field not given',
  },
);
export type CardUpdate = Static<typeof CardUpdate>;

export const ReorderCardBody = Type.Object(
  {
    position: PositionRequest,
    list: Type.Optional(IdOf("a list of the card's board; absent: the card's own list")),
  },
  { additionalProperties: false },
);
export type ReorderCardBody = Static<typeof ReorderCardBody>;

export const ListCardsParams = Type.Object({ listId: Id }, { additionalProperties: false });

export const ListCardsQuery = Type.Object(
  {
    ...ScopeQuery.properties,
    archived: Type.Optional(Type.Boolean({ default: false, description: 'true: the archived cards of the list; false (default): the others' })),
    ...PageQueryFields,
  },
  { additionalProperties: false },
);
export type ListCardsQuery = Static<typeof ListCardsQuery>;

export const CardsPage = Type.Object({
  message: Type.String(),
  cards: Type.Array(Card, { description: 'in position order' }),
  nextCursor: NextCursor,
});

const NamedRef = Type.Object({ _id: Id, name: Type.String() });
export const CardCompanyTeam = Type.Object({
  message: Type.String(),
  company: NamedRef,
  team: NamedRef,
});

const ArchiveStatus = Type.Optional(Type.Boolean({ default: true, description: 'true (default) archives, false unarchives' }));

export const ArchiveCardsBody = Type.Object(
  {
    cardIds: BulkItems(Id, 'cards of one team, each at most once'),
    status: ArchiveStatus,
  },
  { additionalProperties: false },
);

export const UpdateCardsMultiTeamBody = Type.Object(
  {
    cards: BulkItems(
      Type.Object({ ...MultiTeamCard.properties, update: CardUpdate }, { additionalProperties: false }),
      'each card at most once, with the company and team it is in, and the fields to change (as Update Card)',
    ),
  },
  { additionalProperties: false },
);

export const ArchiveCardsMultiTeamBody = Type.Object(
  {
    cards: BulkItems(MultiTeamCard, 'each card at most once, with the company and team it is in'),
    status: ArchiveStatus,
  },
  { additionalProperties: false },
);

export const ToggleMembersBody = Type.Object(
  { members: BulkItems(Id, "user ids: added when absent (must be in the card's team), removed when present") },
  { additionalProperties: false },
);

/** Routes that take no body: none, or an empty JSON object; any field is rejected. */
export const NoBody = Type.Object({}, { additionalProperties: false, description: 'no body, or {}' });

export const DeleteCardsMultiTeamBody = Type.Object(
  { cards: BulkItems(MultiTeamCard, 'each card at most once, with the company and team it is in') },
  { additionalProperties: false },
);
