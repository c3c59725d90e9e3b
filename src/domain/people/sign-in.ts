import type { User } from '../../schemas/records.ts';
import { setPasswordHash } from '../../storage/repositories/people.ts';
import * as sessions from '../../storage/repositories/sessions.ts';
import { findUserByEmail, findUserById } from '../../storage/repositories/users.ts';
import { userRecord } from '../account/records.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { systemClock } from '../shared/clock.ts';
import { DomainError, UnauthorizedError, ValidationError } from '../shared/errors.ts';
import { inTransaction } from '../shared/transaction.ts';
import { checkNewPassword, decoyHash, hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import { type SessionMeta, type SessionPolicy, type StartedSession, startSession } from './sessions.ts';

/** How many failed sign-ins are admitted, per email and per client address, in a window. */
export interface SignInLimits {
  perEmail: number;
  perAddress: number;
  windowSeconds: number;
}

/** Too many failed sign-ins: a 429 with the seconds until the oldest counted failure leaves the window. */
export class SignInThrottled extends DomainError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(429, 'rate_limited', 'Too many failed sign-ins; try again later');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

const WRONG = 'Wrong email or password';

/**
 * The SignInThrottled of the first subject (`email:…`, then `ip:…`) past its limit of failed
 * sign-ins in the window, if any.
 */
export async function refuseIfThrottled(ctx: ServiceContext, limits: SignInLimits, subjects: readonly string[], now: number): Promise<void> {
  const since = new Date(now - limits.windowSeconds * 1000).toISOString();
  const counts = await Promise.all(subjects.map((subject) => sessions.countSignInFailures(ctx.db, subject, since)));
  for (const [index, counted] of counts.entries()) {
    const limit = subjects[index]!.startsWith('email:') ? limits.perEmail : limits.perAddress;
    if (counted.count >= limit) {
      const oldest = counted.oldest ? Date.parse(counted.oldest) : now;
      throw new SignInThrottled(Math.max(1, Math.ceil((oldest + limits.windowSeconds * 1000 - now) / 1000)));
    }
  }
}

export interface SignedIn {
  user: User;
  session: StartedSession;
}

/**
 * Signs a person in by email and password. A wrong password and an unknown email answer the same
 * 401 after the same work (one argon2id verification, of a decoy hash for an unknown email). Failed
 * attempts count per email and per client address; past either limit every attempt is a 429 until
 * the window passes; a success clears its email's count.
 */
export async function signIn(
  ctx: ServiceContext,
  policy: SessionPolicy,
  limits: SignInLimits,
  input: { email: string; password: string },
  meta: SessionMeta,
): Promise<SignedIn> {
  const now = (policy.clock ?? systemClock).now();
  const email = input.email.trim().toLowerCase();
  const subjects = [`email:${email}`, ...(meta.ip ? [`ip:${meta.ip}`] : [])];
  await refuseIfThrottled(ctx, limits, subjects, now);

  const user = email ? await findUserByEmail(ctx.db, email) : undefined;
  const stored = user?.password_hash ?? null;
  const matches = await verifyPassword(stored ?? (await decoyHash()), input.password);
  if (!user || !stored || !matches) {
    await sessions.recordSignInFailures(ctx.db, subjects, new Date(now).toISOString());
    throw new UnauthorizedError(WRONG, false);
  }
  const rehashed = needsRehash(stored) ? await hashPassword(input.password) : undefined;
  const session = await inTransaction(ctx, async (trx) => {
    await sessions.clearSignInFailures(trx, subjects[0]!);
    if (rehashed) await setPasswordHash(trx, user.id, rehashed);
    return startSession(trx, policy, user.id, meta);
  });
  return { user: userRecord(user), session };
}

/** Signs a known user in without a password (a setup, an accepted invitation, single sign-on). */
export async function startSessionFor(ctx: ServiceContext, policy: SessionPolicy, userId: string, meta: SessionMeta): Promise<SignedIn> {
  const user = await findUserById(ctx.db, userId);
  if (!user) throw new UnauthorizedError('No such user', true);
  return { user: userRecord(user), session: await startSession(ctx.db, policy, userId, meta) };
}

/** Signs the caller's session out (ends it); a key's request has no session to end. */
export async function signOut(ctx: ServiceContext, caller: Caller): Promise<void> {
  if (!caller.session)
    throw new ValidationError('This request is authenticated by an API key, not a session: there is nothing to sign out of (revoke the key instead)');
  await sessions.endSessionOfUser(ctx.db, caller.userId, caller.session.id, new Date().toISOString());
}

/**
 * Change Password: the caller's current password, then the new one; every other session of the
 * user ends (a key's request ends them all).
 */
export async function changePassword(ctx: ServiceContext, caller: Caller, input: { currentPassword: string; newPassword: string }): Promise<void> {
  checkNewPassword(input.newPassword, 'body.newPassword');
  const user = await findUserById(ctx.db, caller.userId);
  const stored = user?.password_hash ?? null;
  if (!user || !stored || !(await verifyPassword(stored, input.currentPassword))) {
    throw new ValidationError('The current password is wrong', [{ field: 'body.currentPassword', message: 'is wrong' }]);
  }
  const hashed = await hashPassword(input.newPassword);
  await inTransaction(ctx, async (trx) => {
    await setPasswordHash(trx, user.id, hashed);
    await sessions.endSessionsOfUser(trx, user.id, new Date().toISOString(), caller.session?.id);
  });
}

/** Sets (or resets) a user's password and ends every session of the user: the administration command, a reset link. */
export async function setPassword(ctx: ServiceContext, userId: string, password: string): Promise<void> {
  checkNewPassword(password);
  const hashed = await hashPassword(password);
  await inTransaction(ctx, async (trx) => {
    await setPasswordHash(trx, userId, hashed);
    await sessions.endSessionsOfUser(trx, userId, new Date().toISOString());
  });
}
