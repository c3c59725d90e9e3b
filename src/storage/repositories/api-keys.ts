import type { CompanyRole, Executor, NewRow, Row } from '../database.ts';
import { dialectOf, executeCompiledOnce } from '../dialect.ts';
import type { TableWrite } from '../table-writes.ts';
import { inCreationOrder } from './order.ts';

export type ApiKeyRow = Row<'api_keys'>;

export async function insertApiKey(db: Executor, row: NewRow<'api_keys'>): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/**
 * The tables `findLiveKeyWithMemberships` and `findLiveSessionWithMemberships` (./sessions.ts) read:
 * a write to them may change what a key or a session authenticates as.
 */
const AUTHENTICATION_TABLES = new Set(['api_keys', 'sessions', 'company_members', 'team_members']);
/** The column each table's use writes, never read by authentication. */
const USE_STAMPS: Record<string, string> = { api_keys: 'last_used_at', sessions: 'last_seen_at' };

/**
 * Whether committed `writes` may change what a token authenticates as: any write to the tables
 * authentication reads, but for a key's `lastUsedAt` (written as keys are used, never read by it).
 */
export function changeAuthentication(writes: readonly TableWrite[]): boolean {
  return writes.some(({ table, columns }) => AUTHENTICATION_TABLES.has(table) && !(columns?.length && columns.every((c) => c === USE_STAMPS[table])));
}

/**
 * The live key with this token hash, its owner and the owner's memberships, in one statement
 * prepared once (authentication runs it on every request): undefined when no live key matches.
 */
export async function findLiveKeyWithMemberships(db: Executor, tokenHash: string) {
  const dialect = dialectOf(db);
  const rows = await executeCompiledOnce(
    db,
    'authenticate',
    (param) =>
      db
        .selectFrom('api_keys as k')
        .select(['k.id', 'k.user_id', 'k.last_used_at'])
        .select((eb) => [
          dialect
            .jsonArrayFrom(eb.selectFrom('company_members as cm').select(['cm.company_id', 'cm.role']).whereRef('cm.user_id', '=', 'k.user_id'))
            .as('companies_json'),
          dialect.jsonArrayFrom(eb.selectFrom('team_members as tm').select('tm.team_id').whereRef('tm.user_id', '=', 'k.user_id')).as('teams_json'),
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
    companyRoles: new Map<string, CompanyRole>(dialect.fromJson(row.companies_json).map((c) => [c.company_id, c.role])),
    teamIds: new Set(dialect.fromJson(row.teams_json).map((t) => t.team_id)),
  };
}

export async function listKeysOfUser(db: Executor, userId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).where('revoked_at', 'is', null).$call(inCreationOrder).execute();
}

export async function touchKey(db: Executor, keyId: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
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
    .set({ prefix: token.prefix, token_hash: token.token_hash, last_used_at: null })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
