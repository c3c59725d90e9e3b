import { type Static, type TProperties, Type } from 'typebox';
import { Id, NullableTimestamp, Timestamp } from './common.ts';
import { named } from './named.ts';

/** The records of the source document, every field with its type, plus the contract's additions. */

/** The fields a stored record ends with: when it was made and last changed, and its revision. */
export const Stamps = { createdAt: Timestamp, updatedAt: Timestamp, __v: Type.Integer() };

/** The tenant and team a record belongs to. */
export const InTeam = { company: Id, team: Id };

/** A named record: its `_id` first, then `fields` in the order given. */
export function record<P extends TProperties>(name: string, fields: P) {
  return named(name, Type.Object({ _id: Id, ...fields }));
}

export const Member = record('Member', {
  fullName: Type.String(),
  photoUrl: Type.String(),
});
export type Member = Static<typeof Member>;

const ParentRef = Type.Object({ id: Id, type: Type.String() });

export const Cheer = record('Cheer', {
  content: Type.String(),
  creator: Type.Object({ _id: Id, photoUrl: Type.String() }),
  receiver: Id,
  primaryParent: ParentRef,
  secondaryParent: ParentRef,
  isNotified: Type.Boolean(),
  comment: Type.String({ description: 'the comment id for cheers on a comment or discussion, else ""' }),
  card: Id,
  featureType: Type.String({ description: 'what was cheered: card, comment, discussion or attachment' }),
  ...InTeam,
  ...Stamps,
  notification: Type.String(),
});
export type Cheer = Static<typeof Cheer>;

export const LabelColor = record('LabelColor', {
  name: Type.String(),
  hex: Type.String({ description: 'CSS colour, #rrggbb' }),
});
export type LabelColor = Static<typeof LabelColor>;

export const Label = record('Label', {
  name: Type.String(),
  creator: Id,
  color: LabelColor,
  ...InTeam,
  board: Id,
  ...Stamps,
});
export type Label = Static<typeof Label>;

export const Attachment = record('Attachment', {
  name: Type.String(),
  url: Type.String({ description: 'download path of a file, or the target of a link' }),
  creator: Member,
  type: Type.Union([Type.Literal('file'), Type.Literal('link')]),
  mimeType: Type.String(),
  size: Type.Integer({ description: 'bytes; 0 for links' }),
  originalName: Type.String(),
  isDeleted: Type.Boolean(),
  ...InTeam,
  card: Id,
  checklistItem: Type.Union([Id, Type.Null()]),
  seen: Type.Array(Id),
  cheers: Type.Array(Cheer),
  ...Stamps,
});
export type Attachment = Static<typeof Attachment>;

/** A card's value of one custom field (docs/decisions/0132): its type says which form the value takes. */
export const CustomFieldValue = named(
  'CustomFieldValue',
  Type.Object({
    field: Id,
    value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Id)], {
      description:
        'text, url: the text; number: a number; date: an ISO 8601 UTC date-time; checkbox: true; person: a user id; select: an option id; multiselect: option ids',
    }),
  }),
);
export type CustomFieldValue = Static<typeof CustomFieldValue>;

export const Card = record('Card', {
  name: Type.String(),
  description: Type.String(),
  cover: Type.String(),
  creator: Id,
  position: Type.Number(),
  startDate: NullableTimestamp,
  dueDate: NullableTimestamp,
  members: Type.Array(Member),
  checklists: Type.Array(Id),
  allChecklistItemsCount: Type.Object({ completed: Type.Integer(), total: Type.Integer() }),
  cheers: Type.Array(Cheer),
  comments: Type.Array(Id),
  labels: Type.Array(Label),
  attachments: Type.Array(Attachment),
  complete: Type.Object({
    status: Type.Boolean(),
    type: Type.String(),
    setAt: Timestamp,
    updatedAt: Timestamp,
  }),
  isNotified: Type.Object({
    startOneHour: Type.Boolean(),
    startOneDay: Type.Boolean(),
    dueOneHour: Type.Boolean(),
    dueOneDay: Type.Boolean(),
  }),
  archived: Type.Object({ status: Type.Boolean() }),
  isPublic: Type.Boolean(),
  isTemplate: Type.Boolean({ description: 'a template of its board: Copy Card makes new cards from it (the copy is not one)' }),
  workload: Type.Object({ value: Type.Union([Type.Number(), Type.Null()]), measurement: Type.String() }),
  ...InTeam,
  board: Id,
  list: Id,
  seen: Type.Array(Id),
  customFields: Type.Array(CustomFieldValue, { description: 'the values the card holds, by field id; a field without a value is left out' }),
  ...Stamps,
});
export type Card = Static<typeof Card>;

