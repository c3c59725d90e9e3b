import type { ApiKey, Company, Language, Team, User } from '../../schemas/records.ts';
import type { ApiKeyAccess, Executor, Transaction } from '../../storage/database.ts';
import * as apiKeys from '../../storage/repositories/api-keys.ts';
import { findCompaniesOfUser, findTeamsOfUser, findUserByEmail, findUserById, updateUser } from '../../storage/repositories/users.ts';
import { requireAccess, requireFullKey, withinKeyTeams } from '../access/access.ts';
import { recordUsersChange } from '../cards/recorder.ts';
import { teamRecords } from '../companies/teams.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { ianaTimeZone } from '../shared/time-zones.ts';
import { inTransaction } from '../shared/transaction.ts';
import type { KnownKey } from './auth-cache.ts';
import { companyRecord, userRecord } from './records.ts';
import { hashToken, looksLikeToken, newToken, tokenPrefix } from './tokens.ts';

/** lastUsedAt is written at most this often per key, so reads stay reads. */
const LAST_USED_PRECISION_MS = 60_000;

/**
 * Resolves a bearer token to its caller, or throws the contract's 401 (invalid_token). The caller
 * comes from the instance's authentication cache when an entry of the key still counts (then at
 * once, without a promise), else from one prepared statement: the key, its user's companies and
 * teams (see src/domain/account/auth-cache.ts for how a revocation reaches the cache).
 */
export function authenticate(ctx: ServiceContext, token: string, ip: string | null = null): Caller | Promise<Caller> {
  if (!looksLikeToken(token)) throw invalidKey();
  const tokenHash = hashToken(token);
  const known = ctx.authCache?.get(tokenHash);
  if (!known) return readKey(ctx, tokenHash, ip);
  refuseExpired(ctx, known.caller);
  const touched = touchIfDue(ctx, known, ip);
  return touched ? touched.then(() => known.caller) : known.caller;
}

async function readKey(ctx: ServiceContext, tokenHash: string, ip: string | null): Promise<Caller> {
  const read = ctx.authCache?.beginRead();
  const key = await apiKeys.findLiveKeyWithMemberships(ctx.db, tokenHash);
  if (!key) throw invalidKey();
  const { id, user_id: userId, last_used_at: lastUsedAt, access, expires_at: expiresAt, keyTeams, ...memberships } = key;
  const limited = access === 'read-only' || keyTeams !== null || expiresAt !== null;
  const keyLimits = limited ? { readOnly: access === 'read-only', teams: keyTeams, expiresAtMs: expiresAt === null ? null : Date.parse(expiresAt) } : undefined;
  const known: KnownKey = {
    caller: { userId, apiKeyId: id, ...memberships, ...(keyLimits ? { keyLimits } : {}) },
    lastUsedMs: lastUsedAt === null ? null : Date.parse(lastUsedAt),
  };
  refuseExpired(ctx, known.caller);
  await touchIfDue(ctx, known, ip);
  if (read) ctx.authCache?.keep(tokenHash, read, known);
  return known.caller;
}

/** A key past its expiry is refused as a revoked one is. */
function refuseExpired(ctx: ServiceContext, caller: Caller): void {
  const expiresAtMs = caller.keyLimits?.expiresAtMs;
  if (expiresAtMs != null && ctx.clock.now() >= expiresAtMs) throw invalidKey();
}

/** Writes the key's `lastUsedAt` (and the address it came from) when the one written is older than LAST_USED_PRECISION_MS; undefined when not due. */
function touchIfDue(ctx: ServiceContext, known: KnownKey, ip: string | null): Promise<void> | undefined {
  const now = ctx.clock.now();
  if (known.lastUsedMs !== null && now - known.lastUsedMs < LAST_USED_PRECISION_MS) return undefined;
  known.lastUsedMs = now;
  return apiKeys.touchKey(ctx.db, known.caller.apiKeyId as string, new Date(now).toISOString(), ip);
}

function invalidKey(): UnauthorizedError {
  return new UnauthorizedError('Invalid, revoked, expired or malformed API key', true);
}

export interface IssuedKey {
  apiKey: ApiKey;
  /** The token itself: shown once, never stored. */
  token: string;
}

/** What a new key may be held to; nothing: full reach, as every key made before limits existed. */
export interface KeyLimitsInput {
  access?: ApiKeyAccess | undefined;
  /** The teams it reaches, each with its company (already checked to be in the maker's reach). */
  teams?: readonly { id: string; company_id: string }[] | undefined;
  expiresAt?: string | undefined;
}

