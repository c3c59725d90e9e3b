import type { CompanyRole, Executor, NewRow, Row } from '../database.ts';
import { dialectOf, executeCompiledOnce } from '../dialect.ts';
import type { TableWrite } from '../table-writes.ts';
import { inCreationOrder } from './order.ts';

export type ApiKeyRow = Row<'api_keys'>;

export async function insertApiKey(db: Executor, row: NewRow<'api_keys'>): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The teams a team-limited key reaches, with each team's company. */
export async function insertKeyTeams(db: Executor, keyId: string, teams: readonly { id: string; company_id: string }[]): Promise<void> {
  if (teams.length === 0) return;
  await db
    .insertInto('api_key_teams')
    .values(teams.map((team) => ({ api_key_id: keyId, team_id: team.id, company_id: team.company_id })))
    .execute();
}

/** The teams each of these keys is limited to, by key id (keys without a limit are absent). */
export async function findTeamsOfKeys(db: Executor, keyIds: readonly string[]): Promise<Map<string, string[]>> {
  const byKey = new Map<string, string[]>();
  if (keyIds.length === 0) return byKey;
  const rows = await db
    .selectFrom('api_key_teams')
    .select(['api_key_id', 'team_id'])
    .where('api_key_id', 'in', keyIds)
    .orderBy('api_key_id')
    .orderBy('team_id')
    .execute();
  for (const row of rows) byKey.set(row.api_key_id, [...(byKey.get(row.api_key_id) ?? []), row.team_id]);
  return byKey;
}

/**
 * The tables `findLiveKeyWithMemberships` and `findLiveSessionWithMemberships` (./sessions.ts) read:
 * a write to them may change what a key or a session authenticates as.
 */
const AUTHENTICATION_TABLES = new Set(['api_keys', 'api_key_teams', 'sessions', 'company_members', 'team_members']);
/** The column each table's use writes, never read by authentication. */
const USE_STAMPS: Record<string, readonly string[]> = { api_keys: ['last_used_at', 'last_used_ip'], sessions: ['last_seen_at'] };

/**
 * Whether committed `writes` may change what a token authenticates as: any write to the tables
 * authentication reads, but for a key's `lastUsedAt` (written as keys are used, never read by it).
 */
export function changeAuthentication(writes: readonly TableWrite[]): boolean {
  return writes.some(({ table, columns }) => AUTHENTICATION_TABLES.has(table) && !(columns?.length && columns.every((c) => USE_STAMPS[table]?.includes(c))));
}

/**
 * The live key with this token hash, its owner, the owner's memberships and the key's limits, in one
 * statement prepared once (authentication runs it on every request): undefined when no live key
 * matches. An expired key is still answered (with its `expires_at`): authentication refuses it.
 */
export async function findLiveKeyWithMemberships(db: Executor, tokenHash: string) {
  const dialect = dialectOf(db);
  const rows = await executeCompiledOnce(
    db,
    'authenticate',
    (param) =>
      db
        .selectFrom('api_keys as k')
        .select(['k.id', 'k.user_id', 'k.last_used_at', 'k.access', 'k.team_limited', 'k.expires_at'])
        .select((eb) => [
          dialect
            .jsonArrayFrom(eb.selectFrom('company_members as cm').select(['cm.company_id', 'cm.role']).whereRef('cm.user_id', '=', 'k.user_id'))
            .as('companies_json'),
          dialect.jsonArrayFrom(eb.selectFrom('team_members as tm').select('tm.team_id').whereRef('tm.user_id', '=', 'k.user_id')).as('teams_json'),
          dialect
            .jsonArrayFrom(eb.selectFrom('api_key_teams as kt').select(['kt.team_id', 'kt.company_id']).whereRef('kt.api_key_id', '=', 'k.id'))
            .as('key_teams_json'),
        ])
        .where('k.token_hash', '=', param('tokenHash'))
        .where('k.revoked_at', 'is', null),
    { tokenHash },
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    user_id: row.user_id,
    last_used_at: row.last_used_at,
    access: row.access,
    expires_at: row.expires_at,
    keyTeams: row.team_limited ? new Map(dialect.fromJson(row.key_teams_json).map((t) => [t.team_id, t.company_id])) : null,
    companyRoles: new Map<string, CompanyRole>(dialect.fromJson(row.companies_json).map((c) => [c.company_id, c.role])),
    teamIds: new Set(dialect.fromJson(row.teams_json).map((t) => t.team_id)),
  };
}

export async function listKeysOfUser(db: Executor, userId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).where('revoked_at', 'is', null).$call(inCreationOrder).execute();
}

export async function touchKey(db: Executor, keyId: string, at: string, ip: string | null): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at, last_used_ip: ip }).where('id', '=', keyId).execute();
}

/** Serializes the transactions that change one user's keys, until each ends (src/storage/engine/locks.ts). */
export async function lockKeysOfUser(trx: Executor, userId: string): Promise<void> {
  await dialectOf(trx).locks.lockInTransaction(trx, `api-keys:${userId}`);
}

export async function countLiveKeysOfUser(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Revokes one of the user's live keys in a single statement, so two concurrent revokes (or a revoke
 * racing a rotate) cannot both succeed; undefined when there is no such live key.
 */
export async function revokeKeyOfUser(db: Executor, userId: string, keyId: string, at: string): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Replaces the token of one of the user's live keys in a single statement: the old hash stops
 * matching the moment this commits. The new token has not been used yet, so lastUsedAt restarts.
 */
export async function replaceKeyToken(
  db: Executor,
  userId: string,
  keyId: string,
  token: { prefix: string; token_hash: string },
): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ prefix: token.prefix, token_hash: token.token_hash, last_used_at: null, last_used_ip: null })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
