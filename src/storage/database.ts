import type { Generated, Insertable, Kysely, Selectable, Transaction as KyselyTransaction, Updateable } from 'kysely';

/**
 * The Kysely view of the schema, shared by SQLite and PostgreSQL.
 *
 * Conventions that keep one query code for both engines:
 * - ids are 24-hex text; timestamps are ISO 8601 UTC text (`2026-11-21T09:30:00.000Z`), which sort
 *   correctly as text on both engines;
 * - booleans are integers 0/1 (SQLite has no boolean type); repositories expose real booleans;
 * - `version` is the record's `__v` revision counter;
 * - positions are doubles that sort a collection.
 */
export type Flag = 0 | 1;

export interface UserTable {
  id: string;
  email: string;
  full_name: string;
  photo_url: string;
  created_at: string;
  updated_at: string;
}

export type CompanyRole = 'owner' | 'admin' | 'member';

export interface CompanyTable {
  id: string;
  name: string;
  creator_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface CompanyMemberTable {
  company_id: string;
  user_id: string;
  role: CompanyRole;
  created_at: string;
}

export interface TeamTable {
  id: string;
  company_id: string;
  name: string;
  creator_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface TeamMemberTable {
  team_id: string;
  user_id: string;
  created_at: string;
}

export interface ApiKeyTable {
  id: string;
  user_id: string;
  name: string;
  /** First characters of the token, shown so a user can tell keys apart. */
  prefix: string;
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface BoardTable {
  id: string;
  company_id: string;
  team_id: string;
  name: string;
  creator_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface ListTable {
  id: string;
  company_id: string;
  team_id: string;
  board_id: string;
  name: string;
  position: number;
  creator_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface LabelColorTable {
  id: string;
  name: string;
  hex: string;
  position: number;
}

export interface LabelTable {
  id: string;
  company_id: string;
  team_id: string;
  board_id: string;
  name: string;
  color_id: string;
  creator_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

/** Columns with a database default are `Generated`: optional on insert. */
export interface CardTable {
  id: string;
  company_id: string;
  team_id: string;
  board_id: string;
  list_id: string;
  name: string;
  description: Generated<string>;
  cover: Generated<string>;
  creator_id: string;
  position: number;
  start_date: string | null;
  due_date: string | null;
  complete_status: Generated<Flag>;
  complete_type: Generated<string>;
  complete_set_at: string | null;
  complete_updated_at: string | null;
  notified_start_one_hour: Generated<Flag>;
  notified_start_one_day: Generated<Flag>;
  notified_due_one_hour: Generated<Flag>;
  notified_due_one_day: Generated<Flag>;
  archived: Generated<Flag>;
  archived_at: Generated<string | null>;
  is_public: Generated<Flag>;
  workload_value: Generated<number | null>;
  workload_measurement: Generated<string>;
  created_at: string;
  updated_at: string;
  version: Generated<number>;
}

export interface CardMemberTable {
  card_id: string;
  user_id: string;
  created_at: string;
}

export interface CardLabelTable {
  card_id: string;
  label_id: string;
  created_at: string;
}

export interface CardSeenTable {
  card_id: string;
  user_id: string;
  seen_at: string;
}

export interface ChecklistTable {
  id: string;
  company_id: string;
  team_id: string;
  card_id: string;
  name: string;
  position: number;
  creator_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface ChecklistItemTable {
  id: string;
  company_id: string;
  team_id: string;
  card_id: string;
  checklist_id: string;
  name: string;
  position: number;
  date: string | null;
  complete_status: Flag;
  complete_set_at: string | null;
  creator_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface ChecklistItemMemberTable {
  item_id: string;
  user_id: string;
  created_at: string;
}

export interface CommentTable {
  id: string;
  company_id: string;
  team_id: string;
  card_id: string;
  creator_id: string;
  content: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface DiscussionTable {
  id: string;
  company_id: string;
  team_id: string;
  card_id: string;
  comment_id: string;
  creator_id: string;
  content: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export type CheerParentType = 'card' | 'comment' | 'discussion' | 'attachment' | 'checklistItem';

export interface CheerTable {
  id: string;
  company_id: string;
  team_id: string;
  content: string;
  creator_id: string;
  receiver_id: string;
  primary_type: CheerParentType;
  primary_id: string;
  secondary_type: CheerParentType | null;
  secondary_id: string | null;
  card_id: string;
  comment_id: string | null;
  feature_type: string;
  is_notified: Flag;
  notification: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export type AttachmentKind = 'file' | 'link';

export interface AttachmentTable {
  id: string;
  company_id: string;
  team_id: string;
  /** The card the attachment belongs to (also set for checklist-item attachments). */
  card_id: string;
  checklist_item_id: string | null;
  kind: AttachmentKind;
  name: string;
  original_name: string;
  /** For links, the target URL; for files, null (the API serves them at a download path). */
  link_url: string | null;
  /** For files, the path under the upload directory. */
  storage_key: string | null;
  mime_type: string;
  size_bytes: number;
  creator_id: string;
  is_deleted: Flag;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface AttachmentSeenTable {
  attachment_id: string;
  user_id: string;
  seen_at: string;
}

/** One request a rate-limit bucket admitted (rejected requests are never stored). */
export interface RateLimitHitTable {
  /** `<apiKeyId> <METHOD> <route template>` */
  bucket: string;
  /** The hit's number within its bucket: 0, 1, 2... in admission order (and so in time order). */
  seq: number;
  /** Epoch milliseconds when the request was admitted. */
  admitted_at: number;
}

export interface Database {
  users: UserTable;
  companies: CompanyTable;
  company_members: CompanyMemberTable;
  teams: TeamTable;
  team_members: TeamMemberTable;
  api_keys: ApiKeyTable;
  boards: BoardTable;
  lists: ListTable;
  label_colors: LabelColorTable;
  labels: LabelTable;
  cards: CardTable;
  card_members: CardMemberTable;
  card_labels: CardLabelTable;
  card_seen: CardSeenTable;
  checklists: ChecklistTable;
  checklist_items: ChecklistItemTable;
  checklist_item_members: ChecklistItemMemberTable;
  comments: CommentTable;
  discussions: DiscussionTable;
  cheers: CheerTable;
  attachments: AttachmentTable;
  attachment_seen: AttachmentSeenTable;
  rate_limit_hits: RateLimitHitTable;
}

/** What every repository function takes first: the database or a transaction. */
export type Executor = Kysely<Database>;

/**
 * What functions that take row locks accept: a transaction only (the database itself does not
 * compile there), since a lock held outside one would end with its statement.
 */
export type Transaction = KyselyTransaction<Database>;

export type Row<T extends keyof Database> = Selectable<Database[T]>;
export type NewRow<T extends keyof Database> = Insertable<Database[T]>;
export type RowUpdate<T extends keyof Database> = Updateable<Database[T]>;