export async function issueApiKey(ctx: ServiceContext, userId: string, name: string, db: Executor = ctx.db, limits: KeyLimitsInput = {}): Promise<IssuedKey> {
  const token = newToken();
  const row = {
    id: newId(),
    user_id: userId,
    name,
    prefix: tokenPrefix(token),
    token_hash: hashToken(token),
    created_at: nowIso(),
    last_used_at: null,
    revoked_at: null,
    access: limits.access ?? 'read-write',
    team_limited: limits.teams ? 1 : 0,
    expires_at: limits.expiresAt ?? null,
    last_used_ip: null,
  } satisfies apiKeys.ApiKeyRow;
  await apiKeys.insertApiKey(db, row);
  if (limits.teams) await apiKeys.insertKeyTeams(db, row.id, limits.teams);
  return { apiKey: apiKeyRecord(row, limits.teams?.map((team) => team.id) ?? null), token };
}

/** A key's record; `teams`: the teams it is limited to (null: not limited). */
export function apiKeyRecord(row: apiKeys.ApiKeyRow, teams: string[] | null): ApiKey {
  return {
    _id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    lastUsedIp: row.last_used_ip,
    access: row.access,
    teams: row.team_limited ? (teams ?? []) : null,
    expiresAt: row.expires_at,
  };
}

/** The records of these keys, with the teams each is limited to. */
async function apiKeyRecords(db: Executor, rows: readonly apiKeys.ApiKeyRow[]): Promise<ApiKey[]> {
  const teams = await apiKeys.findTeamsOfKeys(
    db,
    rows.filter((row) => row.team_limited).map((row) => row.id),
  );
  return rows.map((row) => apiKeyRecord(row, teams.get(row.id) ?? []));
}

/** A user holds at most this many live keys: enough for every script and machine, few enough to audit. */
export const MAX_LIVE_KEYS_PER_USER = 100;

const KEY_NAME_MAX = 100;

/** An expiry given as an ISO time, which must be in the future (else a 400 naming the field). */
function futureTime(ctx: ServiceContext, value: string): string {
  const at = Date.parse(value);
  if (Number.isNaN(at) || at <= ctx.clock.now()) {
    throw new ValidationError('expiresAt must be a time in the future', [{ field: 'body.expiresAt', message: 'must be in the future' }]);
  }
  return new Date(at).toISOString();
}

function keyName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ValidationError('name must not be empty', [{ field: 'body.name', message: 'must not be empty' }]);
  if (trimmed.length > KEY_NAME_MAX) {
    throw new ValidationError(`name must be at most ${KEY_NAME_MAX} characters`, [
      { field: 'body.name', message: `must be at most ${KEY_NAME_MAX} characters` },
    ]);
  }
  return trimmed;
}

export interface Me {
  user: User;
  companies: Company[];
  teams: Team[];
}

/** The caller's user record, its companies (with its role in each) and its teams with their members. */
export async function getMe(ctx: ServiceContext, caller: Caller): Promise<Me> {
  const [user, companies, teams] = await Promise.all([
    findUserById(ctx.db, caller.userId),
    findCompaniesOfUser(ctx.db, caller.userId),
    findTeamsOfUser(ctx.db, caller.userId),
  ]);
  // The key's user cannot vanish while the key authenticates (keys cascade with users), but a
  // delete between the two reads would otherwise be a 500.
  if (!user) throw invalidKey();
  const own = withinKeyTeams(caller, { companies, teams });
  return {
    user: userRecord(user),
    companies: own.companies.map(companyRecord),
    teams: await teamRecords(ctx.db, own.teams),
  };
}

/** The caller's live keys, oldest first; never a token or a hash. */
export async function listApiKeys(ctx: ServiceContext, caller: Caller): Promise<ApiKey[]> {
  return apiKeyRecords(ctx.db, await apiKeys.listKeysOfUser(ctx.db, caller.userId));
}

/**
 * A new key for the caller; the token is in the answer and nowhere else. It may be held to reads, to
 * some of the teams the caller reaches, and to a time; a key with limits cannot make keys (it would
 * make one without them).
 */
export async function createApiKey(
  ctx: ServiceContext,
  caller: Caller,
  input: { name: string; access?: ApiKeyAccess | undefined; teams?: readonly string[] | undefined; expiresAt?: string | undefined },
): Promise<IssuedKey> {
  requireFullKey(caller, 'make API keys');
  const name = keyName(input.name);
  const expiresAt = input.expiresAt === undefined ? undefined : futureTime(ctx, input.expiresAt);
  const teams =
    input.teams === undefined
      ? undefined
      : await Promise.all(
          [...new Set(input.teams)].map((teamId) =>
            requireAccess(ctx.db, caller, { kind: 'team', id: teamId, field: `body.teams[${input.teams?.indexOf(teamId)}]` }),
          ),
        );
  return inTransaction(ctx, async (trx) => {
    // one create per user at a time, so that parallel creates cannot all pass the count
    await apiKeys.lockKeysOfUser(trx, caller.userId);
    if ((await apiKeys.countLiveKeysOfUser(trx, caller.userId)) >= MAX_LIVE_KEYS_PER_USER) {
      throw new ConflictError(`A user may hold at most ${MAX_LIVE_KEYS_PER_USER} API keys; revoke one first`);
    }
    const issued = await issueApiKey(ctx, caller.userId, name, trx, { access: input.access, teams, expiresAt });
    recordKeyEvent(trx, caller, 'apikey.created', issued.apiKey);
    return issued;
  });
}

