import { setPasswordHash } from '../../storage/repositories/people.ts';
import * as sessions from '../../storage/repositories/sessions.ts';
import { findUserByEmail, findUserById } from '../../storage/repositories/users.ts';
import { userRecord } from '../account/records.ts';
import { actorOf, recordAudit } from '../audit/log.ts';
import { findOrCreateUser, retryOnceOnUniqueViolation } from '../companies/companies.ts';
import { applyGroupMapping } from '../companies/group-mapping.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { systemClock } from '../shared/clock.ts';
import { UnauthorizedError, ValidationError } from '../shared/errors.ts';
import { inTransaction } from '../shared/transaction.ts';
import type { Directory } from './directory.ts';
import { checkNewPassword, decoyHash, hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import { type SecondFactorChallenge, secondFactorChallenge } from './second-factor.ts';
import { type SessionMeta, type SessionPolicy, startSession } from './sessions.ts';
import { refuseIfThrottled, type SignedIn, type SignInLimits, SignInThrottled } from './sign-in-limits.ts';
import { refuseUnlessPasswordsAllowed, SingleSignOnRequired, singleSignOnOnlyCompanyOf } from './single-sign-on-only.ts';

export { refuseIfThrottled, type SignedIn, type SignInLimits, SignInThrottled };

const WRONG = 'Wrong email or password';

/** A sign-in that waits for its second factor: no session yet. */
export interface SecondFactorNeeded {
  secondFactor: SecondFactorChallenge;
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
  directory?: Directory,
): Promise<SignedIn | SecondFactorNeeded> {
  const now = (policy.clock ?? systemClock).now();
  const email = input.email.trim().toLowerCase();
  const subjects = [`email:${email}`, ...(meta.ip ? [`ip:${meta.ip}`] : [])];
  let user = email ? await findUserByEmail(ctx.db, email) : undefined;
  const failed = (reason: string) =>
    recordAudit(
      ctx.db,
      { userId: user?.id ?? null, client: meta },
      {
        kind: 'sign_in.failed',
        company: user ? { ofUser: user.id } : null,
        target: user ? { type: 'user', id: user.id } : undefined,
        details: { reason, email, method: 'password' },
      },
    );
  await refuseIfThrottled(ctx, limits, subjects, now).catch(async (error: unknown) => {
    await failed('throttled');
    throw error;
  });

  const stored = user?.password_hash ?? null;
  const matches = await verifyPassword(stored ?? (await decoyHash()), input.password);
  // a right password of a member kept to single sign-on: the directory may still vouch, else a 403
  // (asked only once the password checks out, so the answer tells a guesser nothing)
  const keptToSso = user && stored && matches ? await singleSignOnOnlyCompanyOf(ctx.db, user.id) : undefined;
  let method = 'password';
  let unresolved: string[] = [];
  if (!user || !stored || !matches || keptToSso) {
    // the directory, when there is one, vouches for whom the local password does not
    const found = directory && email ? await directory.check(email, input.password) : undefined;
    if (found && typeof found === 'object') {
      method = 'ldap';
      const person = found;
      const rules = directory?.groupRules ?? [];
      const at = new Date(now).toISOString();
      user = await retryOnceOnUniqueViolation(ctx, async (trx) => {
        const signingIn = await findOrCreateUser(trx, email, person.fullName, at);
        // the groups decide the person's companies and teams before the second factor is asked (a company may require one)
        if (rules.length) unresolved = (await applyGroupMapping(trx, rules, signingIn.id, person.groups, at)).unresolved;
        return signingIn;
      });
    } else if (keptToSso) {
      await failed('single_sign_on_only');
      throw new SingleSignOnRequired(keptToSso.name, 'a password of this server');
    } else {
      await sessions.recordSignInFailures(ctx.db, subjects, new Date(now).toISOString());
      await failed(found ?? (!user ? 'unknown_email' : !stored ? 'no_password' : 'wrong_password'));
      throw new UnauthorizedError(WRONG, false);
    }
  }
  const signedInUser = user;
  const rehashed = method === 'password' && stored && needsRehash(stored) ? await hashPassword(input.password) : undefined;
  // a second factor to come: the failures stand until it is given, and no session starts
  const secondFactor = await secondFactorChallenge(ctx, signedInUser.id, method);
  if (secondFactor) {
    if (rehashed) await setPasswordHash(ctx.db, signedInUser.id, rehashed);
    return { secondFactor };
  }
  const session = await inTransaction(ctx, async (trx) => {
    await sessions.clearSignInFailures(trx, subjects[0]!);
    if (rehashed) await setPasswordHash(trx, signedInUser.id, rehashed);
    await recordAudit(
      trx,
      { userId: signedInUser.id, client: meta },
      {
        kind: 'sign_in.succeeded',
        company: { ofUser: signedInUser.id },
        target: { type: 'user', id: signedInUser.id },
        details: { method, ...(unresolved.length ? { unmappedRules: unresolved } : {}) },
      },
    );
    return startSession(trx, policy, signedInUser.id, meta);
  });
  return { user: userRecord(signedInUser), session };
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
  const sessionId = caller.session.id;
  await inTransaction(ctx, async (trx) => {
    await sessions.endSessionOfUser(trx, caller.userId, sessionId, new Date().toISOString());
    await recordAudit(trx, actorOf(caller), {
      kind: 'session.ended',
      company: { ofUser: caller.userId },
      target: { type: 'session', id: sessionId },
      details: { reason: 'signed_out' },
    });
  });
}

/**
 * Change Password: the caller's current password, then the new one; every other session of the
 * user ends (a key's request ends them all).
 */
export async function changePassword(ctx: ServiceContext, caller: Caller, input: { currentPassword: string; newPassword: string }): Promise<void> {
  checkNewPassword(input.newPassword, 'body.newPassword');
  await refuseUnlessPasswordsAllowed(ctx.db, caller.userId, 'a password of this server');
  const user = await findUserById(ctx.db, caller.userId);
  const stored = user?.password_hash ?? null;
  if (!user || !stored || !(await verifyPassword(stored, input.currentPassword))) {
    throw new ValidationError('The current password is wrong', [{ field: 'body.currentPassword', message: 'is wrong' }]);
  }
  const hashed = await hashPassword(input.newPassword);
  await inTransaction(ctx, async (trx) => {
    await setPasswordHash(trx, user.id, hashed);
    await sessions.endSessionsOfUser(trx, user.id, new Date().toISOString(), caller.session?.id);
    await recordAudit(trx, actorOf(caller), { kind: 'password.changed', company: { ofUser: user.id }, target: { type: 'user', id: user.id } });
  });
}

/** Sets (or resets) a user's password and ends every session of the user: the administration command, a reset link. */
export async function setPassword(ctx: ServiceContext, userId: string, password: string): Promise<void> {
  checkNewPassword(password);
  const hashed = await hashPassword(password);
  await inTransaction(ctx, async (trx) => {
    await setPasswordHash(trx, userId, hashed);
    await sessions.endSessionsOfUser(trx, userId, new Date().toISOString());
    await recordAudit(
      trx,
      { userId: null },
      { kind: 'password.reset', company: { ofUser: userId }, target: { type: 'user', id: userId }, details: { by: 'command' } },
    );
  });
}
