import type { Executor, NewRow, Row } from '../database.ts';

export type AuditRow = Row<'audit_log'>;

/** Appends entries; the log is never updated, only pruned past its retention. */
export async function insertAuditEntries(db: Executor, rows: readonly NewRow<'audit_log'>[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('audit_log')
    .values([...rows])
    .execute();
}

export interface AuditFilter {
  companyId: string;
  actorId?: string | undefined;
  kind?: string | undefined;
  /** From this time (inclusive). */
  since?: string | undefined;
  /** Before this time (exclusive). */
  until?: string | undefined;
  /** Strictly after this `[at, id]` in newest-first order: the previous page's last entry. */
  after?: readonly [string, string] | undefined;
}

/** A company's entries, newest first, `limit` of them at most. */
export async function listAuditEntries(db: Executor, filter: AuditFilter, limit: number): Promise<AuditRow[]> {
  let query = db.selectFrom('audit_log').selectAll().where('company_id', '=', filter.companyId);
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('at', '<', filter.until);
  const after = filter.after;
  if (after !== undefined) query = query.where((eb) => eb.or([eb('at', '<', after[0]), eb.and([eb('at', '=', after[0]), eb('id', '<', after[1])])]));
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Deletes the entries older than `before`; answers how many went. */
export async function deleteAuditEntriesBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
