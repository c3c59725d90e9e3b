/**
 * The audit log (docs/people.md, "Audit log"): who did what to whose access, when, from where.
 * Entries are appended in the transaction of the change they record when there is one (a refused or
 * rolled-back change leaves none), else at once (a failed sign-in). An entry names its company, so
 * that the company's owners read it; what concerns a person rather than a company (a sign-in, a
 * password) is written once for each company the person belongs to then. No entry holds a secret:
 * details are the few fields each caller names, never a body, a token or a code.
 */
import type { AuditKind } from '../../schemas/audit.ts';
import type { Executor, NewRow } from '../../storage/database.ts';
import { insertAuditEntries } from '../../storage/repositories/audit-log.ts';
import { findCompaniesOfUser, findUserById } from '../../storage/repositories/users.ts';
import type { Caller, ClientMeta } from '../shared/caller.ts';
import { newOrderedId, nowIso } from '../shared/ids.ts';

/** Who acted: a person (by a session or a key), or nobody known (a failed sign-in of an unknown email). */
export interface AuditActor {
  userId: string | null;
  apiKeyId?: string | null | undefined;
  client?: ClientMeta | undefined;
}

export function actorOf(caller: Caller): AuditActor {
  return { userId: caller.userId, apiKeyId: caller.apiKeyId, client: caller.client };
}

export type AuditDetail = string | number | boolean | null | readonly string[];

export interface AuditRecord {
  kind: AuditKind;
  /** The company whose owners read it, or `{ ofUser }`: each company of that person. */
  company: string | null | { ofUser: string };
  target?: { type: string; id: string } | undefined;
  details?: Record<string, AuditDetail> | undefined;
}

const AGENT_MAX = 512;

/** Appends the entries of `record` (one per company it concerns). */
export async function recordAudit(db: Executor, actor: AuditActor, record: AuditRecord, at: string = nowIso()): Promise<void> {
  const companies =
    record.company !== null && typeof record.company === 'object'
      ? (await findCompaniesOfUser(db, record.company.ofUser)).map((company) => company.id)
      : [record.company];
  const actorUser = actor.userId === null ? undefined : await findUserById(db, actor.userId);
  const base = {
    at,
    kind: record.kind,
    actor_id: actor.userId,
    actor_email: actorUser?.email ?? null,
    api_key_id: actor.apiKeyId ?? null,
    ip: actor.client?.ip ?? null,
    user_agent: actor.client?.userAgent?.slice(0, AGENT_MAX) ?? null,
    target_type: record.target?.type ?? null,
    target_id: record.target?.id ?? null,
    details: JSON.stringify(record.details ?? {}),
  };
  const rows: NewRow<'audit_log'>[] = (companies.length ? companies : [null]).map((company) => ({
    ...base,
    id: newOrderedId(Date.parse(at)),
    company_id: company,
  }));
  await insertAuditEntries(db, rows);
}

/**
 * The recorded events that are security or administration events too (keys, memberships, roles,
 * imports, board deletions): `writeEvents` hands each to the audit log in the same transaction.
 * Their data are what the event record already holds, which never carries a secret.
 */
const AUDITED_EVENT_TYPES: readonly AuditKind[] = [
  'apikey.created',
  'apikey.revoked',
  'apikey.rotated',
  'calendarfeed.created',
  'calendarfeed.revoked',
  'company.member.added',
  'member.role.changed',
  'member.removed',
  'member.left',
  'team.member.added',
  'team.member.removed',
  'team.member.left',
  'board.imported',
  'board.deleted',
];
const AUDITED_EVENTS: ReadonlySet<string> = new Set(AUDITED_EVENT_TYPES);

/** Whether an event of this type is also an entry of the audit log (its kind is the event's type). */
export function isAuditedEvent(type: string): type is AuditKind {
  return AUDITED_EVENTS.has(type);
}

/** What an audited event was about: its key, its person, its board. */
export function eventTarget(event: { user?: string | null; board?: string | null; team?: string | null; data: Record<string, unknown> }) {
  if (typeof event.data.apiKey === 'string') return { type: 'api_key', id: event.data.apiKey };
  if (event.board) return { type: 'board', id: event.board };
  if (event.user) return { type: 'user', id: event.user };
  if (event.team) return { type: 'team', id: event.team };
  return undefined;
}

/** The scalar fields of an event's data (names, roles, counts, ids), as an entry's details. */
export function eventDetails(event: { team?: string | null; data: Record<string, unknown> }): Record<string, AuditDetail> {
  const details: Record<string, AuditDetail> = {};
  for (const [key, value] of Object.entries(event.data)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) details[key] = value as AuditDetail;
  }
  if (event.team) details.team = event.team;
  return details;
}
