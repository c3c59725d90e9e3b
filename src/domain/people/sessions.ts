import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import * as sessions from '../../storage/repositories/sessions.ts';
import type { KnownKey } from '../account/auth-cache.ts';
import { actorOf, recordAudit } from '../audit/log.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { type Clock, systemClock } from '../shared/clock.ts';
import { NotFoundError, UnauthorizedError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';

/**
 * Server-side sessions of signed-in people (docs/people.md). The cookie carries a random token;
 * the row keeps its SHA-256 only, so a read of the database gives no one a session. A session ends
 * when signed out, ended from the list, when its user's password changes, after `idleMs` unused and
 * `absoluteMs` after sign-in.
 */
export interface SessionPolicy {
  idleMs: number;
  absoluteMs: number;
  clock?: Clock | undefined;
}

const SESSION_PREFIX = 'tbs_';
/** lastSeenAt is written at most this often per session, so reads stay reads. */
const LAST_SEEN_PRECISION_MS = 60_000;
const USER_AGENT_MAX = 300;

export interface SessionMeta {
  userAgent?: string | undefined;
  ip?: string | undefined;
}

export interface StartedSession {
  id: string;
  /** The cookie's value: shown to the browser once, never stored. */
  token: string;
  csrfToken: string;
  expiresAt: string;
}

export function hashSessionToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export function looksLikeSessionToken(token: string): boolean {
  return /^tbs_[A-Za-z0-9_-]{43}$/.test(token);
}

/** A new session of `userId`: a new token every time (no fixation: nothing of an older one is reused). */
export async function startSession(db: Executor, policy: SessionPolicy, userId: string, meta: SessionMeta): Promise<StartedSession> {
  const now = (policy.clock ?? systemClock).now();
  const token = SESSION_PREFIX + randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const at = new Date(now).toISOString();
  const expiresAt = new Date(now + policy.absoluteMs).toISOString();
  const id = newId(now);
  await sessions.insertSession(db, {
    id,
    user_id: userId,
    token_hash: hashSessionToken(token),
    csrf_token: csrfToken,
    created_at: at,
    last_seen_at: at,
    expires_at: expiresAt,
    user_agent: meta.userAgent ? meta.userAgent.slice(0, USER_AGENT_MAX) : null,
    ip: meta.ip ?? null,
    ended_at: null,
  });
  return { id, token, csrfToken, expiresAt };
}

function invalidSession(): UnauthorizedError {
  return new UnauthorizedError('Your session has ended; sign in again', true);
}

/** What the authentication cache keeps of a session: when it ends whatever happens (the earlier of its idle and absolute ends). */
interface KnownSession extends KnownKey {
  endsAtMs: number;
  expiresAtMs: number;
}

/**
 * The caller of a session cookie, or the 401 (session ended, expired, unknown). Like API keys, an
 * entry of the instance's authentication cache answers without a statement while it counts; every
 * write to `sessions` (an end, a password change) empties it on this instance, and other instances
 * stop trusting their entries within the cache's bound.
 */
export function authenticateSession(ctx: ServiceContext, policy: SessionPolicy, token: string): Caller | Promise<Caller> {
  if (!looksLikeSessionToken(token)) throw invalidSession();
  const tokenHash = hashSessionToken(token);
  const now = (policy.clock ?? systemClock).now();
  const known = ctx.authCache?.get(tokenHash) as KnownSession | undefined;
  if (!known || known.endsAtMs <= now) return readSession(ctx, policy, tokenHash, now);
  const touched = touchIfDue(ctx, policy, known, now);
  return touched ? touched.then(() => known.caller) : known.caller;
}

async function readSession(ctx: ServiceContext, policy: SessionPolicy, tokenHash: string, now: number): Promise<Caller> {
  const read = ctx.authCache?.beginRead();
  const row = await sessions.findLiveSessionWithMemberships(ctx.db, tokenHash, new Date(now).toISOString(), new Date(now - policy.idleMs).toISOString());
  if (!row) throw invalidSession();
  const lastSeenMs = Date.parse(row.last_seen_at);
  const expiresAtMs = Date.parse(row.expires_at);
  const known: KnownSession = {
    caller: { userId: row.user_id, apiKeyId: null, session: { id: row.id, csrfToken: row.csrf_token }, ...row.memberships },
    lastUsedMs: lastSeenMs,
    expiresAtMs,
    endsAtMs: Math.min(expiresAtMs, lastSeenMs + policy.idleMs),
  };
  await touchIfDue(ctx, policy, known, now);
  if (read) ctx.authCache?.keep(tokenHash, read, known);
  return known.caller;
}

function touchIfDue(ctx: ServiceContext, policy: SessionPolicy, known: KnownSession, now: number): Promise<void> | undefined {
  if (known.lastUsedMs !== null && now - known.lastUsedMs < LAST_SEEN_PRECISION_MS) return undefined;
  known.lastUsedMs = now;
  known.endsAtMs = Math.min(known.expiresAtMs, now + policy.idleMs);
  return sessions.touchSession(ctx.db, known.caller.session!.id, new Date(now).toISOString());
}

/** Whether `presented` is the session's CSRF token (in constant time). */
export function csrfTokenMatches(caller: Caller, presented: string | undefined): boolean {
  const expected = caller.session?.csrfToken;
  if (!expected || !presented) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface SessionRecord {
  _id: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

/** The caller's own live sessions, oldest first. */
export async function listSessions(ctx: ServiceContext, policy: SessionPolicy, caller: Caller): Promise<SessionRecord[]> {
  const now = (policy.clock ?? systemClock).now();
  const rows = await sessions.listLiveSessionsOfUser(ctx.db, caller.userId, new Date(now).toISOString(), new Date(now - policy.idleMs).toISOString());
  return rows.map((row) => ({
    _id: row.id,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    userAgent: row.user_agent,
    ip: row.ip,
    current: row.id === caller.session?.id,
  }));
}

/** Ends one of the caller's sessions (404 for any other's); its cookie is refused from now on. */
export async function endSession(ctx: ServiceContext, caller: Caller, sessionId: string): Promise<void> {
  await inTransaction(ctx, async (trx) => {
    const ended = await sessions.endSessionOfUser(trx, caller.userId, sessionId, new Date().toISOString());
    if (!ended) throw new NotFoundError('Session');
    await recordAudit(trx, actorOf(caller), {
      kind: 'session.ended',
      company: { ofUser: caller.userId },
      target: { type: 'session', id: sessionId },
      details: { reason: 'ended' },
    });
  });
}
