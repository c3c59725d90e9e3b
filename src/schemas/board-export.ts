import { type Static, Type } from 'typebox';
import { Id, NullableTimestamp, ScopeQuery, Timestamp } from './common.ts';
import { named } from './named.ts';

/** The version of the board export's document; a change that readers could trip on makes the next one. */
export const BOARD_EXPORT_FORMAT_VERSION = 1;

const Ids = (description: string) => Type.Array(Id, { description });

const ExportedChecklistItem = Type.Object({
  _id: Id,
  name: Type.String(),
  position: Type.Number(),
  due: NullableTimestamp,
  complete: Type.Boolean(),
  members: Ids("the item's members (ids in `people`)"),
});

const ExportedDiscussion = Type.Object({ _id: Id, author: Id, content: Type.String(), createdAt: Timestamp });

const ExportedAttachment = Type.Object({
  _id: Id,
  type: Type.Union([Type.Literal('file'), Type.Literal('link')]),
  name: Type.String(),
  originalName: Type.String(),
  url: Type.Union([Type.String(), Type.Null()], { description: 'a link: its target; a file: null' }),
  file: Type.Union([Type.String(), Type.Null()], { description: 'a file: its path in the zip that `files=true` gives; a link: null' }),
  mimeType: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.Union([Type.String(), Type.Null()], { description: "the SHA-256 of a file's bytes (hex); null for links and files stored before checksums" }),
  checklistItem: Type.Union([Id, Type.Null()], { description: 'the checklist item it is attached to, if any' }),
  creator: Id,
  createdAt: Timestamp,
});

const ExportedFieldValue = Type.Object({
  field: Id,
  value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Id)], {
    description: "as Set Card Field Values takes it: a select's option id, a multi select's ids, a person's id (in `people`)",
  }),
});

const ExportedCustomField = Type.Object({
  _id: Id,
  name: Type.String(),
  type: Type.String({ description: 'text, number, date, select, multiselect, checkbox, person or url' }),
  unit: Type.String(),
  position: Type.Number(),
  showOnCard: Type.Boolean(),
  options: Type.Array(Type.Object({ _id: Id, name: Type.String(), color: Type.String({ description: "the palette colour's name" }), hex: Type.String() })),
});

const ExportedRelation = Type.Object({
  from: Id,
  kind: Type.Union([Type.Literal('blocks'), Type.Literal('relates'), Type.Literal('duplicates')]),
  to: Id,
  createdAt: Timestamp,
});

const ExportedCard = Type.Object({
  _id: Id,
  list: Id,
  name: Type.String(),
  description: Type.String(),
  position: Type.Number(),
  start: NullableTimestamp,
  due: NullableTimestamp,
  complete: Type.Boolean(),
  archived: Type.Boolean(),
  isTemplate: Type.Boolean({ description: 'a template card of the board' }),
  creator: Id,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  members: Ids("the card's members (ids in `people`)"),
  labels: Ids("the card's labels (ids in `labels`)"),
  checklists: Type.Array(Type.Object({ _id: Id, name: Type.String(), position: Type.Number(), items: Type.Array(ExportedChecklistItem) })),
  comments: Type.Array(Type.Object({ _id: Id, author: Id, content: Type.String(), createdAt: Timestamp, discussions: Type.Array(ExportedDiscussion) }), {
    description: 'oldest first, each with its discussion',
  }),
  attachments: Type.Array(ExportedAttachment, { description: 'attachments not deleted, oldest first' }),
  fields: Type.Array(ExportedFieldValue, { description: "the card's custom field values (fields in `customFields`)" }),
  cheers: Type.Array(
    Type.Object({
      _id: Id,
      giver: Id,
      receiver: Id,
      content: Type.String(),
      on: Type.Object({ type: Type.String({ description: 'card, comment, discussion, attachment or checklistItem' }), _id: Id }),
      createdAt: Timestamp,
    }),
  ),
});

export const BoardExport = named(
  'BoardExport',
  Type.Object(
    {
      format: Type.Literal('taskboard-board'),
      formatVersion: Type.Literal(BOARD_EXPORT_FORMAT_VERSION),
      exportedAt: Timestamp,
      board: Type.Object({ _id: Id, name: Type.String(), description: Type.String(), archived: Type.Boolean(), createdAt: Timestamp, updatedAt: Timestamp }),
      labels: Type.Array(Type.Object({ _id: Id, name: Type.String(), color: Type.String({ description: "the palette colour's name" }), hex: Type.String() })),
      lists: Type.Array(Type.Object({ _id: Id, name: Type.String(), position: Type.Number(), archived: Type.Boolean(), createdAt: Timestamp }), {
        description: 'position order, archived ones too',
      }),
      customFields: Type.Array(ExportedCustomField, { description: "the board's custom fields in their order, with their options" }),
      cards: Type.Array(ExportedCard, { description: 'list by list, each in position order; archived ones too' }),
      relations: Type.Array(ExportedRelation, {
        description: 'relations between two cards of the board ("from blocks to"); relations to cards of other boards are left out',
      }),
      people: Type.Array(Type.Object({ _id: Id, fullName: Type.String() }), {
        description: 'everyone the document names: creators, members, authors, cheerers',
      }),
    },
    {
      description:
        'A whole board, for reading elsewhere or importing back. Ids are those of this deployment and tie the document together; deleted lists, cards and attachments are left out.',
    },
  ),
);
export type BoardExport = Static<typeof BoardExport>;
export type ExportedCard = Static<typeof ExportedCard>;

export const BoardExportQuery = Type.Object(
  {
    ...ScopeQuery.properties,
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'json (default): the whole board; csv: one row per card' })),
    files: Type.Optional(Type.Boolean({ default: false, description: 'true: a zip of the JSON document (`board.json`) and the attached files' })),
  },
  { additionalProperties: false },
);
