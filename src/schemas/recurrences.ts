import { type Static, Type } from 'typebox';
import { CardDescription, Id, IdOf, Name, Timestamp, UpdateOf } from './common.ts';
import { named } from './named.ts';

/** Recurring cards (docs/api.md, "Recurring cards"; docs/decisions/0142-recurring-cards.md). */

const Rrule = Type.String({
  minLength: 6,
  maxLength: 500,
  pattern: '^(RRULE:)?[A-Z]+=[^\\s]*$',
  description:
    'RFC 5545 RRULE parts without DTSTART: `FREQ=WEEKLY;BYDAY=MO,WE`, `FREQ=MONTHLY;BYDAY=-1FR` (the last Friday), `FREQ=YEARLY;COUNT=5`, `…;UNTIL=20311231T000000Z`',
  examples: ['FREQ=WEEKLY;BYDAY=MO,WE'],
});
const LocalDateTime = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$',
  description: "the first occurrence's wall-clock time in `timeZone`",
  examples: ['2031-03-03T09:00'],
});
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone', examples: ['Europe/Berlin'] });

export const ScheduleFields = { rule: Rrule, startsAt: LocalDateTime, timeZone: TimeZone };

export const RecurringCard = Type.Object(
  {
    name: Name,
    description: Type.Optional(CardDescription),
    labels: Type.Optional(Type.Array(IdOf('a label of the board'), { maxItems: 20, uniqueItems: true })),
    members: Type.Optional(Type.Array(IdOf("a member of the board's team"), { maxItems: 20, uniqueItems: true })),
    checklists: Type.Optional(
      Type.Array(Type.Object({ name: Name, items: Type.Array(Name, { maxItems: 50 }) }, { additionalProperties: false }), { maxItems: 10 }),
    ),
    dueOffset: Type.Optional(
      Type.Object(
        { amount: Type.Integer({ minimum: 0, maximum: 1000 }), unit: Type.Union([Type.Literal('hours'), Type.Literal('days')]) },
        { additionalProperties: false, description: 'the due date: this long after the occurrence; absent: no due date' },
      ),
    ),
  },
  { additionalProperties: false, description: 'the card each occurrence makes' },
);
export type RecurringCard = Static<typeof RecurringCard>;

const Missed = Type.Union([Type.Literal('create'), Type.Literal('skip')], {
  description: 'occurrences missed while no server ran: `create` makes each of them at start; `skip` makes only the latest',
});

export const RecurrenceDefinition = Type.Object(
  {
    name: Name,
    card: RecurringCard,
    list: IdOf('the list of the board the cards go to'),
    position: Type.Optional(Type.Union([Type.Literal('top'), Type.Literal('bottom')], { default: 'bottom' })),
    ...ScheduleFields,
    missed: Type.Optional(Missed),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type RecurrenceDefinition = Static<typeof RecurrenceDefinition>;

export const UpdateRecurrenceBody = UpdateOf({
  name: Name,
  card: RecurringCard,
  list: IdOf('the list of the board the cards go to'),
  position: Type.Union([Type.Literal('top'), Type.Literal('bottom')]),
  ...ScheduleFields,
  missed: Missed,
  enabled: Type.Boolean({ description: 'false pauses; true resumes from now (occurrences while paused are not made) and clears `pausedReason`' }),
});
export type UpdateRecurrenceBody = Static<typeof UpdateRecurrenceBody>;

export const Recurrence = named(
  'Recurrence',
  Type.Object({
    _id: Id,
    company: Id,
    team: Id,
    board: Id,
    name: Type.String(),
    card: RecurringCard,
    list: Id,
    position: Type.Union([Type.Literal('top'), Type.Literal('bottom')]),
    rule: Type.String(),
    startsAt: Type.String(),
    timeZone: Type.String(),
    missed: Missed,
    enabled: Type.Boolean(),
    pausedReason: Type.Union([Type.String(), Type.Null()]),
    author: IdOf('the user whose reach the cards are made with'),
    nextOccurrences: Type.Array(Timestamp, { maxItems: 3, description: 'the next three occurrences owed (fewer when the rule ends; none while paused)' }),
    made: Type.Integer({ description: 'cards made so far' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Integer(),
  }),
);
export type Recurrence = Static<typeof Recurrence>;

export const RecurrenceParams = Type.Object({ recurrenceId: Id }, { additionalProperties: false });
export const RecurrencesAnswer = Type.Object({ message: Type.String(), recurrences: Type.Array(Recurrence) });
export const PreviewBody = Type.Object(ScheduleFields, { additionalProperties: false });
export const PreviewAnswer = Type.Object({
  message: Type.String(),
  occurrences: Type.Array(Timestamp, { description: 'the next three occurrences from now' }),
});
