import type { Generated, Insertable, Kysely, Transaction as KyselyTransaction, Selectable, Updateable } from 'kysely';

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

/** What every row someone made keeps: its id, creator and stamps (`version` is the record's `__v`). */
export interface MadeRow {
  id: string;
  creator_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

/** A row made in a team: `MadeRow` with the company and team it belongs to. */
export interface MadeInTeamRow extends MadeRow {
  company_id: string;
  team_id: string;
}

export interface UserTable {
  id: string;
  email: string;
  full_name: string;
  photo_url: string;
  created_at: string;
  updated_at: string;
  /** argon2id PHC string; null: the user cannot sign in with a password (API keys, single sign-on). */
  password_hash: Generated<string | null>;
  /** Whether the user's notifications are emailed too (0/1). */
  email_notifications: Generated<Flag>;
  /** The language they picked (`en`, `de`, `fr`, `ar`); null: the browser's, and English for mail. */
  locale: Generated<string | null>;
  /** The IANA time zone they picked (`Europe/Berlin`); null: the browser's (UTC for their mails). */
  time_zone: Generated<string | null>;
  /** How their notification mail comes: `minute` (a digest a minute after the first) or `daily` (a morning summary). */
  email_cadence: Generated<'minute' | 'daily'>;
  /** The local date (YYYY-MM-DD in `time_zone`) of the last daily summary sent to them. */
  summary_sent_on: Generated<string | null>;
}

export type CompanyRole = 'owner' | 'admin' | 'member';

export interface CompanyTable extends MadeRow {
  name: string;
  /** Whether its members must have a second factor to sign in (0/1; migration 0097). */
  require_second_factor: Generated<Flag>;
  /** Whether its members other than its owners sign in through single sign-on only (0/1; migration 0106). */
  single_sign_on_only: Generated<Flag>;
}

export interface CompanyMemberTable {
  company_id: string;
  user_id: string;
  role: CompanyRole;
  created_at: string;
}

export interface TeamTable extends MadeRow {
  company_id: string;
  name: string;
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
  /** What the key may do (migration 0045): every operation, or only reads. */
  access: Generated<ApiKeyAccess>;
  /** 1: the key reaches only the teams of `api_key_teams`. */
  team_limited: Generated<number>;
  /** Past this, the key is refused; null: never. */
  expires_at: string | null;
  /** The client address of the use `last_used_at` records. */
  last_used_ip: string | null;
}

/** An entry of the audit log (migration 0046): append-only, tied to nothing by a foreign key. */
export interface AuditLogTable {
  id: string;
  at: string;
  company_id: string | null;
  kind: string;
  actor_id: string | null;
  actor_email: string | null;
  api_key_id: string | null;
  ip: string | null;
  user_agent: string | null;
  target_type: string | null;
  target_id: string | null;
  details: string;
}

export type ApiKeyAccess = 'read-only' | 'read-write';

/** A team a team-limited key reaches (migration 0045), with the team's company. */
export interface ApiKeyTeamTable {
  api_key_id: string;
  team_id: string;
  company_id: string;
}

export interface BoardTable extends MadeInTeamRow {
  name: string;
  description: Generated<string>;
  archived: Generated<Flag>;
  archived_at: Generated<string | null>;
  /** Marked deleted: hidden from every read until the sweeper removes it. */
  deleted_at: Generated<string | null>;
  /** Moves when a label of the board is renamed or recoloured: stored card views built before no longer count. */
  labels_stamp: Generated<number>;
}

export interface ListTable extends MadeInTeamRow {
  board_id: string;
  name: string;
  position: number;
  archived: Generated<Flag>;
  archived_at: Generated<string | null>;
  deleted_at: Generated<string | null>;
}

export interface LabelColorTable {
  id: string;
  name: string;
  hex: string;
  position: number;
}

export interface LabelTable extends MadeInTeamRow {
  board_id: string;
  name: string;
  color_id: string;
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
  /** The overdue notice was sent for the present due date (migration 0091). */
  notified_overdue: Generated<Flag>;
  archived: Generated<Flag>;
  archived_at: Generated<string | null>;
  is_public: Generated<Flag>;
  /** A template of its board: new cards are copied from it (docs/decisions/0302). */
  is_template: Generated<Flag>;
  workload_value: Generated<number | null>;
  workload_measurement: Generated<string>;
  created_at: string;
  updated_at: string;
  version: Generated<number>;
  /** Marked deleted with its list or board: hidden from every read until the sweeper removes it. */
  deleted_at: Generated<string | null>;
}

export interface CardMemberTable {
  card_id: string;
  user_id: string;
  created_at: string;
}

/** A person watching a card: told of it as its members are (migration 0090). */
export interface CardWatcherTable {
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

export interface ChecklistTable extends MadeInTeamRow {
  card_id: string;
  name: string;
  position: number;
}

export interface ChecklistItemTable extends MadeInTeamRow {
  card_id: string;
  checklist_id: string;
  name: string;
  position: number;
  date: string | null;
  complete_status: Flag;
  complete_set_at: string | null;
}

export interface ChecklistItemMemberTable {
  item_id: string;
  user_id: string;
  created_at: string;
}

export interface CommentTable extends MadeInTeamRow {
  card_id: string;
  content: string;
}

export interface DiscussionTable extends MadeInTeamRow {
  card_id: string;
  comment_id: string;
  content: string;
}

export type CheerParentType = 'card' | 'comment' | 'discussion' | 'attachment' | 'checklistItem';

export interface CheerTable extends MadeInTeamRow {
  content: string;
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
}

export type AttachmentKind = 'file' | 'link';

export interface AttachmentTable extends MadeInTeamRow {
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
  /** For files, the SHA-256 of the bytes (hex); null for links and for files stored before checksums. */
  sha256: string | null;
  is_deleted: Flag;
  deleted_at: string | null;
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

/**
 * One change, recorded in the transaction that made it (src/domain/events/record.ts). `seq` grows
 * with each insert; on PostgreSQL `tx` (the inserting transaction's id, `xid8`) orders the feed
 * too, so that a reader never passes an event that commits later (src/storage/dialect.ts, eventFeed).
 */
export interface EventTable {
  seq: Generated<number>;
  tx?: Generated<string>;
  id: string;
  type: string;
  company_id: string | null;
  team_id: string | null;
  board_id: string | null;
  card_id: string | null;
  user_id: string | null;
  actor_user_id: string | null;
  actor_api_key_id: string | null;
  /** The board rule whose run made the change (migration 0065), and its name then. */
  actor_rule_id?: string | null;
  actor_rule_name?: string | null;
  request_id: string | null;
  created_at: string;
  /** JSON text: the event's `data`. */
  data: string;
}

/**
 * A company's subscription to its events (src/domain/webhooks). The filters are JSON arrays of ids
 * or type patterns (empty: every team or board). The secrets are kept as issued (`whsec_…`): signing
 * needs them; the API shows them only when it issues one.
 */
export interface WebhookTable extends MadeRow {
  company_id: string;
  url: string;
  team_ids: string;
  board_ids: string;
  event_types: string;
  enabled: Flag;
  /** It receives the events recorded from then on: its creation, or when it was last enabled again. */
  receiving_since: string;
  disabled_reason: string | null;
  secret: string;
  /** The secret a rotation replaced, still signing beside the new one until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * One event to send to one webhook. It holds the body it sends, so it needs nothing of the event
 * record (event retention may prune the event meanwhile). `ordinal` orders a webhook's deliveries
 * in feed order; `lease_owner`/`lease_until` mark the instance sending it now.
 */
export interface WebhookDeliveryTable {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  ordinal: number;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  first_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** The webhook fan-out's place in the event feed (one row), and the next delivery ordinal. */
export interface WebhookFeedTable {
  id: string;
  position: string | null;
  next_ordinal: number;
}

/** One user told of something (migration 0008; src/domain/notifications/). */
export interface NotificationTable {
  id: string;
  user_id: string;
  type: string;
  company_id: string | null;
  team_id: string | null;
  card_id: string | null;
  comment_id: string | null;
  discussion_id: string | null;
  cheer_id: string | null;
  reminder: string | null;
  actor_user_id: string | null;
  read_at: string | null;
  created_at: string;
}

/**
 * The first answer to a request sent with an `Idempotency-Key`, kept per caller (the API key's user)
 * and key: `running` while the first request runs (a repeat then answers 409; past `locked_until`
 * the first is taken for lost and the key may be claimed again), `done` with the answer to replay.
 */
export interface IdempotencyKeyTable {
  user_id: string;
  key: string;
  /** SHA-256 of the method, URL and body: a repeat must be the same request. */
  fingerprint: string;
  state: 'running' | 'done';
  status: number | null;
  /** JSON object of the answer's headers that are replayed. */
  headers: string | null;
  body: string | null;
  created_at: string;
  locked_until: string;
  expires_at: string;
}

export interface Database {
  users: UserTable;
  companies: CompanyTable;
  company_members: CompanyMemberTable;
  teams: TeamTable;
  team_members: TeamMemberTable;
  api_keys: ApiKeyTable;
  api_key_teams: ApiKeyTeamTable;
  audit_log: AuditLogTable;
  boards: BoardTable;
  lists: ListTable;
  label_colors: LabelColorTable;
  labels: LabelTable;
  cards: CardTable;
  card_members: CardMemberTable;
  card_watchers: CardWatcherTable;
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
  events: EventTable;
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_feed: WebhookFeedTable;
  released_files: ReleasedFileTable;
  multipart_uploads: MultipartUploadTable;
  notifications: NotificationTable;
  idempotency_keys: IdempotencyKeyTable;
  card_views: CardViewTable;
  card_view_stamps: CardViewStampTable;
  sessions: SessionTable;
  invitations: InvitationTable;
  password_resets: PasswordResetTable;
  sign_in_failures: SignInFailureTable;
  mail_outbox: MailOutboxTable;
  mail_feed: MailFeedTable;
  oidc_logins: OidcLoginTable;
  totp_factors: TotpFactorTable;
  recovery_codes: RecoveryCodeTable;
  sign_in_challenges: SignInChallengeTable;
  server_keys: ServerKeyTable;
  passkeys: PasskeyTable;
  webauthn_challenges: WebauthnChallengeTable;
  imports: ImportTable;
  rules: RuleTable;
  rule_runs: RuleRunTable;
  rule_board_hours: RuleBoardHourTable;
  rule_feed: MailFeedTable;
  recurrences: RecurrenceTable;
  recurrence_occurrences: RecurrenceOccurrenceTable;
  custom_fields: CustomFieldTable;
  custom_field_options: CustomFieldOptionTable;
  card_field_values: CardFieldValueTable;
  card_field_choices: CardFieldChoiceTable;
  calendar_feeds: CalendarFeedTable;
  board_stars: BoardStarTable;
  board_viewers: BoardViewerTable;
  card_relations: CardRelationTable;
  board_templates: BoardTemplateTable;
  import_unmapped_places: ImportUnmappedPlaceTable;
  import_invitations: ImportInvitationTable;
}

/** A board template of a team (migration 0111, src/domain/templates): its lists, labels, fields and rules as JSON text. */
export interface BoardTemplateTable {
  id: string;
  company_id: string;
  team_id: string;
  name: string;
  description: string;
  content: string;
  source_board_id: string | null;
  creator_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

/** Where an unmapped person of an import was (migration 0110): a card, or a checklist item of it. */
export interface ImportUnmappedPlaceTable {
  import_id: string;
  person_key: string;
  card_id: string;
  checklist_item_id: string | null;
}

/** An invitation standing for a person of an import (migration 0114). */
export interface ImportInvitationTable {
  invitation_id: string;
  import_id: string;
  person_key: string;
}

/** A person's secret iCalendar URL (migration 0105): only the token's SHA-256 is kept. */
export interface CalendarFeedTable {
  id: string;
  user_id: string;
  /** The board the feed shows; null: the person's My Tasks. */
  board_id: string | null;
  token_hash: string;
  /** The token's first characters, to tell feeds apart in a listing. */
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
}

/** People sign in (migration 0013): docs/people.md. Tokens are stored as their SHA-256 only. */
export interface SessionTable {
  id: string;
  user_id: string;
  token_hash: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  user_agent: string | null;
  ip: string | null;
  ended_at: string | null;
}

export interface InvitationTable {
  id: string;
  company_id: string;
  email: string;
  role: CompanyRole;
  /** JSON array of team ids. */
  team_ids: string;
  inviter_id: string | null;
  token_hash: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
  /** The board whose Share button made it (migration 0075): the invitee lands there. */
  board_id: string | null;
}

export interface PasswordResetTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SignInFailureTable {
  subject: string;
  at: string;
}

/** A single sign-on begun, until its callback (migration 0035): found by the SHA-256 of the browser's handle. */
export interface OidcLoginTable {
  handle_hash: string;
  state: string;
  nonce: string;
  code_verifier: string;
  next_path: string;
  expires_at: string;
}

/** A person's authenticator app (migration 0097): the secret sealed, confirmed by a first code. */
export interface TotpFactorTable {
  user_id: string;
  secret_sealed: string;
  created_at: string;
  confirmed_at: string | null;
  /** The last time step a code was accepted for; it and older ones are refused. */
  last_step: number | null;
}

/** A single-use recovery code (migration 0097): its SHA-256 only. */
export interface RecoveryCodeTable {
  id: string;
  user_id: string;
  code_hash: string;
  created_at: string;
  used_at: string | null;
}

/** A right password waiting for its second factor (migration 0097): found by the SHA-256 of its token. */
export interface SignInChallengeTable {
  token_hash: string;
  user_id: string;
  purpose: 'second_factor' | 'enrol';
  method: string;
  attempts: Generated<number>;
  created_at: string;
  expires_at: string;
}

/** A key that seals second-factor secrets when no SECOND_FACTOR_KEY is set (migration 0097). */
export interface ServerKeyTable {
  id: string;
  secret: string;
  created_at: string;
}

/** A person's passkey (migration 0098): the public key only. */
export interface PasskeyTable {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: Generated<number | string>;
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** A WebAuthn ceremony waiting for the browser (migration 0098). */
export interface WebauthnChallengeTable {
  handle_hash: string;
  user_id: string | null;
  purpose: 'register' | 'sign_in' | 'second_factor';
  challenge: string;
  expires_at: string;
}

export interface MailOutboxTable {
  id: string;
  to_address: string;
  kind: 'message' | 'notification';
  user_id: string | null;
  subject: string;
  body: string;
  created_at: string;
  attempts: Generated<number>;
  next_attempt_at: string;
  sent_at: string | null;
  last_error: string | null;
  /** The language the mail is written in (a digest's subject and footer follow it); null: English. */
  language: Generated<string | null>;
}

/** Where the notification mail job stands in the event feed (migration 0030). */
export interface MailFeedTable {
  id: string;
  position: string | null;
}

/**
 * A card's record as Get Card Details answers it, with the stamps it was built from (migration 0009):
 * it counts only while they are all still the card's, its board's and the users' stamps.
 */
export interface CardViewTable {
  card_id: string;
  form: string;
  card_version: number;
  labels_stamp: number;
  users_stamp: number;
  body: string;
}

/** Stamps of what any card may show, by name (`users`: names and photos). */
export interface CardViewStampTable {
  name: string;
  stamp: number;
}

/** A stored file whose attachment record went with its card: the purge removes it later. */
export interface ReleasedFileTable {
  storage_key: string;
  released_at: string;
}

/** A multipart upload to a bucket, begun and not yet completed or aborted (`store`: the bucket's description). */
export interface MultipartUploadTable {
  upload_id: string;
  store: string;
  storage_key: string;
  begun_at: string;
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

export type ImportSource = 'trello' | 'taskboard';
export type ImportStatus = 'running' | 'done' | 'failed';

/** A board import (migration 0036): its board stays marked deleted until the import publishes it. */
export interface ImportTable {
  id: string;
  company_id: string;
  team_id: string;
  user_id: string;
  source: ImportSource;
  status: ImportStatus;
  board_id: string;
  board_name: string;
  cards_total: number;
  cards_done: number;
  /** JSON text: the import's report. */
  report: string;
  error: string | null;
  request_id: string | null;
  /** While running: past this time without renewal, the import counts as interrupted. */
  lease_until: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** A board rule (migration 0065, src/domain/rules): JSON text for its trigger, conditions and actions. */
export interface RuleTable {
  id: string;
  company_id: string;
  team_id: string;
  board_id: string;
  name: string;
  trigger: string;
  conditions: string;
  actions: string;
  enabled: number;
  paused_reason: string | null;
  author_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

/** One rule's run for one triggering event (or a card's due date): filed once, done once. */
export interface RuleRunTable {
  id: string;
  rule_id: string;
  board_id: string;
  trigger_key: string;
  event_id: string | null;
  card_id: string | null;
  depth: number;
  status: 'pending' | 'done' | 'skipped' | 'failed';
  reason: string | null;
  actions_taken: number;
  changes: string;
  created_at: string;
  finished_at: string | null;
}

/** The actions a board's rules took in one hour (the hourly limit). */
export interface RuleBoardHourTable {
  board_id: string;
  hour: string;
  actions: number;
}

/** A recurring card (migration 0066, src/domain/recurrences). */
export interface RecurrenceTable {
  id: string;
  company_id: string;
  team_id: string;
  board_id: string;
  list_id: string;
  position: 'top' | 'bottom';
  name: string;
  card: string;
  rule: string;
  starts_at: string;
  time_zone: string;
  missed: 'create' | 'skip';
  enabled: number;
  paused_reason: string | null;
  author_id: string;
  next_at: string | null;
  made: number;
  created_at: string;
  updated_at: string;
  version: number;
}

/** An occurrence of a recurring card, made once. */
export interface RecurrenceOccurrenceTable {
  recurrence_id: string;
  occurs_at: string;
  card_id: string;
  created_at: string;
}

/** A board's custom field (migration 0055): docs/decisions/0132. */
export interface CustomFieldTable extends MadeInTeamRow {
  board_id: string;
  name: string;
  type: string;
  unit: Generated<string>;
  position: number;
  show_on_card: Generated<Flag>;
}

/** An option of a select or multi select field, coloured from the label palette. */
export interface CustomFieldOptionTable {
  id: string;
  field_id: string;
  name: string;
  color_id: string;
  position: number;
}

/** A card's value of a field that is not a select: text, url, date and person in `text_value`, number and checkbox in `number_value`. */
export interface CardFieldValueTable {
  card_id: string;
  field_id: string;
  text_value: string | null;
  number_value: number | null;
}

/** An option chosen on a card for a select or multi select field. */
export interface CardFieldChoiceTable {
  card_id: string;
  field_id: string;
  option_id: string;
}

/** A person's star on a board (migration 0113): docs/decisions/0276-starred-boards.md. */
export interface BoardStarTable {
  user_id: string;
  board_id: string;
  created_at: string;
}

/** Someone viewing a board now through one open stream (migration 0093): docs/decisions/0260. */
export interface BoardViewerTable {
  id: string;
  board_id: string;
  user_id: string;
  joined_at: string;
  seen_until: string;
}

/** Card relations (migration 0100): `from` kind `to`; a "relates" row keeps the smaller id first. */
export interface CardRelationTable {
  id: string;
  company_id: string;
  from_card_id: string;
  to_card_id: string;
  kind: 'blocks' | 'relates' | 'duplicates';
  creator_id: string;
  created_at: string;
}
