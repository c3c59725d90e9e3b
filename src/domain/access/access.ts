/**
 * Access: the one place that decides whether a caller reaches a thing, and the lock rule.
 *
 * Every service starts with `requireAccess` (or, for the items of a bulk request, `requireAccessToEach`):
 * given the caller, the kind of thing, its id, the request's scope and whether the write needs the
 * lock, it finds the owning card or team, takes the locks in the order below, checks reach and
 * answers the row, or a 404 (the existence of another company's data never leaks). Nothing else in
 * src/domain decides reach (test/unit/access-boundary.test.ts keeps it so).
 *
 * Reach: team members reach a team's resources; company owners and admins reach the whole company.
 * A request's `companyId`/`teamId` (its scope), when given, must match the resource too.
 * A board out of reach is still a 404, but a member of its company (whose key is not limited to
 * some teams) is told it is not shared with them and whom to ask (`notShared`,
 * docs/decisions/0261-not-shared-with-you.md): within a company, that a board exists may be known.
 *
 * Keys made to do less (`Caller.keyLimits`, docs/people.md "API keys") are held here too: a
 * read-only key is refused every write (`requireKeyPermits`, asked for every operation before its
 * handler), and a team-limited key reaches only its teams (404 elsewhere, as any reach), holds no
 * company-wide power (its companies see it as a member) and cannot widen itself (`requireFullKey`).
 *
 * The lock rule. A transaction keeps every row it wrote locked until it ends (where the database runs
 * write transactions side by side), so two transactions that lock the same rows in opposite orders
 * wait on each other in a circle: a deadlock, which the database breaks by aborting one of them.
 * Every transaction that changes cards therefore locks in one order:
 *
 *   1. the list it places cards in (`lockList`: Create Card, Reorder Card, the copies and moves),
 *      one list per transaction (lists that cards leave are not locked: see `renumberCards`);
 *   2. then cards, in id order and in one pass (`lockCards`, `lockCardRows` of
 *      src/domain/cards/recorder.ts): the cards the
 *      request changes or copies, together with the cards its placement renumbers (`placeCard`);
 *   3. then what belongs to those cards (checklists, items, members, labels, comments, cheers,
 *      attachments, `seen`), which nothing changes without holding its card.
 *
 * (A board comes before its lists: the lists service locks the board to place lists.) A transaction
 * holding a lock thus waits only for locks further down the order, so no circle can form. Where a
 * request learns what to lock only from rows it read before locking, it checks them again under the
 * locks and starts over when they changed (`ChangedMeanwhile`, run again by `inTransaction`, which
 * also runs again a transaction the database aborted as a deadlock's victim). Functions that take
 * locks, and the repository's writes of a card's world, accept a `Transaction`, not any executor,
 * so the compiler keeps them inside one.
 */
import type { CompanyRole, Executor, Transaction } from '../../storage/database.ts';
import { type AttachmentTableRow, findLiveAttachment } from '../../storage/repositories/attachments.ts';
import { type BoardTemplateRow, findBoardTemplate } from '../../storage/repositories/board-templates.ts';
import { type BoardRow, findBoardById, type Reach } from '../../storage/repositories/boards.ts';
import { type CardSeenRow, type CardTableRow, findCard, findCardSeenBy, findCardsById, lockCard } from '../../storage/repositories/cards.ts';
import { type ChecklistItemRow, findItem } from '../../storage/repositories/checklist-items.ts';
import { type ChecklistRow, findChecklist } from '../../storage/repositories/checklists.ts';
import { type CommentTableRow, type DiscussionTableRow, findComment, findDiscussion } from '../../storage/repositories/comments.ts';
import { type CustomFieldRow, findCustomField } from '../../storage/repositories/custom-fields.ts';
import { findEventReach } from '../../storage/repositories/events.ts';
import { findLabelById } from '../../storage/repositories/labels.ts';
import { findListById, type ListRow } from '../../storage/repositories/lists.ts';
import { findNotification, type NotificationRow } from '../../storage/repositories/notifications.ts';
import { findTeamScope, findWhomToAskForTeam } from '../../storage/repositories/teams.ts';
import { findWebhook, type WebhookRow } from '../../storage/repositories/webhooks.ts';
import { checkEachItem } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ForbiddenError, NotFoundError } from '../shared/errors.ts';
import { isExpected, requireExpectedVersion } from '../shared/preconditions.ts';

