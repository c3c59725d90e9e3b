/**
 * A second factor (docs/people.md, "Second factor"): an authenticator app (TOTP, RFC 6238, through
 * otplib) with ten single-use recovery codes, asked for after the password. The password step of a
 * person with a factor answers a short-lived challenge instead of a session; a code (or a recovery
 * code) with that challenge finishes the sign-in. Wrong codes count as failed sign-ins of the email
 * and the address, so the limits of passwords hold for codes too (docs/decisions/0280).
 */
import { hash, randomBytes, randomInt } from 'node:crypto';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Executor } from '../../storage/database.ts';
import * as factors from '../../storage/repositories/second-factors.ts';
import * as sessions from '../../storage/repositories/sessions.ts';
import { findUserById } from '../../storage/repositories/users.ts';
import { userRecord } from '../account/records.ts';
import { type AuditActor, actorOf, recordAudit } from '../audit/log.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { mailFactorNotice, type SecurityMail } from './mail.ts';
import { passkeyOptionsFor, type RelyingParty, verifyPasskey } from './passkeys.ts';
import { verifyPassword } from './passwords.ts';
import type { Sealer } from './sealing.ts';
import type { SessionMeta, SessionPolicy } from './sessions.ts';
import { startSession } from './sessions.ts';
import type { SignedIn, SignInLimits } from './sign-in-limits.ts';
import { refuseIfThrottled } from './sign-in-limits.ts';

export interface SecondFactorPolicy {
  sealer: Sealer;
  /** The name authenticator apps show beside the account. */
  issuer: string;
}

const RECOVERY_CODES = 10;
/** How long a right password waits for its second factor. */
const CHALLENGE_MS = 5 * 60_000;
/** Wrong codes one challenge admits before the password must be given again. */
const CHALLENGE_ATTEMPTS = 5;
const CHALLENGE_PREFIX = 'tbc_';
/** A code of the step before or after the server's is accepted: the phone's clock may be 30 s off. */
const TOLERANCE_SECONDS = 30;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

const hashed = (value: string) => hash('sha256', value, 'hex');

/** The sign-in the challenge was made for ended, expired, or never was. */
const challengeGone = () => new UnauthorizedError('This sign-in has expired; give your email and password again', true);
const wrongCode = () => new UnauthorizedError('The code is not right', false);

function requirePerson(caller: Caller): void {
  if (caller.apiKeyId !== null) throw new ForbiddenError('Second factors are managed by their person, signed in: not with an API key');
}

/** Recovery codes as the person writes them: 16 letters and digits in four groups, lower case, no look-alikes (80 bits). */
function makeRecoveryCode(): string {
  const letters = Array.from({ length: 16 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]);
  return [0, 4, 8, 12].map((at) => letters.slice(at, at + 4).join('')).join('-');
}

/** A typed recovery code as it was made: spaces and dashes and case do not matter. */
function normalRecoveryCode(code: string): string {
  const bare = code.toLowerCase().replace(/[^a-z0-9]/g, '');
  return [0, 4, 8, 12].map((at) => bare.slice(at, at + 4)).join('-');
}

async function newRecoveryCodes(db: Executor, userId: string, now: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES }, makeRecoveryCode);
  const at = new Date(now).toISOString();
  await factors.replaceRecoveryCodes(
    db,
    userId,
    codes.map((code) => ({ id: newId(now), user_id: userId, code_hash: hashed(code), created_at: at, used_at: null })),
  );
  return codes;
}