/** Revokes one of the caller's keys (possibly the one it calls with); its token fails from now on. */
export async function revokeApiKey(ctx: ServiceContext, caller: Caller, keyId: string): Promise<IssuedKey['apiKey']> {
  return inTransaction(ctx, async (trx) => {
    const row = await apiKeys.revokeKeyOfUser(trx, caller.userId, keyId, nowIso());
    if (!row) throw new NotFoundError('API key');
    const [key] = (await apiKeyRecords(trx, [row])) as [ApiKey];
    recordKeyEvent(trx, caller, 'apikey.revoked', key);
    return key;
  });
}

/** An event of one of the caller's keys, addressed to the caller: the key's id and name, never its token, prefix or hash. */
function recordKeyEvent(trx: Transaction, caller: Caller, type: string, key: ApiKey): void {
  recordEvent(trx, caller, type, { company: null, user: caller.userId }, { apiKey: key._id, name: key.name });
}

/**
 * Gives one of the caller's keys a new token: same id and name (and the same rate-limit buckets,
 * which are per key id), new prefix; the old token fails from now on.
 */
export async function rotateApiKey(ctx: ServiceContext, caller: Caller, keyId: string): Promise<IssuedKey> {
  // a limited key could otherwise take the token of a key without limits of the same person
  requireFullKey(caller, 'rotate API keys');
  const token = newToken();
  return inTransaction(ctx, async (trx) => {
    const row = await apiKeys.replaceKeyToken(trx, caller.userId, keyId, { prefix: tokenPrefix(token), token_hash: hashToken(token) });
    if (!row) throw new NotFoundError('API key');
    const [key] = (await apiKeyRecords(trx, [row])) as [ApiKey];
    recordKeyEvent(trx, caller, 'apikey.rotated', key);
    return { apiKey: key, token };
  });
}

/** For the administration command: a new key for the user with this email. */
export async function issueApiKeyForEmail(
  ctx: ServiceContext,
  input: { email: string; name?: string | undefined },
): Promise<{ userId: string; apiKeyId: string; apiKey: string }> {
  const email = input.email.trim().toLowerCase();
  const user = email ? await findUserByEmail(ctx.db, email) : undefined;
  if (!user) throw new NotFoundError(`User with email "${input.email.trim()}"`);
  const { apiKey, token } = await issueApiKey(ctx, user.id, keyName(input.name ?? 'cli'));
  return { userId: user.id, apiKeyId: apiKey._id, apiKey: token };
}

/**
 * Update Me: the caller's own name and photo, whether their notifications are mailed too
 * (docs/people.md, "Mail"), their language ("Languages") and time zone ("Time zone"). Cards, comments, cheers, teams and members show the name and photo
 * by reading the user's row at each read (stored card views stop counting: the users' stamp moves),
 * so every record shows the new ones at once.
 */
export async function updateMe(
  ctx: ServiceContext,
  caller: Caller,
  input: {
    fullName?: string | undefined;
    photoUrl?: string | undefined;
    emailNotifications?: boolean | undefined;
    locale?: Language | null | undefined;
    timeZone?: string | null | undefined;
    emailCadence?: 'minute' | 'daily' | undefined;
  },
): Promise<User> {
  const timeZone = input.timeZone === undefined || input.timeZone === null ? input.timeZone : ianaTimeZone(input.timeZone, 'body.timeZone');
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const change = {
      ...(input.fullName !== undefined ? { full_name: input.fullName.trim() } : {}),
      ...(input.photoUrl !== undefined ? { photo_url: input.photoUrl.trim() } : {}),
    };
    const user = await updateUser(
      trx,
      caller.userId,
      {
        ...change,
        ...(input.emailNotifications !== undefined ? { email_notifications: input.emailNotifications ? 1 : 0 } : {}),
        ...(input.locale !== undefined ? { locale: input.locale } : {}),
        ...(timeZone !== undefined ? { time_zone: timeZone } : {}),
        ...(input.emailCadence !== undefined ? { email_cadence: input.emailCadence } : {}),
      },
      at,
    );
    if (!user) throw invalidKey();
    // cards show names and photos: their stored views stop counting
    if (Object.keys(change).length > 0) await recordUsersChange(trx);
    recordEvent(trx, caller, 'user.updated', { company: null, user: user.id }, { fullName: user.full_name, photoUrl: user.photo_url }, at);
    return userRecord(user);
  });
}
