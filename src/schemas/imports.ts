import { type Static, Type } from 'typebox';
import { Id, NullableTimestamp, Timestamp } from './common.ts';
import { named } from './named.ts';

const Count = Type.Integer({ minimum: 0 });
const Person = Type.Object({ name: Type.String({ description: 'the full name the file gives' }), username: Type.Union([Type.String(), Type.Null()]) });

export const ImportReport = named(
  'ImportReport',
  Type.Object(
    {
      brought: Type.Object(
        {
          lists: Count,
          labels: Count,
          cards: Count,
          checklists: Count,
          checklistItems: Count,
          comments: Count,
          discussions: Count,
          attachments: Type.Integer({ minimum: 0, description: 'all brought as link attachments' }),
          cheers: Count,
          customFields: Type.Optional(Count),
          customFieldValues: Type.Optional(Count),
          relations: Type.Optional(Type.Integer({ minimum: 0, description: 'relations between two cards of the file' })),
        },
        { description: 'what the file holds that the board gets' },
      ),
      members: Type.Object({
        matched: Type.Array(Type.Object({ ...Person.properties, user: Id }), {
          description: "people of the file who are the team's members (by full name or username)",
        }),
        unmatched: Type.Array(Person, {
          description: "people of the file no member of the team matched: left off cards and items; their comments are the importer's, with a line naming them",
        }),
      }),
      leftOut: Type.Record(Type.String(), Count, {
        description:
          'what has no place here, by kind, counted: customFields, customFieldValues, powerUps, votes, stickers (always given), and when any: cardCovers, unmatchedCardMembers, unmatchedItemMembers, commentsOfNoCard, truncatedTexts, …',
      }),
      notes: Type.Array(Type.String(), { description: 'sentences about what came over differently (attachments as links, a partial history)' }),
    },
    { description: 'What an import brought over, whom it matched, and what it left out.' },
  ),
);
export type ImportReport = Static<typeof ImportReport>;

export const ImportRecord = named(
  'Import',
  Type.Object({
    _id: Id,
    source: Type.Union([Type.Literal('trello'), Type.Literal('taskboard')]),
    status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')], {
      description: 'running until the board is published (done) or the import failed (nothing of it kept)',
    }),
    company: Id,
    team: Id,
    board: Type.Union([Id, Type.Null()], { description: 'the new board, once done' }),
    boardName: Type.String(),
    progress: Type.Object({ cards: Count, cardsDone: Count }),
    report: ImportReport,
    error: Type.Union([Type.String(), Type.Null()], { description: 'why it failed' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    finishedAt: NullableTimestamp,
  }),
);
export type ImportRecord = Static<typeof ImportRecord>;

export const ImportQuery = Type.Object({ companyId: Type.Optional(Id), teamId: Id }, { additionalProperties: false });
export const ImportParams = Type.Object({ importId: Id }, { additionalProperties: false });
