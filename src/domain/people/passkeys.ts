/**
 * Passkeys (docs/people.md, "Passkeys"): WebAuthn credentials through @simplewebauthn/server. A
 * person registers several, named, and removes them; a passkey signs in alone (a discoverable
 * credential, user verification required: something the person has and is or knows), or stands as
 * the second factor after a password (docs/decisions/0282). Only public keys are stored.
 */
import { hash, randomBytes } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import * as factors from '../../storage/repositories/second-factors.ts';
import * as sessions from '../../storage/repositories/sessions.ts';
import { findUserById } from '../../storage/repositories/users.ts';
import { userRecord } from '../account/records.ts';
import { actorOf, recordAudit } from '../audit/log.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { mailFactorNotice, type SecurityMail } from './mail.ts';
import { type SessionMeta, type SessionPolicy, startSession } from './sessions.ts';
import { refuseIfThrottled, type SignedIn, type SignInLimits } from './sign-in-limits.ts';
import { SingleSignOnRequired, singleSignOnOnlyCompanyOf } from './single-sign-on-only.ts';

/** The WebAuthn library, loaded on first use (docs/decisions/0042): most servers never see a passkey. */
const webauthn = () => import('@simplewebauthn/server');

/** Who the passkeys are for: the site's domain and the origins its pages are served from. */
export interface RelyingParty {
  id: string;
  origins: string[];
  name: string;
}

const CEREMONY_MS = 5 * 60_000;
const MAX_PASSKEYS = 20;

const hashed = (value: string) => hash('sha256', value, 'hex');
const registrationHandle = (userId: string) => hashed(`register:${userId}`);

export interface PasskeyRecord {
  _id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

const record = (row: factors.PasskeyRow): PasskeyRecord => ({ _id: row.id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at });

function requirePerson(caller: Caller): void {
  if (caller.apiKeyId !== null) throw new ForbiddenError('Passkeys are managed by their person, signed in: not with an API key');
}

function credentialOf(row: factors.PasskeyRow) {
  return {
    id: row.credential_id,
    publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64url')),
    counter: Number(row.counter),
    transports: JSON.parse(row.transports) as string[],
  };
}

export async function listPasskeys(ctx: ServiceContext, caller: Caller): Promise<PasskeyRecord[]> {
  return (await factors.listPasskeysOfUser(ctx.db, caller.userId)).map(record);
}

/** The options the browser's `navigator.credentials.create` takes: a discoverable credential, verified user. */
export async function startPasskeyRegistration(ctx: ServiceContext, rp: RelyingParty, caller: Caller): Promise<PublicKeyCredentialCreationOptionsJSON> {
  requirePerson(caller);
  const user = await findUserById(ctx.db, caller.userId);
  if (!user) throw new NotFoundError('User');
  const existing = await factors.listPasskeysOfUser(ctx.db, user.id);
  if (existing.length >= MAX_PASSKEYS) throw new ValidationError(`A person may have ${MAX_PASSKEYS} passkeys; remove one first`);
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.full_name,
    userID: new Uint8Array(Buffer.from(user.id)),
    attestationType: 'none',
    excludeCredentials: existing.map((row) => ({ id: row.credential_id, transports: JSON.parse(row.transports) as string[] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  const now = ctx.clock.now();
  await factors.putWebauthnChallenge(
    ctx.db,
    {
      handle_hash: registrationHandle(user.id),
      user_id: user.id,
      purpose: 'register',
      challenge: options.challenge,
      expires_at: new Date(now + CEREMONY_MS).toISOString(),
    },
    new Date(now).toISOString(),
  );
  return options;
}

/** Checks the authenticator's answer to the registration just started, and keeps the passkey under `name`. */
export async function finishPasskeyRegistration(
  ctx: ServiceContext,
  rp: RelyingParty,
  caller: Caller,
  input: { name: string; response: RegistrationResponseJSON },
): Promise<PasskeyRecord> {
  requirePerson(caller);
  const now = ctx.clock.now();
  const ceremony = await factors.takeWebauthnChallenge(ctx.db, registrationHandle(caller.userId), new Date(now).toISOString());
  if (!ceremony)
    throw new ValidationError('No passkey registration is waiting (it lasts 5 minutes): start again', [
      { field: 'body.response', message: 'was not asked for' },
    ]);
  const verified = await (await webauthn())
    .verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: true,
    })
    .catch(() => undefined);
  if (!verified?.verified) throw new ValidationError('The authenticator’s answer did not check out', [{ field: 'body.response', message: 'is not valid' }]);
  const { credential } = verified.registrationInfo;
  const row = {
    id: newId(now),
    user_id: caller.userId,
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: JSON.stringify(credential.transports ?? []),
    name: input.name.trim(),
    created_at: new Date(now).toISOString(),
    last_used_at: null,
  };
  await inTransaction(ctx, async (trx) => {
    if (await factors.findPasskeyByCredential(trx, credential.id)) throw new ValidationError('This passkey is registered already');
    await factors.insertPasskey(trx, row);
    await recordAudit(trx, actorOf(caller), {
      kind: 'passkey.added',
      company: { ofUser: caller.userId },
      target: { type: 'user', id: caller.userId },
      details: { name: row.name },
    });
  });
  return record(row as factors.PasskeyRow);
}

/** Removes one of the caller's passkeys, and tells them by mail (a stolen session must not remove one unseen). */
export async function removePasskey(ctx: ServiceContext, caller: Caller, passkeyId: string, mail?: SecurityMail): Promise<PasskeyRecord> {
  requirePerson(caller);
  return inTransaction(ctx, async (trx) => {
    const removed = await factors.deletePasskeyOfUser(trx, caller.userId, passkeyId);
    if (!removed) throw new NotFoundError('Passkey');
    await recordAudit(trx, actorOf(caller), {
      kind: 'passkey.removed',
      company: { ofUser: caller.userId },
      target: { type: 'user', id: caller.userId },
      details: { name: removed.name },
    });
    await mailFactorNotice(trx, mail, caller.userId, { kind: 'passkey_removed', name: removed.name, client: caller.client });
    return record(removed);
  });
}

/** A sign-in with a passkey alone: the browser offers the person's discoverable credentials for this site. */
export async function startPasskeySignIn(ctx: ServiceContext, rp: RelyingParty): Promise<{ handle: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required' });
  const handle = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  await factors.putWebauthnChallenge(
    ctx.db,
    { handle_hash: hashed(handle), user_id: null, purpose: 'sign_in', challenge: options.challenge, expires_at: new Date(now + CEREMONY_MS).toISOString() },
    new Date(now).toISOString(),
  );
  return { handle, options };
}

/** The options of a passkey as the second factor of the sign-in challenge `tokenHash` (its person's passkeys). */
export async function passkeyOptionsFor(
  ctx: ServiceContext,
  rp: RelyingParty,
  userId: string,
  tokenHash: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const mine = await factors.listPasskeysOfUser(ctx.db, userId);
  if (mine.length === 0) throw new NotFoundError('Passkey');
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: 'preferred',
    allowCredentials: mine.map((row) => ({ id: row.credential_id, transports: JSON.parse(row.transports) as string[] })),
  });
  const now = ctx.clock.now();
  await factors.putWebauthnChallenge(
    ctx.db,
    { handle_hash: tokenHash, user_id: userId, purpose: 'second_factor', challenge: options.challenge, expires_at: new Date(now + CEREMONY_MS).toISOString() },
    new Date(now).toISOString(),
  );
  return options;
}