interface TeamOwned {
  company_id: string;
  team_id: string;
}

/** The caller's role makes it an owner or admin of the company (what reaching the company's teams needs). */
function hasAdminRole(caller: Caller, companyId: string): boolean {
  const role = caller.companyRoles.get(companyId);
  return role === 'owner' || role === 'admin';
}

/** Company-wide powers (webhooks, members, every team at once): an admin's, unless its key is limited to some teams. */
function isCompanyAdmin(caller: Caller, companyId: string): boolean {
  return hasAdminRole(caller, companyId) && !caller.keyLimits?.teams;
}

/** The caller belongs to the company, and its key (if limited to teams) holds a team of it. */
function reachesCompany(caller: Caller, companyId: string): boolean {
  if (!caller.companyRoles.has(companyId)) return false;
  const limit = caller.keyLimits?.teams;
  return !limit || [...limit.values()].includes(companyId);
}

function canReachTeam(caller: Caller, companyId: string, teamId: string): boolean {
  if (!caller.companyRoles.has(companyId)) return false;
  const limit = caller.keyLimits?.teams;
  if (limit && !limit.has(teamId)) return false;
  return caller.teamIds.has(teamId) || hasAdminRole(caller, companyId);
}

/** Whether the caller reaches a thing of a team (a notification's card, before its words are shown). */
export function reachesTeamOf(caller: Caller, row: TeamOwned): boolean {
  return canReachTeam(caller, row.company_id, row.team_id);
}

/**
 * The rows of things kept in a team (cards at the other end of a relation) that the caller reaches;
 * the others are left out without a word, so a listing never names what is out of reach.
 */
export function withinReach<T extends TeamOwned>(caller: Caller, rows: readonly T[]): T[] {
  return rows.filter((row) => canReachTeam(caller, row.company_id, row.team_id));
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * What a key's limits allow of an operation, by its method (every write of the API is a POST, PATCH
 * or DELETE): a read-only key is refused every write with a 403, whatever the operation and before
 * its input is read. Asked for every authenticated request (src/plugins/auth.ts).
 */
export function requireKeyPermits(caller: Caller, method: string): void {
  if (caller.keyLimits?.readOnly && !READ_METHODS.has(method)) {
    throw new ForbiddenError('This API key is read-only: it may not change anything (make a read-write key for writes)');
  }
}

/**
 * What would reach beyond a limited key's bounds (a new company or team, a new API key): only a
 * session or a key without limits may; `what` says what was refused.
 */
export function requireFullKey(caller: Caller, what: string, limits: 'teams' | 'any' = 'any'): void {
  const limited = limits === 'teams' ? caller.keyLimits?.teams : caller.keyLimits;
  if (limited) throw new ForbiddenError(`An API key with limits may not ${what}`);
}

function inReach(caller: Caller, row: TeamOwned, scope: Scope): boolean {
  return (
    canReachTeam(caller, row.company_id, row.team_id) &&
    (scope.companyId === undefined || scope.companyId === row.company_id) &&
    (scope.teamId === undefined || scope.teamId === row.team_id)
  );
}

/** The 404 for a thing out of reach (or not there); `field` names the request field it came from. */
function notFound(what: string, field?: string): NotFoundError {
  return field === undefined ? new NotFoundError(what) : new NotFoundError(what, [{ field, message: `${what.toLowerCase()} not found` }]);
}

/** The 404 rule: the row when the caller reaches it and it matches the scope, else a 404. */
function requireReach<T extends TeamOwned>(caller: Caller, row: T | undefined, what: string, scope: Scope = {}, field?: string): T {
  if (!row || !inReach(caller, row, scope)) throw notFound(what, field);
  return row;
}

/**
 * Moderation, not reach: owners and admins of the company may delete what others wrote there
 * (comments, replies). Asked only about a thing `requireAccess` already answered.
 */
export function mayModerate(caller: Caller, companyId: string): boolean {
  return hasAdminRole(caller, companyId);
}

