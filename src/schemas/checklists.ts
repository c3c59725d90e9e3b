import { type Static, Type } from 'typebox';
import { MAX_ITEMS_PER_CHECKLIST } from '../domain/checklists/limits.ts';
import { MAX_BULK_ITEMS } from '../domain/shared/bulk.ts';
import { DateOrNull } from './cards.ts';
import { BulkItems, Id, Name, NullableTimestamp, PositionRequest, ScopeQuery, Timestamp } from './common.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';
import { Attachment, InTeam, Member, record, Stamps } from './records.ts';

/** Records and requests of checklists and their items. */

export const ChecklistItem = record('ChecklistItem', {
  name: Type.String(),
  checklist: Id,
  card: Id,
  ...InTeam,
  position: Type.Number({ description: 'sorts the items of the checklist' }),
  date: NullableTimestamp,
  complete: Type.Object({
    status: Type.Boolean(),
    setAt: Timestamp,
  }),
  members: Type.Array(Member),
  attachments: Type.Array(Attachment, { description: 'live attachments, oldest first' }),
  creator: Id,
  ...Stamps,
});
export type ChecklistItem = Static<typeof ChecklistItem>;

export const Checklist = record('Checklist', {
  name: Type.String(),
  card: Id,
  ...InTeam,
  position: Type.Number({ description: "sorts the card's checklists" }),
  creator: Id,
  items: Type.Array(ChecklistItem, { description: `every item, in order (at most ${MAX_ITEMS_PER_CHECKLIST})` }),
  completedCount: Type.Integer({ description: 'how many of the items are complete' }),
  ...Stamps,
});
export type Checklist = Static<typeof Checklist>;

export const ChecklistParams = Type.Object({ checklistId: Id }, { additionalProperties: false });
export const ItemParams = Type.Object({ itemId: Id }, { additionalProperties: false });
export const ItemAttachmentParams = Type.Object({ itemId: Id, attachmentId: Id }, { additionalProperties: false });

/** Scope plus `limit` and `cursor`. */
export const PagedScopeQuery = Type.Object({ ...ScopeQuery.properties, ...PageQueryFields }, { additionalProperties: false });

export const CreateChecklistBody = Type.Object({ name: Name, position: Type.Optional(PositionRequest) }, { additionalProperties: false });

export const PositionBody = Type.Object({ position: PositionRequest }, { additionalProperties: false });

export const CopyChecklistBody = Type.Object({ card: Id }, { additionalProperties: false });

const ItemMembers = Type.Array(Id, { maxItems: MAX_BULK_ITEMS, description: "user ids; each must be a member of the card's team" });

export const CreateItemBody = Type.Object(
  {
    name: Name,
    date: Type.Optional(DateOrNull),
    members: Type.Optional(ItemMembers),
    position: Type.Optional(PositionRequest),
  },
  { additionalProperties: false },
);

export const ItemDateBody = Type.Object({ date: DateOrNull }, { additionalProperties: false });

export const ItemCompleteBody = Type.Object(
  { status: Type.Optional(Type.Boolean({ description: 'the status to set; absent: the opposite of the current one' })) },
  { additionalProperties: false },
);

export const ItemPositionBody = Type.Object(
  {
    position: PositionRequest,
    checklist: Type.Optional(Id),
  },
  { additionalProperties: false },
);

export const ToggleItemMembersBody = Type.Object(
  { members: BulkItems(Id, 'user ids: each is added if absent, removed if present') },
  { additionalProperties: false },
);

export const CopyItemBody = Type.Object({ checklist: Id }, { additionalProperties: false });

export const ChecklistsPage = Type.Object({ message: Type.String(), checklists: Type.Array(Checklist), nextCursor: NextCursor });
export const ItemsPage = Type.Object({ message: Type.String(), checklistItems: Type.Array(ChecklistItem), nextCursor: NextCursor });
