import type { Executor, NewRow, Row } from '../database.ts';
import { inCreationOrder } from './order.ts';

export type InvitationRow = Row<'invitations'>;

export async function insertInvitation(db: Executor, row: NewRow<'invitations'>): Promise<void> {
  await db.insertInto('invitations').values(row).execute();
}

/** The company's invitations not accepted nor revoked, oldest first (expired ones too: the list says so). */
export async function listOpenInvitations(db: Executor, companyId: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .$call(inCreationOrder)
    .execute();
}

export async function revokeInvitation(db: Executor, companyId: string, invitationId: string, at: string): Promise<InvitationRow | undefined> {
  return db
    .updateTable('invitations')
    .set({ revoked_at: at })
    .where('id', '=', invitationId)
    .where('company_id', '=', companyId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** The live invitation of this token hash, with its company's and inviter's names. */
export async function findLiveInvitation(db: Executor, tokenHash: string, now: string) {
  return db
    .selectFrom('invitations as i')
    .innerJoin('companies as c', 'c.id', 'i.company_id')
    .leftJoin('users as u', 'u.id', 'i.inviter_id')
    .selectAll('i')
    .select(['c.name as company_name', 'u.full_name as inviter_name'])
    .where('i.token_hash', '=', tokenHash)
    .where('i.accepted_at', 'is', null)
    .where('i.revoked_at', 'is', null)
    .where('i.expires_at', '>', now)
    .executeTakeFirst();
}

/** The invitation of this token hash in any state (to say why a link no longer works), with its company's and inviter's names. */
export async function findInvitationByToken(db: Executor, tokenHash: string) {
  return db
    .selectFrom('invitations as i')
    .innerJoin('companies as c', 'c.id', 'i.company_id')
    .leftJoin('users as u', 'u.id', 'i.inviter_id')
    .selectAll('i')
    .select(['c.name as company_name', 'u.full_name as inviter_name'])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** The reset of this token hash in any state, with its user's email. */
export async function findPasswordResetByToken(db: Executor, tokenHash: string) {
  return db
    .selectFrom('password_resets as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select(['r.user_id', 'r.expires_at', 'r.used_at', 'u.email'])
    .where('r.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks it accepted, once: undefined when another accept (or a revoke) came first. */
export async function markAccepted(db: Executor, invitationId: string, at: string): Promise<boolean> {
  const row = await db
    .updateTable('invitations')
    .set({ accepted_at: at })
    .where('id', '=', invitationId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The live invitations of an email, oldest first (single sign-on accepts them all). */
export async function findLiveInvitationsOfEmail(db: Executor, email: string, now: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .$call(inCreationOrder)
    .execute();
}

export async function insertPasswordReset(db: Executor, row: NewRow<'password_resets'>): Promise<void> {
  await db.insertInto('password_resets').values(row).execute();
}

/** Uses the live reset of this token hash, once: its user, or undefined. */
export async function usePasswordReset(db: Executor, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

export async function insertMail(db: Executor, row: NewRow<'mail_outbox'>): Promise<void> {
  await db.insertInto('mail_outbox').values(row).execute();
}