/** A company the caller belongs to, with its role there. */
export interface CompanyAccess {
  id: string;
  role: CompanyRole;
}

export type TeamAccess = NonNullable<Awaited<ReturnType<typeof findTeamScope>>>;
export type LabelAccess = NonNullable<Awaited<ReturnType<typeof findLabelById>>>;

/** What a read answers, by kind. */
interface ReadRows {
  card: CardTableRow;
  /** What Get Card Details reads of the card: its reach columns, whether the caller has seen it (`seen_by` 1) and its stored view. */
  'card-view': CardSeenRow;
  list: ListRow;
  board: BoardRow;
  /** A board template, kept on its team: reached as the team's boards are. */
  'board-template': BoardTemplateRow;
  label: LabelAccess;
  'custom-field': CustomFieldRow;
  team: TeamAccess;
  checklist: ChecklistRow;
  item: ChecklistItemRow;
  /** A comment with its card, reached as its card is (a card moved to another team takes its comments along). */
  comment: { comment: CommentTableRow; card: CardTableRow } & TeamOwned;
}

/** What a locked write answers, by kind: the row, with the card it is kept with, locked. */
export interface LockedRows {
  card: { card: CardTableRow };
  checklist: { checklist: ChecklistRow; card: CardTableRow };
  item: { item: ChecklistItemRow; card: CardTableRow };
  comment: { comment: CommentTableRow; card: CardTableRow };
  discussion: { discussion: DiscussionTableRow; card: CardTableRow };
  attachment: { attachment: AttachmentTableRow; card: CardTableRow };
}

const NAMES: Record<keyof ReadRows | keyof LockedRows, string> = {
  card: 'Card',
  'card-view': 'Card',
  list: 'List',
  board: 'Board',
  'board-template': 'Board template',
  label: 'Label',
  'custom-field': 'Custom field',
  team: 'Team',
  checklist: 'Checklist',
  item: 'Checklist item',
  comment: 'Comment',
  discussion: 'Discussion',
  attachment: 'Attachment',
};

const FIND: { [K in keyof ReadRows]: (db: Executor, id: string, caller: Caller) => Promise<ReadRows[K] | undefined> } = {
  card: findCard,
  'card-view': (db, id, caller) => findCardSeenBy(db, id, caller.userId),
  list: findListById,
  board: findBoardById,
  'board-template': findBoardTemplate,
  label: findLabelById,
  'custom-field': findCustomField,
  team: findTeamScope,
  checklist: findChecklist,
  item: findItem,
  comment: async (db, id) => {
    const comment = await findComment(db, id);
    const card = comment && (await findCard(db, comment.card_id));
    return card && { comment: comment as CommentTableRow, card, company_id: card.company_id, team_id: card.team_id };
  },
};

interface Request {
  /** The request's `companyId`/`teamId`, when it names them. */
  scope?: Scope | undefined;
  /** How the 404 names the thing (default: the kind's name). */
  what?: string | undefined;
}

export interface ReadRequest<K extends keyof ReadRows> extends Request {
  kind: K;
  id: string;
  lock?: false;
  /** The request field the id came from, named in the 404's details. */
  field?: string | undefined;
}

export interface LockRequest<K extends keyof LockedRows> extends Request {
  kind: K;
  /** Undefined: nothing to find (a 404). */
  id: string | undefined;
  /** Takes the owning card's lock (step 2) before reach is decided. */
  lock: true;
}

export interface CompanyRequest {
  kind: 'company';
  id: string;
  scope?: Scope | undefined;
  /** Only the company's owners and admins (webhooks, the member and team listings): a member of it gets a 403. */
  admin?: boolean;
  /** What the 403 says to a member when `admin` is set. */
  refusal?: string;
  /** Only the company's owners (the audit log): anyone else in it gets a 403 saying `refusal`. */
  owner?: boolean;
}

/** A webhook: only owners and admins of its company reach it (a member gets a 403, anyone else a 404). */
export interface WebhookRequest {
  kind: 'webhook';
  id: string;
}

/** A thing that belongs to one user (a notification): only that user reaches it. */
export interface OwnRequest {
  kind: 'notification';
  id: string;
}