/** The time step of a right code from the factor's app (none used before), or undefined. */
async function stepOfCode(ctx: ServiceContext, policy: SecondFactorPolicy, factor: factors.TotpFactorRow, code: string): Promise<number | undefined> {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const secret = await policy.sealer.open(ctx.db, factor.secret_sealed, factor.user_id);
  // loaded on first use (docs/decisions/0042): a server whose people use no app never holds them
  const { verify } = await import('otplib');
  const result = await verify({
    secret,
    token,
    epoch: Math.floor(ctx.clock.now() / 1000),
    epochTolerance: TOLERANCE_SECONDS,
    ...(factor.last_step === null ? {} : { afterTimeStep: Number(factor.last_step) }),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : undefined;
}

export interface SecondFactorStatus {
  totp: { enabled: boolean; confirmedAt: string | null };
  recoveryCodesLeft: number;
}

export async function getSecondFactors(ctx: ServiceContext, caller: Caller): Promise<SecondFactorStatus> {
  const factor = await factors.findTotpFactor(ctx.db, caller.userId);
  const enabled = Boolean(factor?.confirmed_at);
  return {
    totp: { enabled, confirmedAt: factor?.confirmed_at ?? null },
    recoveryCodesLeft: enabled ? await factors.countUnusedRecoveryCodes(ctx.db, caller.userId) : 0,
  };
}

export interface TotpEnrolment {
  /** Base32, for typing into an app that cannot scan. */
  secret: string;
  otpauthUrl: string;
  /** The otpauth URL as a QR code: an SVG data URL. */
  qrCode: string;
}

/** Begins enrolling an authenticator app: a new secret, not asked for until a code from the app confirms it. */
export async function beginTotpEnrolment(ctx: ServiceContext, policy: SecondFactorPolicy, caller: Caller): Promise<TotpEnrolment> {
  requirePerson(caller);
  return enrolmentFor(ctx, policy, caller.userId);
}

async function enrolmentFor(ctx: ServiceContext, policy: SecondFactorPolicy, userId: string): Promise<TotpEnrolment> {
  const user = await findUserById(ctx.db, userId);
  if (!user) throw new NotFoundError('User');
  const existing = await factors.findTotpFactor(ctx.db, userId);
  if (existing?.confirmed_at) throw new ConflictError('An authenticator app is set up already: disable it first to set up another');
  const { generateSecret, generateURI } = await import('otplib');
  const secret = generateSecret();
  const sealed = await policy.sealer.seal(ctx.db, secret, userId);
  await factors.putPendingTotpFactor(ctx.db, {
    user_id: userId,
    secret_sealed: sealed,
    created_at: new Date(ctx.clock.now()).toISOString(),
    confirmed_at: null,
    last_step: null,
  });
  const otpauthUrl = generateURI({ issuer: policy.issuer, label: user.email, secret });
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(otpauthUrl, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return { secret, otpauthUrl, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/**
 * Confirms the app with a code it shows: the factor is on from now, and the ten recovery codes are
 * made (answered once; only their hashes are kept).
 */
export async function confirmTotpEnrolment(
  ctx: ServiceContext,
  policy: SecondFactorPolicy,
  caller: Caller,
  code: string,
): Promise<{ recoveryCodes: string[] }> {
  requirePerson(caller);
  const step = await stepOfPendingCode(ctx, policy, caller.userId, code);
  return inTransaction(ctx, (trx) => confirmStep(trx, actorOf(caller), caller.userId, step, ctx.clock.now()));
}

/** The time step of a right code from the app being set up (read before the transaction: a read of the pool inside it could wait on it). */
async function stepOfPendingCode(ctx: ServiceContext, policy: SecondFactorPolicy, userId: string, code: string): Promise<number> {
  const factor = await factors.findTotpFactor(ctx.db, userId);
  if (!factor) throw new NotFoundError('Authenticator app being set up (start again)');
  if (factor.confirmed_at) throw new ConflictError('The authenticator app is set up already');
  const step = await stepOfCode(ctx, policy, factor, code);
  if (step === undefined) throw new ValidationError('The code is not the one your app shows now', [{ field: 'body.code', message: 'is not right' }]);
  return step;
}

/** Turns the app being set up on at `step`, and makes its recovery codes. */
async function confirmStep(trx: Executor, actor: AuditActor, userId: string, step: number, now: number): Promise<{ recoveryCodes: string[] }> {
  if (!(await factors.acceptTotpStep(trx, userId, step, new Date(now).toISOString())))
    throw new ValidationError('The code was used already; wait for the next one', [{ field: 'body.code', message: 'was used already' }]);
  const recoveryCodes = await newRecoveryCodes(trx, userId, now);
  await recordAudit(trx, actor, {
    kind: 'second_factor.enrolled',
    company: { ofUser: userId },
    target: { type: 'user', id: userId },
    details: { method: 'totp' },
  });
  return { recoveryCodes };
}

/** Turns the authenticator app off: the password and a code (or a recovery code) prove it is the person, who is told by mail. */
export async function disableTotp(
  ctx: ServiceContext,
  policy: SecondFactorPolicy,
  caller: Caller,
  input: { password: string; code: string },
  mail?: SecurityMail,
): Promise<void> {
  requirePerson(caller);
  const user = await findUserById(ctx.db, caller.userId);
  const factor = await factors.findTotpFactor(ctx.db, caller.userId);
  if (!user || !factor?.confirmed_at) throw new NotFoundError('Authenticator app');
  const failed = (reason: string) =>
    recordAudit(ctx.db, actorOf(caller), {
      kind: 'second_factor.failed',
      company: { ofUser: caller.userId },
      target: { type: 'user', id: caller.userId },
      details: { reason, during: 'disable' },
    });
  if (!user.password_hash || !(await verifyPassword(user.password_hash, input.password))) {
    await failed('wrong_password');
    throw new ValidationError('The password is wrong', [{ field: 'body.password', message: 'is wrong' }]);
  }
  const step = await stepOfCode(ctx, policy, factor, input.code);
  const now = new Date(ctx.clock.now()).toISOString();
  await inTransaction(ctx, async (trx) => {
    const right =
      step !== undefined
        ? await factors.acceptTotpStep(trx, caller.userId, step)
        : await factors.useRecoveryCode(trx, caller.userId, hashed(normalRecoveryCode(input.code)), now);
    if (!right) throw new ValidationError('The code is not right', [{ field: 'body.code', message: 'is not right' }]);
    await factors.deleteTotpFactor(trx, caller.userId);
    await factors.deleteRecoveryCodes(trx, caller.userId);
    await recordAudit(trx, actorOf(caller), {
      kind: 'second_factor.disabled',
      company: { ofUser: caller.userId },
      target: { type: 'user', id: caller.userId },
      details: { method: 'totp' },
    });
    await mailFactorNotice(trx, mail, caller.userId, { kind: 'app_off', client: caller.client });
  }).catch(async (error: unknown) => {
    if (error instanceof ValidationError) await failed('wrong_code');
    throw error;
  });
}

/** What the password step answers a person who has a second factor, or must enrol one. */
export interface SecondFactorChallenge {
  /** Sent back with the code; single-use, valid `expiresAt`. */
  challenge: string;
  expiresAt: string;
  /** `totp`, `recovery_code`; none when the person must enrol first (`enrol`). */
  methods: string[];
  /** The person's company requires a second factor and they have none: enrol, then the sign-in finishes. */
  enrol: boolean;
}

/**
 * After a right password: the challenge a second factor must answer, or undefined when the person
 * has none and no company of theirs requires one (the session starts at once).
 */
export async function secondFactorChallenge(
  ctx: ServiceContext,
  userId: string,
  method: string,
  db: Executor = ctx.db,
): Promise<SecondFactorChallenge | undefined> {
  const factor = await factors.findTotpFactor(db, userId);
  const totp = Boolean(factor?.confirmed_at);
  const passkeys = (await factors.listPasskeysOfUser(db, userId)).length > 0;
  const enrolled = totp || passkeys;
  const enrol = !enrolled && (await factors.secondFactorRequiredFor(db, userId));
  if (!enrolled && !enrol) return undefined;
  const now = ctx.clock.now();
  const challenge = CHALLENGE_PREFIX + randomBytes(32).toString('base64url');
  const expiresAt = new Date(now + CHALLENGE_MS).toISOString();
  await factors.insertSignInChallenge(db, {
    token_hash: hashed(challenge),
    user_id: userId,
    purpose: enrol ? 'enrol' : 'second_factor',
    method,
    created_at: new Date(now).toISOString(),
    expires_at: expiresAt,
  });
  const methods = [...(totp ? ['totp', 'recovery_code'] : []), ...(passkeys ? ['passkey'] : [])];
  return { challenge, expiresAt, methods, enrol };
}

async function liveChallenge(ctx: ServiceContext, challenge: string): Promise<factors.SignInChallengeRow> {
  const row = await factors.findLiveSignInChallenge(ctx.db, hashed(challenge), new Date(ctx.clock.now()).toISOString());
  if (!row || row.attempts >= CHALLENGE_ATTEMPTS) throw challengeGone();
  return row;
}

/** The options of the person's passkeys, to answer the challenge with one instead of a code. */
export async function startPasskeyAtSignIn(ctx: ServiceContext, rp: RelyingParty, challenge: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const row = await liveChallenge(ctx, challenge);
  if (row.purpose !== 'second_factor') throw new ConflictError('This sign-in asks for setting up an app, not for a passkey');
  return passkeyOptionsFor(ctx, rp, row.user_id, row.token_hash);
}

/** A person who must enrol during sign-in: the app's secret and QR code, for the challenge's person. */
export async function beginEnrolmentAtSignIn(ctx: ServiceContext, policy: SecondFactorPolicy, challenge: string): Promise<TotpEnrolment> {
  const row = await liveChallenge(ctx, challenge);
  if (row.purpose !== 'enrol') throw new ConflictError('This sign-in asks for a code, not for setting up an app');
  return enrolmentFor(ctx, policy, row.user_id);
}

export interface FinishedSignIn extends SignedIn {
  /** Made when the sign-in enrolled the person's app (shown once). */
  recoveryCodes?: string[];
}

/**
 * The second step of a sign-in: the challenge and a code from the app (or a recovery code, which
 * then is used up). Right: the challenge is taken and a new session starts (a new token: the
 * password step made none). Wrong: a failed sign-in of the email and the address, counted against
 * the same limits as passwords, and against the challenge's own few attempts.
 */
export async function finishSignIn(
  ctx: ServiceContext,
  policy: SecondFactorPolicy,
  sessionPolicy: SessionPolicy,
  limits: SignInLimits,
  input: { challenge: string; code?: string | undefined; recoveryCode?: string | undefined; passkey?: AuthenticationResponseJSON | undefined },
  meta: SessionMeta,
  rp?: RelyingParty,
): Promise<FinishedSignIn> {
  const row = await liveChallenge(ctx, input.challenge);
  const user = await findUserById(ctx.db, row.user_id);
  if (!user) throw challengeGone();
  const now = ctx.clock.now();
  const subjects = [`email:${user.email}`, ...(meta.ip ? [`ip:${meta.ip}`] : [])];
  const actor: AuditActor = { userId: user.id, client: meta };
  const method = input.passkey !== undefined ? 'passkey' : input.recoveryCode !== undefined ? 'recovery_code' : 'totp';
  const failed = async (reason: string) => {
    await sessions.recordSignInFailures(ctx.db, subjects, new Date(now).toISOString());
    await factors.countChallengeAttempt(ctx.db, row.token_hash);
    await recordAudit(ctx.db, actor, {
      kind: 'sign_in.failed',
      company: { ofUser: user.id },
      target: { type: 'user', id: user.id },
      details: { reason, email: user.email, method: row.method, secondFactor: method },
    });
  };
  await refuseIfThrottled(ctx, limits, subjects, now).catch(async (error: unknown) => {
    await recordAudit(ctx.db, actor, {
      kind: 'sign_in.failed',
      company: { ofUser: user.id },
      target: { type: 'user', id: user.id },
      details: { reason: 'throttled', email: user.email, method: row.method, secondFactor: method },
    });
    throw error;
  });
  if ([input.code, input.recoveryCode, input.passkey].filter((given) => given !== undefined).length !== 1)
    throw new ValidationError('Send one of the code of your app, a recovery code, or a passkey’s answer', [
      { field: 'body.code', message: 'or body.recoveryCode or body.passkey, one of them' },
    ]);
  if (input.passkey !== undefined) {
    if (row.purpose !== 'second_factor' || !rp) throw challengeGone();
    const passkey = await verifyPasskey(ctx, rp, row.token_hash, input.passkey, { userId: user.id, userVerification: false });
    if (!passkey) {
      await failed('passkey_refused');
      throw new UnauthorizedError('The passkey did not answer for this sign-in', false);
    }
    return { user: userRecord(user), session: await inTransaction(ctx, (trx) => succeed(trx, 'passkey')) };
  }

  const factor = await factors.findTotpFactor(ctx.db, user.id);
  if (row.purpose === 'enrol') {
    if (input.code === undefined)
      throw new ValidationError('Set up your app first: then send the code it shows', [{ field: 'body.code', message: 'is required' }]);
    const code = input.code;
    const enrolled = await stepOfPendingCode(ctx, policy, user.id, code)
      .then((step) =>
        inTransaction(ctx, async (trx) => {
          const { recoveryCodes } = await confirmStep(trx, actor, user.id, step, now);
          return { recoveryCodes, session: await succeed(trx, 'totp') };
        }),
      )
      .catch(async (error: unknown) => {
        if (error instanceof ValidationError) await failed('wrong_code');
        throw error;
      });
    return { user: userRecord(user), session: enrolled.session, recoveryCodes: enrolled.recoveryCodes };
  }
  if (!factor?.confirmed_at) throw challengeGone();

  const step = input.code !== undefined ? await stepOfCode(ctx, policy, factor, input.code) : undefined;
  const session = await inTransaction(ctx, async (trx) => {
    const right =
      input.code !== undefined
        ? step !== undefined && (await factors.acceptTotpStep(trx, user.id, step))
        : await factors.useRecoveryCode(trx, user.id, hashed(normalRecoveryCode(input.recoveryCode!)), new Date(now).toISOString());
    if (!right) return undefined;
    return succeed(trx, method);
  });
  if (!session) {
    await failed(method === 'totp' ? 'wrong_code' : 'wrong_recovery_code');
    throw wrongCode();
  }
  return { user: userRecord(user), session };

  async function succeed(trx: Executor, secondFactor: string) {
    if (!(await factors.takeSignInChallenge(trx, row.token_hash))) throw challengeGone();
    await sessions.clearSignInFailures(trx, subjects[0]!);
    await recordAudit(trx, actor, {
      kind: 'sign_in.succeeded',
      company: { ofUser: user!.id },
      target: { type: 'user', id: user!.id },
      details: { method: row.method, secondFactor },
    });
    return startSession(trx, sessionPolicy, user!.id, meta);
  }
}
