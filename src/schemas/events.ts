import { type Static, Type } from 'typebox';
import { Id, ScopeQuery, Timestamp } from './common.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';

/** The event record's public shape (docs/events.md lists every type and its `data`). */

const NullableId = Type.Union([Id, Type.Null()]);

export const Event = Type.Object(
  {
    _id: Id,
    type: Type.String({
      description: "dotted, in the contract's words: `card.created`, `card.labels.toggled`, `comment.created`, …",
      examples: ['card.updated'],
    }),
    company: NullableId,
    team: Type.Union([Id, Type.Null()], { description: 'null where the event is not of one team (a company membership)' }),
    board: Type.Union([Id, Type.Null()], { description: 'null where the event is not of one board' }),
    card: Type.Union([Id, Type.Null()], { description: 'null where the event is not of one card' }),
    actor: Type.Union(
      [
        Type.Object(
          {
            user: Id,
            apiKey: Type.Union([Id, Type.Null()], { description: 'null: a signed-in person (a session), not an API key' }),
            rule: Type.Optional(
              Type.Object(
                { _id: Id, name: Type.String({ description: "the rule's name when it ran" }) },
                { additionalProperties: false, description: "present when a board rule made the change, acting with its author's reach (`user`)" },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'the user and the API key that made the change (apiKey null: through a signed-in session); null for a change the service made itself' },
    ),
    createdAt: Timestamp,
    requestId: Type.Union([Type.String(), Type.Null()], {
      description: 'the X-Request-Id of the request that made the change; shared by every event of one request',
    }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description: 'the ids and the before/after of what changed (by type; see docs/events.md); never file bytes or key material',
    }),
  },
  { $id: 'Event', additionalProperties: false },
);
export type Event = Static<typeof Event>;

/** The type filter of the activity reads: a type, or a prefix of types. */
export const EventTypeFilter = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z]+(\\.[a-z]+)*\\.?$',
  description: 'a type (`card.labels.toggled`: that type and any below it) or a prefix ending in a dot (`card.`: every card event)',
  examples: ['card.', 'card.labels.toggled'],
});

export const ActivityQuery = Type.Object(
  { ...ScopeQuery.properties, ...PageQueryFields, type: Type.Optional(EventTypeFilter) },
  { additionalProperties: false },
);
export type ActivityQuery = Static<typeof ActivityQuery>;

export const ActivityPage = Type.Object({
  message: Type.String(),
  events: Type.Array(Type.Unsafe<Event>({ $ref: 'Event#' }), { description: 'newest first' }),
  nextCursor: NextCursor,
});