/**
 * A recorded event (a stream's Last-Event-ID): the caller reaches the events of the teams it
 * reaches, its companies' company-wide ones, and those addressed to it (its notifications, its keys).
 */
export interface EventRequest {
  kind: 'event';
  id: string;
}

/** A collection request: everything the caller reaches, narrowed by the scope. */
export interface CollectionRequest {
  kind: 'collection';
  scope: Scope;
}

/**
 * The one entry of access:
 * - a read (`lock` absent) answers the row when the caller reaches it, else a 404;
 * - a locked write (`lock: true`, inside a transaction) first takes the lock of the owning card
 *   (step 2 of the rule), then reads the thing under that lock and decides reach, then `If-Match`, by
 *   the card as it is now (read before the lock, a card moved meanwhile to another team would be
 *   judged, and new rows stamped, by the team it left). It writes nothing: the write it guards comes
 *   after, and records its change (src/domain/cards/recorder.ts);
 * - a company answers the caller's role there; a collection, what a listing may cover (a company or
 *   team named in the scope that the caller does not reach is a 404, not an empty collection);
 * - a notification answers its row to its owner only.
 */
export function requireAccess(db: Executor, caller: Caller, request: CollectionRequest): Promise<Reach>;
export function requireAccess(db: Executor, caller: Caller, request: CompanyRequest): Promise<CompanyAccess>;
export function requireAccess(db: Executor, caller: Caller, request: WebhookRequest): Promise<WebhookRow>;
export function requireAccess(db: Executor, caller: Caller, request: OwnRequest): Promise<NotificationRow>;
export function requireAccess(db: Executor, caller: Caller, request: EventRequest): Promise<void>;
export function requireAccess<K extends keyof ReadRows>(db: Executor, caller: Caller, request: ReadRequest<K>): Promise<ReadRows[K]>;
export function requireAccess<K extends keyof LockedRows>(trx: Transaction, caller: Caller, request: LockRequest<K>): Promise<LockedRows[K]>;
export async function requireAccess(
  db: Executor,
  caller: Caller,
  request: CollectionRequest | CompanyRequest | WebhookRequest | OwnRequest | EventRequest | ReadRequest<keyof ReadRows> | LockRequest<keyof LockedRows>,
): Promise<unknown> {
  if (request.kind === 'collection') return collectionReach(db, caller, request.scope);
  if (request.kind === 'event') return requireEventReach(caller, await findEventReach(db, request.id));
  if (request.kind === 'notification') return ownNotification(db, caller, request.id);
  if (request.kind === 'company') {
    const access = companyAccess(caller, request.id, request.scope ?? {});
    if (request.admin) requireCompanyAdmin(caller, access.id, request.refusal);
    if (request.owner && access.role !== 'owner') throw new ForbiddenError(request.refusal ?? 'Only company owners may do this');
    return access;
  }
  if (request.kind === 'webhook') {
    const webhook = await findWebhook(db, request.id);
    if (!webhook || !reachesCompany(caller, webhook.company_id)) throw new NotFoundError('Webhook');
    requireCompanyAdmin(caller, webhook.company_id);
    return webhook;
  }
  if ('lock' in request && request.lock) return lockedAccess(db as Transaction, caller, request);
  const { kind, id, scope = {}, field } = request as ReadRequest<keyof ReadRows>;
  const what = request.what ?? NAMES[kind];
  const row = await FIND[kind](db, id, caller);
  if (kind === 'board' && row && !inReach(caller, row, scope)) await requireSharedBoard(db, caller, row as BoardRow, scope, field);
  return requireReach(caller, row, what, scope, field);
}

/** How many of the company's owners and admins a "not shared" answer names. */
const WHOM_TO_ASK = 5;

/**
 * A board the caller does not reach: when the caller belongs to its company (with a key not limited
 * to some teams) and the request's scope does not point elsewhere, a 404 that says the board is not
 * shared with them, naming its team and whom to ask; else it returns, and the plain 404 follows.
 */