/**
 * The passkey that answered the ceremony `handleHash` (taken once), if the answer checks out and the
 * passkey is `userId`'s when one is expected; its counter and last use are written.
 */
export async function verifyPasskey(
  ctx: ServiceContext,
  rp: RelyingParty,
  handleHash: string,
  response: AuthenticationResponseJSON,
  expect: { userId?: string; userVerification: boolean },
): Promise<factors.PasskeyRow | undefined> {
  const now = new Date(ctx.clock.now()).toISOString();
  const ceremony = await factors.takeWebauthnChallenge(ctx.db, handleHash, now);
  if (!ceremony || typeof response?.id !== 'string') return undefined;
  const passkey = await factors.findPasskeyByCredential(ctx.db, response.id);
  if (!passkey || (expect.userId !== undefined && passkey.user_id !== expect.userId)) return undefined;
  const verified = await (await webauthn())
    .verifyAuthenticationResponse({
      response,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      credential: credentialOf(passkey),
      requireUserVerification: expect.userVerification,
    })
    .catch(() => undefined);
  if (!verified?.verified) return undefined;
  await factors.touchPasskey(ctx.db, passkey.id, verified.authenticationInfo.newCounter, now);
  return passkey;
}

/**
 * Signs in with a passkey alone. Refusals count as failed sign-ins of the address (and of the
 * passkey's person when it is known), under the limits of passwords.
 */
export async function finishPasskeySignIn(
  ctx: ServiceContext,
  rp: RelyingParty,
  policy: SessionPolicy,
  limits: SignInLimits,
  input: { handle: string; response: AuthenticationResponseJSON },
  meta: SessionMeta,
): Promise<SignedIn> {
  const now = ctx.clock.now();
  const ipSubjects = meta.ip ? [`ip:${meta.ip}`] : [];
  await refuseIfThrottled(ctx, limits, ipSubjects, now);
  const passkey = await verifyPasskey(ctx, rp, hashed(input.handle), input.response, { userVerification: true });
  const user = passkey && (await findUserById(ctx.db, passkey.user_id));
  if (!passkey || !user) {
    if (ipSubjects.length) await sessions.recordSignInFailures(ctx.db, ipSubjects, new Date(now).toISOString());
    await recordAudit(
      ctx.db,
      { userId: null, client: meta },
      { kind: 'sign_in.failed', company: null, details: { reason: 'passkey_refused', method: 'passkey' } },
    );
    throw new UnauthorizedError('The passkey did not sign you in; try again or use your password', false);
  }
  // a passkey alone is a way around the organisation's sign-in too; after single sign-on it still serves as the second factor
  const keptToSso = await singleSignOnOnlyCompanyOf(ctx.db, user.id);
  if (keptToSso) {
    await recordAudit(
      ctx.db,
      { userId: user.id, client: meta },
      {
        kind: 'sign_in.failed',
        company: { ofUser: user.id },
        target: { type: 'user', id: user.id },
        details: { reason: 'single_sign_on_only', method: 'passkey' },
      },
    );
    throw new SingleSignOnRequired(keptToSso.name, 'a passkey alone');
  }
  const session = await inTransaction(ctx, async (trx) => {
    await sessions.clearSignInFailures(trx, `email:${user.email}`);
    await recordAudit(
      trx,
      { userId: user.id, client: meta },
      { kind: 'sign_in.succeeded', company: { ofUser: user.id }, target: { type: 'user', id: user.id }, details: { method: 'passkey' } },
    );
    return startSession(trx, policy, user.id, meta);
  });
  return { user: userRecord(user), session };
}
