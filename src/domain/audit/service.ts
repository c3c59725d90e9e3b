/**
 * Reading the audit log: a company's owners page through it newest first (filtered by person, kind
 * and time) and export it as CSV or JSON Lines; entries past the retention are pruned.
 */
import type { AuditKind } from '../../schemas/audit.ts';
import { type AuditRow, deleteAuditEntriesBefore, listAuditEntries } from '../../storage/repositories/audit-log.ts';
import { requireAccess } from '../access/access.ts';
import { csv, SPREADSHEET_SAFE_CSV } from '../boards/export.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCreationKey, type Page, toPage } from '../shared/pagination.ts';
import { actorOf, recordAudit } from './log.ts';

export interface AuditEntry {
  _id: string;
  at: string;
  kind: AuditKind;
  actor: { _id: string; email: string | null } | null;
  apiKey: string | null;
  ip: string | null;
  userAgent: string | null;
  target: { type: string; id: string } | null;
  details: Record<string, unknown>;
}

export interface AuditQuery {
  actor?: string | undefined;
  kind?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

export function auditEntryRecord(row: AuditRow): AuditEntry {
  return {
    _id: row.id,
    at: row.at,
    // written only through recordAudit, whose kinds are typed against the list
    kind: row.kind as AuditKind,
    actor: row.actor_id === null ? null : { _id: row.actor_id, email: row.actor_email },
    apiKey: row.api_key_id,
    ip: row.ip,
    userAgent: row.user_agent,
    target: row.target_type === null || row.target_id === null ? null : { type: row.target_type, id: row.target_id },
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}

const OWNERS_ONLY = 'Only company owners may read its audit log';

function filterOf(companyId: string, query: AuditQuery) {
  return {
    companyId,
    actorId: query.actor,
    kind: query.kind,
    since: query.since === undefined ? undefined : new Date(query.since).toISOString(),
    until: query.until === undefined ? undefined : new Date(query.until).toISOString(),
  };
}

/** A page of the company's audit log, newest first; owners only (403 for its other members, 404 for anyone else). */
export async function listAuditLog(ctx: ServiceContext, caller: Caller, companyId: string, query: AuditQuery): Promise<Page<AuditEntry>> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, owner: true, refusal: OWNERS_ONLY });
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, isCreationKey);
  const rows = await listAuditEntries(ctx.db, { ...filterOf(companyId, query), after }, limit + 1);
  const page = toPage(rows, limit, (row) => [row.at, row.id]);
  return { items: page.items.map(auditEntryRecord), nextCursor: page.nextCursor };
}

export type AuditExportFormat = 'csv' | 'jsonl';

/** Entries an export reads per statement. */
const EXPORT_BATCH = 500;

const CSV_COLUMNS = ['id', 'at', 'kind', 'actor_id', 'actor_email', 'api_key_id', 'ip', 'user_agent', 'target_type', 'target_id', 'details'] as const;

/**
 * The whole (filtered) log as CSV or JSON Lines, newest first, read in batches so that a long log
 * is never held at once. The export is itself an entry of the log, written before the first line.
 */
export async function exportAuditLog(
  ctx: ServiceContext,
  caller: Caller,
  companyId: string,
  query: Omit<AuditQuery, 'cursor' | 'limit'>,
  format: AuditExportFormat,
): Promise<AsyncIterable<string>> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, owner: true, refusal: OWNERS_ONLY });
  const filter = filterOf(companyId, query);
  await recordAudit(ctx.db, actorOf(caller), {
    kind: 'audit_log.exported',
    company: companyId,
    details: { format, ...(query.actor ? { actor: query.actor } : {}), ...(query.kind ? { kind: query.kind } : {}) },
  });
  return (async function* lines() {
    if (format === 'csv') yield csv().stringify([CSV_COLUMNS as unknown as string[]], SPREADSHEET_SAFE_CSV);
    let after: [string, string] | undefined;
    for (;;) {
      const rows = await listAuditEntries(ctx.db, { ...filter, after }, EXPORT_BATCH);
      for (const row of rows) {
        yield format === 'csv'
          ? csv().stringify([CSV_COLUMNS.map((column) => row[column] ?? '')], SPREADSHEET_SAFE_CSV)
          : `${JSON.stringify(auditEntryRecord(row))}\n`;
      }
      const last = rows.at(-1);
      if (rows.length < EXPORT_BATCH || !last) return;
      after = [last.at, last.id];
    }
  })();
}

/** Deletes the entries older than `retentionDays` as of the context's clock. */
export async function pruneAuditLog(ctx: ServiceContext, retentionDays: number): Promise<{ before: string; entries: number }> {
  const before = new Date(ctx.clock.now() - retentionDays * 86_400_000).toISOString();
  return { before, entries: await deleteAuditEntriesBefore(ctx.db, before) };
}