async function requireSharedBoard(db: Executor, caller: Caller, board: BoardRow, scope: Scope, field = 'boardId'): Promise<void> {
  if (!caller.companyRoles.has(board.company_id) || caller.keyLimits?.teams) return;
  if ((scope.companyId !== undefined && scope.companyId !== board.company_id) || (scope.teamId !== undefined && scope.teamId !== board.team_id)) return;
  const whom = await findWhomToAskForTeam(db, board.team_id, WHOM_TO_ASK);
  if (!whom) return;
  const names = whom.people.map((person) => person.full_name);
  throw new NotFoundError('Board', [
    {
      field,
      reason: 'not-shared',
      message: `this board is not shared with you: ask ${names.length ? names.join(', ') : 'an owner or admin of the company'} to add you to the team ${whom.teamName}`,
      companyName: whom.companyName,
      teamName: whom.teamName,
      askPeople: whom.people.map((person) => ({ _id: person.id, fullName: person.full_name, role: person.role })),
    },
  ]);
}

function requireCompanyAdmin(caller: Caller, companyId: string, refusal = 'Only company owners and admins may manage webhooks'): void {
  if (!isCompanyAdmin(caller, companyId)) throw new ForbiddenError(refusal);
}

/**
 * The caller's own companies and teams as a key limited to teams sees them (Get Me, Get Companies,
 * Get Current Teams): those of its teams only. Anyone else sees all of them.
 */
export function withinKeyTeams<C extends { id: string }, T extends { id: string; company_id: string }>(
  caller: Caller,
  own: { companies?: readonly C[]; teams?: readonly T[] },
): { companies: C[]; teams: T[] } {
  return {
    companies: (own.companies ?? []).filter((company) => reachesCompany(caller, company.id)),
    teams: (own.teams ?? []).filter((team) => canReachTeam(caller, team.company_id, team.id)),
  };
}

/** The companies where the caller is an owner or admin (what a webhook listing covers). */
export function adminCompanies(caller: Caller): string[] {
  return [...caller.companyRoles.keys()].filter((id) => isCompanyAdmin(caller, id));
}

function companyAccess(caller: Caller, companyId: string, scope: Scope): CompanyAccess {
  const role = caller.companyRoles.get(companyId);
  if (!role || !reachesCompany(caller, companyId) || (scope.companyId !== undefined && scope.companyId !== companyId)) throw new NotFoundError('Company');
  // a key limited to teams acts in the company as a member: no company-wide power
  return { id: companyId, role: caller.keyLimits?.teams ? 'member' : role };
}

/** An event the caller reaches (see EventRequest); any other, like one not recorded, is a 404. */
function requireEventReach(caller: Caller, event: { company_id: string | null; team_id: string | null; user_id: string | null } | undefined): void {
  if (!event) throw new NotFoundError('Event');
  if (event.user_id === caller.userId) return;
  if (event.company_id !== null && event.team_id !== null && canReachTeam(caller, event.company_id, event.team_id)) return;
  if (event.company_id !== null && event.team_id === null && reachesCompany(caller, event.company_id)) return;
  throw new NotFoundError('Event');
}

/** The caller's own notification; anyone else's is a 404, like a thing out of reach. */
async function ownNotification(db: Executor, caller: Caller, id: string): Promise<NotificationRow> {
  const row = await findNotification(db, id);
  if (!row || row.user_id !== caller.userId) throw new NotFoundError('Notification');
  return row;
}

async function collectionReach(db: Executor, caller: Caller, scope: Scope): Promise<Reach> {
  if (scope.teamId !== undefined) {
    requireReach(caller, await findTeamScope(db, scope.teamId), 'Team', { companyId: scope.companyId });
  } else if (scope.companyId !== undefined && !reachesCompany(caller, scope.companyId)) {
    throw new NotFoundError('Company');
  }
  const companyIds = [...caller.companyRoles.keys()].filter((id) => reachesCompany(caller, id));
  const limit = caller.keyLimits?.teams;
  return {
    companyIds,
    adminCompanyIds: companyIds.filter((id) => isCompanyAdmin(caller, id)),
    teamIds: limit ? [...limit].filter(([teamId, companyId]) => canReachTeam(caller, companyId, teamId)).map(([teamId]) => teamId) : [...caller.teamIds],
    companyId: scope.companyId,
    teamId: scope.teamId,
  };
}

