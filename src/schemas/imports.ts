import { type Static, Type } from 'typebox';
import { Id, NullableTimestamp, Timestamp } from './common.ts';
import { named } from './named.ts';

const Count = Type.Integer({ minimum: 0 });
const Person = Type.Object({
  key: Type.Optional(Type.String({ description: "the file's key of the person (a Trello member id); what a people mapping names" })),
  name: Type.String({ description: 'the full name the file gives' }),
  username: Type.Union([Type.String(), Type.Null()]),
});
const MatchedBy = Type.Union(
  [Type.Literal('chosen'), Type.Literal('invitation'), Type.Literal('id'), Type.Literal('email'), Type.Literal('name'), Type.Literal('username')],
  {
    description:
      "chosen: the importer's mapping; invitation: the person accepted the invitation made for them; else the rule that found the member (the same id, the email, the full name, the username)",
  },
);
const Invited = Type.Optional(
  Type.Union([Type.String(), Type.Null()], {
    description: 'the email the person is invited by (an open invitation made for them by the import or Map Import People), or null',
  }),
);
const Uses = {
  cardMemberships: Count,
  itemMemberships: Count,
  comments: Type.Integer({ minimum: 0, description: 'comments and replies written' }),
};

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
        matched: Type.Array(Type.Object({ ...Person.properties, user: Id, by: Type.Optional(MatchedBy) }), {
          description: "people of the file who are the team's members (chosen by the importer, or by id, email, full name or username)",
        }),
        unmatched: Type.Array(
          Type.Object({
            ...Person.properties,
            cardMemberships: Type.Optional(Type.Integer({ minimum: 0, description: 'cards the person was on, still to map (Map Import People)' })),
            itemMemberships: Type.Optional(Type.Integer({ minimum: 0, description: 'checklist items the person was on, still to map' })),
            comments: Type.Optional(Type.Integer({ minimum: 0, description: "comments and replies they wrote (the importer's, naming them)" })),
            invited: Invited,
          }),
          {
            description:
              "people of the file mapped to nobody: left off cards and items until mapped (Map Import People); their comments are the importer's, with a line naming them",
          },
        ),
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
    invitations: Type.Optional(
      Type.Array(
        Type.Object({
          key: Type.String({ description: 'the person of the file the invitation stands for' }),
          email: Type.String(),
          invitation: Id,
          url: Type.String({ description: 'the invitation link, to hand over when it was not mailed; given this once' }),
          mailed: Type.Boolean(),
        }),
        { description: 'in the answer of the request that made them only: the invitations made for people of the file' },
      ),
    ),
  }),
);
export type ImportRecord = Static<typeof ImportRecord>;

export const ImportQuery = Type.Object({ companyId: Type.Optional(Id), teamId: Id }, { additionalProperties: false });
export const ImportParams = Type.Object({ importId: Id }, { additionalProperties: false });

export const ImportPeople = named(
  'ImportPeople',
  Type.Object({
    people: Type.Array(
      Type.Object({
        key: Type.String({ description: "the file's key of the person: what the import's `people` mapping names" }),
        name: Type.String(),
        username: Type.Union([Type.String(), Type.Null()]),
        email: Type.Union([Type.String(), Type.Null()], { description: 'when the file gives one' }),
        user: Type.Union([Id, Type.Null()], { description: 'the member the rules suggest, or null (nobody)' }),
        by: Type.Union([MatchedBy, Type.Null()]),
        ...Uses,
        invited: Invited,
      }),
      { description: 'everyone the file names, in its order' },
    ),
    members: Type.Array(Type.Object({ _id: Id, fullName: Type.String(), email: Type.String() }), {
      description: "the team's members: whom a person may be mapped to",
    }),
  }),
);
export type ImportPeople = Static<typeof ImportPeople>;

export const MapImportPeopleBody = Type.Object(
  {
    people: Type.Array(
      Type.Union([
        Type.Object(
          { key: Type.String({ minLength: 1, maxLength: 200, description: 'an unmapped person of the report' }), user: Id },
          { additionalProperties: false },
        ),
        Type.Object(
          {
            key: Type.String({ minLength: 1, maxLength: 200, description: 'an unmapped person of the report' }),
            invite: Type.String({ minLength: 3, maxLength: 254, description: 'the email to invite the person by (a member of the company, of the team)' }),
          },
          { additionalProperties: false },
        ),
      ]),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);
export type MapImportPeopleBody = Static<typeof MapImportPeopleBody>;
