import type { Executor, NewRow, Row } from '../database.ts';

/** Second factors (migration 0097): authenticator apps, recovery codes, sign-in challenges, sealing keys. */

export type TotpFactorRow = Row<'totp_factors'>;
export type SignInChallengeRow = Row<'sign_in_challenges'>;

export async function findTotpFactor(db: Executor, userId: string): Promise<TotpFactorRow | undefined> {
  return db.selectFrom('totp_factors').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** A new, unconfirmed factor, replacing whatever unconfirmed one the user had (a confirmed one is kept: the caller refuses first). */
export async function putPendingTotpFactor(db: Executor, row: NewRow<'totp_factors'>): Promise<void> {
  await db.deleteFrom('totp_factors').where('user_id', '=', row.user_id).where('confirmed_at', 'is', null).execute();
  await db.insertInto('totp_factors').values(row).execute();
}

/**
 * Records that a code of `step` was accepted, only if no code of this step or a later one was
 * (two requests racing with the same code: one wins); answers whether it did. `confirm` also marks
 * a pending factor confirmed.
 */
export async function acceptTotpStep(db: Executor, userId: string, step: number, confirmAt?: string): Promise<boolean> {
  const result = await db
    .updateTable('totp_factors')
    .set({ last_step: step, ...(confirmAt ? { confirmed_at: confirmAt } : {}) })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteTotpFactor(db: Executor, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('totp_factors').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function replaceRecoveryCodes(db: Executor, userId: string, rows: NewRow<'recovery_codes'>[]): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  if (rows.length) await db.insertInto('recovery_codes').values(rows).execute();
}

export async function deleteRecoveryCodes(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}

/** Uses the unused recovery code of this hash, once: answers whether it was there to use. */
export async function useRecoveryCode(db: Executor, userId: string, codeHash: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function countUnusedRecoveryCodes(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The users among `userIds` with a confirmed authenticator app. */
export async function usersWithTotp(db: Executor, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.selectFrom('totp_factors').select('user_id').where('user_id', 'in', userIds).where('confirmed_at', 'is not', null).execute();
  return new Set(rows.map((row) => row.user_id));
}

export async function insertSignInChallenge(db: Executor, row: NewRow<'sign_in_challenges'>): Promise<void> {
  await db.deleteFrom('sign_in_challenges').where('expires_at', '<', row.created_at).execute();
  await db.insertInto('sign_in_challenges').values(row).execute();
}

export async function findLiveSignInChallenge(db: Executor, tokenHash: string, now: string): Promise<SignInChallengeRow | undefined> {
  return db.selectFrom('sign_in_challenges').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst();
}

/** Counts a wrong answer to a challenge; answers the attempts made so far. */
export async function countChallengeAttempt(db: Executor, tokenHash: string): Promise<void> {
  await db
    .updateTable('sign_in_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('token_hash', '=', tokenHash)
    .execute();
}

/** Takes the challenge (once only): answers whether it was still there. */
export async function takeSignInChallenge(db: Executor, tokenHash: string): Promise<boolean> {
  const result = await db.deleteFrom('sign_in_challenges').where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function findServerKeys(db: Executor): Promise<Row<'server_keys'>[]> {
  return db.selectFrom('server_keys').selectAll().orderBy('created_at').execute();
}

/** Stores a new sealing key unless another instance stored one first (then the caller reads theirs). */
export async function insertServerKey(db: Executor, row: NewRow<'server_keys'>): Promise<void> {
  await db
    .insertInto('server_keys')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function setCompanySecondFactorRequired(db: Executor, companyId: string, required: boolean): Promise<void> {
  await db
    .updateTable('companies')
    .set({ require_second_factor: required ? 1 : 0 })
    .where('id', '=', companyId)
    .execute();
}

/** Whether any company the user belongs to requires a second factor. */
export async function secondFactorRequiredFor(db: Executor, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('company_members as cm')
    .innerJoin('companies as c', 'c.id', 'cm.company_id')
    .select('c.id')
    .where('cm.user_id', '=', userId)
    .where('c.require_second_factor', '=', 1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteSignInChallengesOf(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('sign_in_challenges').where('user_id', '=', userId).execute();
}

export type PasskeyRow = Row<'passkeys'>;

export async function listPasskeysOfUser(db: Executor, userId: string): Promise<PasskeyRow[]> {
  return db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export async function findPasskeyByCredential(db: Executor, credentialId: string): Promise<PasskeyRow | undefined> {
  return db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
}

export async function insertPasskey(db: Executor, row: NewRow<'passkeys'>): Promise<void> {
  await db.insertInto('passkeys').values(row).execute();
}

export async function deletePasskeyOfUser(db: Executor, userId: string, id: string): Promise<PasskeyRow | undefined> {
  return db.deleteFrom('passkeys').where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deletePasskeysOfUser(db: Executor, userId: string): Promise<number> {
  const result = await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function touchPasskey(db: Executor, id: string, counter: number, at: string): Promise<void> {
  await db.updateTable('passkeys').set({ counter, last_used_at: at }).where('id', '=', id).execute();
}

/** The users among `userIds` with at least one passkey. */
export async function usersWithPasskeys(db: Executor, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.selectFrom('passkeys').select('user_id').distinct().where('user_id', 'in', userIds).execute();
  return new Set(rows.map((row) => row.user_id));
}

export async function putWebauthnChallenge(db: Executor, row: NewRow<'webauthn_challenges'>, now: string): Promise<void> {
  await db
    .deleteFrom('webauthn_challenges')
    .where((eb) => eb.or([eb('expires_at', '<', now), eb('handle_hash', '=', row.handle_hash)]))
    .execute();
  await db.insertInto('webauthn_challenges').values(row).execute();
}

/** Takes the live challenge of this handle (once only). */
export async function takeWebauthnChallenge(db: Executor, handleHash: string, now: string): Promise<Row<'webauthn_challenges'> | undefined> {
  const row = await db.deleteFrom('webauthn_challenges').where('handle_hash', '=', handleHash).returningAll().executeTakeFirst();
  return row && row.expires_at > now ? row : undefined;
}