/** The card's lock taken, then its row read under it and checked: there, reach, then `If-Match`. */
async function lockReachedCard(trx: Transaction, caller: Caller, cardId: string | undefined, what: string, scope: Scope): Promise<CardTableRow> {
  const card = requireReach(caller, cardId === undefined ? undefined : await lockCard(trx, cardId), what, scope);
  requireCardVersion(trx, caller, card);
  return card;
}

/** The `If-Match` check of a card read under its lock, before this write changes it. Decided after reach, so a 412 never tells of a card out of the caller's reach. */
export function requireCardVersion(trx: Transaction, caller: Caller, card: CardTableRow): void {
  requireExpectedVersion(trx, caller, 'card', card.id, Number(card.version));
}

async function lockedAccess(trx: Transaction, caller: Caller, request: LockRequest<keyof LockedRows>): Promise<LockedRows[keyof LockedRows]> {
  const { kind, id, scope = {} } = request;
  const what = request.what ?? NAMES[kind];
  if (id === undefined) throw new NotFoundError(what);
  switch (kind) {
    case 'card':
      return { card: await lockReachedCard(trx, caller, id, what, scope) };
    case 'checklist':
    case 'item': {
      // Kept with a card: reached through it, then read again under its lock, so the row is what
      // this transaction works on (its team, had the card moved meanwhile). The card a checklist or
      // item sits on never changes.
      const find = FIND[kind] as (db: Executor, id: string, caller: Caller) => Promise<(ChecklistRow & ChecklistItemRow) | undefined>;
      const seen = await find(trx, id, caller);
      const card = await lockReachedCard(trx, caller, seen?.card_id, what, scope);
      const row = requireReach(caller, await find(trx, id, caller), what, scope);
      requireExpectedVersion(trx, caller, kind, row.id, row.version);
      return kind === 'checklist' ? { checklist: row, card } : { item: row, card };
    }
    case 'comment': {
      const comment = await findComment(trx, id);
      const card = await lockReachedCard(trx, caller, comment?.card_id, what, scope);
      // read before the card's lock: read again under it to compare its revision
      if (isExpected(caller, kind, id)) requireExpectedVersion(trx, caller, kind, id, (await findComment(trx, id))!.version);
      return { comment: comment as CommentTableRow, card };
    }
    case 'discussion': {
      const discussion = await findDiscussion(trx, id);
      const card = await lockReachedCard(trx, caller, discussion?.card_id, what, scope);
      if (isExpected(caller, kind, id)) requireExpectedVersion(trx, caller, kind, id, (await findDiscussion(trx, id))!.version);
      return { discussion: discussion as DiscussionTableRow, card };
    }
    case 'attachment': {
      const attachment = await findLiveAttachment(trx, id);
      const card = await lockReachedCard(trx, caller, attachment?.card_id, what, scope);
      return { attachment: attachment as AttachmentTableRow, card };
    }
  }
}

/** An item of a bulk request: the card it names, and the company and team it says the card is in. */
export interface CardRef {
  cardId: string;
  scope: Scope;
}

/**
 * The bulk form of `requireAccess` for cards: every item of the request checked (the caller reaches
 * its card, in its scope), then `check` on the item's card; any failing item rejects the request,
 * naming each failing index (`checkEachItem`). Rows already read under the cards' locks may be
 * passed as `rows`; else they are read here.
 */
export async function requireAccessToEach<T, R = CardTableRow>(
  db: Executor,
  caller: Caller,
  request: {
    items: readonly T[];
    field: string;
    refOf: (item: T) => CardRef;
    rows?: ReadonlyMap<string, CardTableRow> | undefined;
    check?: (card: CardTableRow, item: T) => R | Promise<R>;
  },
): Promise<R[]> {
  const { items, field, refOf } = request;
  const rows =
    request.rows ??
    (await findCardsById(
      db,
      items.map((item) => refOf(item).cardId),
    ));
  const check = request.check ?? ((card: CardTableRow) => card as R);
  return checkEachItem(items, field, async (item) => {
    const { cardId, scope } = refOf(item);
    return check(requireReach(caller, rows.get(cardId), 'Card', scope), item);
  });
}