/** Archived boards and lists leave the collection reads unless `archived=true` asks for them. */
const ArchivedMark = Type.Object({ status: Type.Boolean(), at: NullableTimestamp });

/** The fields of a Board, for the answers that extend it. */
export const BoardFields = {
  _id: Id,
  name: Type.String(),
  description: Type.String(),
  archived: ArchivedMark,
  creator: Id,
  ...InTeam,
  ...Stamps,
};
export const Board = named('Board', Type.Object(BoardFields));
export type Board = Static<typeof Board>;

/** The fields of a List, for the answers that extend it. */
export const ListFields = {
  _id: Id,
  name: Type.String(),
  position: Type.Number(),
  archived: ArchivedMark,
  creator: Id,
  ...InTeam,
  board: Id,
  ...Stamps,
};
export const List = named('List', Type.Object(ListFields));
export type List = Static<typeof List>;

export const Company = record('Company', {
  name: Type.String(),
  creator: Id,
  role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')], {
    description: "the caller's role in the company",
  }),
  ...Stamps,
});
export type Company = Static<typeof Company>;

export const Team = record('Team', {
  name: Type.String(),
  company: Id,
  creator: Id,
  members: Type.Array(Member),
  ...Stamps,
});
export type Team = Static<typeof Team>;

/** The fields of a User, for the answers that extend it. */
export const UserFields = {
  _id: Id,
  email: Type.String(),
  fullName: Type.String(),
  photoUrl: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
/** The languages the web app and the mails speak (docs/people.md, "Languages"). */
export const LANGUAGES = ['en', 'de', 'fr', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];
export const Locale = Type.Union([Type.Literal('en'), Type.Literal('de'), Type.Literal('fr'), Type.Literal('ar'), Type.Null()], {
  description: 'the language of the web app and of their mails: en, de, fr or ar; null follows the browser (and mails are in English)',
});

export const TimeZone = Type.Union([Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone, e.g. Europe/Berlin' }), Type.Null()], {
  description:
    'their time zone, an IANA name such as Europe/Berlin: the web app shows and picks dates in it, and their daily summary comes at 8:00 in it; null follows the browser (the summary then comes at 8:00 UTC)',
});

export const EmailCadence = Type.Union([Type.Literal('minute'), Type.Literal('daily')], {
  description:
    'how their notification mail comes (when `emailNotifications`): `minute`, gathered into a digest a minute after the first; `daily`, one summary each morning (8:00 in `timeZone`) of what is due and what changed, instead',
});

/** A person's own record adds their choices (not shown to others: company members leave them out). */
export const User = named(
  'User',
  Type.Object({
    ...UserFields,
    emailNotifications: Type.Boolean({ description: 'whether their notifications are also mailed to them (PATCH /me)' }),
    locale: Locale,
    timeZone: TimeZone,
    emailCadence: EmailCadence,
  }),
);
export type User = Static<typeof User>;

export const ApiKeyAccess = Type.Union([Type.Literal('read-only'), Type.Literal('read-write')], {
  description: 'read-only: every write answers 403; read-write: every operation its person may do',
});

export const ApiKey = record('ApiKey', {
  name: Type.String(),
  prefix: Type.String({ description: 'first characters of the token, to tell keys apart' }),
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  lastUsedIp: Type.Union([Type.String(), Type.Null()], { description: 'the client address of the use lastUsedAt records' }),
  access: ApiKeyAccess,
  teams: Type.Union([Type.Array(Id), Type.Null()], { description: 'the only teams the key reaches (404 elsewhere); null: every team of its person' }),
  expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'when the key stops working (401 from then on); null: never' }),
});
export type ApiKey = Static<typeof ApiKey>;
