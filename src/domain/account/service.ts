import type { ServiceContext } from '../context.ts';
import * as apiKeys from '../../storage/repositories/api-keys.ts';
import { findMemberships } from '../../storage/repositories/users.ts';
import type { Caller } from '../shared/caller.ts';
import { UnauthorizedError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { hashToken, looksLikeToken, newToken, tokenPrefix } from './tokens.ts';

/** lastUsedAt is written at most this often per key, so reads stay reads. */
const LAST_USED_PRECISION_MS = 60_000;

/** Resolves a bearer token to its caller, or throws the contract's 401 (invalid_token). */
export async function authenticate(ctx: ServiceContext, token: string): Promise<Caller> {
  const key = looksLikeToken(token) ? await apiKeys.findLiveKeyByHash(ctx.db, hashToken(token)) : undefined;
  if (!key) throw new UnauthorizedError('Invalid, revoked or malformed API key', true);
  const now = Date.now();
  const [memberships] = await Promise.all([
    findMemberships(ctx.db, key.user_id),
    key.last_used_at === null || now - Date.parse(key.last_used_at) >= LAST_USED_PRECISION_MS
      ? apiKeys.touchKey(ctx.db, key.id, new Date(now).toISOString())
      : undefined,
  ]);
  return { userId: key.user_id, apiKeyId: key.id, ...memberships };
}

export interface IssuedKey {
  apiKey: { _id: string; name: string; prefix: string; createdAt: string; lastUsedAt: string | null };
  /** The token itself: shown once, never stored. */
  token: string;
}

export async function issueApiKey(ctx: ServiceContext, userId: string, name: string): Promise<IssuedKey> {
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
  };
  await apiKeys.insertApiKey(ctx.db, row);
  return { apiKey: apiKeyRecord(row), token };
}

export function apiKeyRecord(row: apiKeys.ApiKeyRow): IssuedKey['apiKey'] {
  return { _id: row.id, name: row.name, prefix: row.prefix, createdAt: row.created_at, lastUsedAt: row.last_used_at };
}
