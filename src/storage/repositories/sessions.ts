import type { CompanyRole, Executor, NewRow, Row } from '../database.ts';
import { dialectOf } from '../dialect.ts';
import { inCreationOrder } from './order.ts';

export type SessionRow = Row<'sessions'>;

export async function insertSession(db: Executor, row: NewRow<'sessions'>): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** The live session with this token hash (not ended, not past `now`'s ends), its user's memberships. */
export async function findLiveSessionWithMemberships(db: Executor, tokenHash: string, now: string, idleSince: string) {
  const dialect = dialectOf(db);
  const row = await db
    .selectFrom('sessions as s')
    .select(['s.id', 's.user_id', 's.csrf_token', 's.last_seen_at', 's.expires_at'])
    .select((eb) => [
      dialect
        .jsonArrayFrom(eb.selectFrom('company_members as cm').select(['cm.company_id', 'cm.role']).whereRef('cm.user_id', '=', 's.user_id'))
        .as('companies_json'),
      dialect.fragments.jsonArrayFrom(eb.selectFrom('team_members as tm').select('tm.team_id').whereRef('tm.user_id', '=', 's.user_id')).as('teams_json'),
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.ended_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('s.last_seen_at', '>', idleSince)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    user_id: row.user_id,
    csrf_token: row.csrf_token,
    last_seen_at: row.last_seen_at,
    expires_at: row.expires_at,
    memberships: {
      companyRoles: new Map<string, CompanyRole>(dialect.fragments.fromJson(row.companies_json).map((c) => [c.company_id, c.role])),
      teamIds: new Set(dialect.fragments.fromJson(row.teams_json).map((t) => t.team_id)),
    },
  };
}

export async function touchSession(db: Executor, sessionId: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', sessionId).execute();
}

/** The user's live sessions, oldest first. */
export async function listLiveSessionsOfUser(db: Executor, userId: string, now: string, idleSince: string): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', idleSince)
    .$call(inCreationOrder)
    .execute();
}

/** Ends one of the user's live sessions; undefined when it has none of that id. */
export async function endSessionOfUser(db: Executor, userId: string, sessionId: string, at: string): Promise<SessionRow | undefined> {
  return db
    .updateTable('sessions')
    .set({ ended_at: at })
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Ends every live session of the user but `keep` (none: all). */
export async function endSessionsOfUser(db: Executor, userId: string, at: string, keep?: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ ended_at: at })
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .$if(keep !== undefined, (q) => q.where('id', '!=', keep as string))
    .execute();
}

/** Removes sessions ended or expired before `before` (they can never count again). */
export async function deleteDeadSessions(db: Executor, before: string): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('ended_at', '<', before), eb('expires_at', '<', before)]))
    .execute();
}

/** Failed sign-ins of `subject` since `since`. */
export async function countSignInFailures(db: Executor, subject: string, since: string): Promise<{ count: number; oldest: string | null }> {
  const row = await db
    .selectFrom('sign_in_failures')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('at').as('oldest')])
    .where('subject', '=', subject)
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: (row.oldest as string | null) ?? null };
}

export async function recordSignInFailures(db: Executor, subjects: readonly string[], at: string): Promise<void> {
  await db
    .insertInto('sign_in_failures')
    .values(subjects.map((subject) => ({ subject, at })))
    .execute();
}

export async function clearSignInFailures(db: Executor, subject: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('subject', '=', subject).execute();
}

export async function pruneSignInFailures(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('at', '<', before).execute();
}
