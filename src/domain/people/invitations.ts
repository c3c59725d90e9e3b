import { hash, randomBytes } from 'node:crypto';
import type { CompanyRole, Executor, Transaction } from '../../storage/database.ts';
import { findBoardById } from '../../storage/repositories/boards.ts';
import * as companies from '../../storage/repositories/companies.ts';
import * as invitations from '../../storage/repositories/invitations.ts';
import { setPasswordHash } from '../../storage/repositories/people.ts';
import * as sessions from '../../storage/repositories/sessions.ts';
import { findTeamById } from '../../storage/repositories/teams.ts';
import { findUserByEmail, findUserById } from '../../storage/repositories/users.ts';
import { requireAccess } from '../access/access.ts';
import { userRecord } from '../account/records.ts';
import { type AuditActor, actorOf, recordAudit } from '../audit/log.ts';
import { findOrCreateUser, normaliseEmail } from '../companies/companies.ts';
import { joinTeam } from '../companies/teams.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { placeInvitedPerson } from '../imports/placing.ts';
import { mailLanguage, mailText } from '../mail/messages.ts';
import type { Caller } from '../shared/caller.ts';
import { ConflictError, DomainError, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { enqueueMail } from './mail.ts';
import { checkNewPassword, hashPassword } from './passwords.ts';
import { secondFactorChallenge } from './second-factor.ts';
import { type SessionMeta, type SessionPolicy, startSession } from './sessions.ts';
import type { SecondFactorNeeded, SignedIn } from './sign-in.ts';
import { refuseUnlessPasswordsAllowed, SingleSignOnRequired, singleSignOnOnlyCompanyOf } from './single-sign-on-only.ts';

/**
 * Invitations to a company and password resets: links with a single-use token, stored as its
 * SHA-256 only. An invitation lives 7 days, a reset an hour. With mail set up the link is mailed
 * (written to the outbox in the same transaction); the answer carries it too, so an admin can hand
 * it over when no mail is set up.
 */
export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
export const RESET_LIFETIME_MS = 3_600_000;

/** Where links point and whether mail goes out. */
export interface Links {
  /** The app's address, e.g. https://tasks.example.com (no trailing slash). */
  baseUrl: string;
  mail: boolean;
}

function newLinkToken(prefix: string): { token: string; tokenHash: string } {
  const token = prefix + randomBytes(32).toString('base64url');
  return { token, tokenHash: hash('sha256', token, 'hex') };
}

function hashOf(token: string): string {
  return hash('sha256', token, 'hex');
}

export interface InvitationRecord {
  _id: string;
  company: string;
  email: string;
  role: CompanyRole;
  teams: string[];
  invitedBy: string | null;
  board: string | null;
  createdAt: string;
  expiresAt: string;
}

function invitationRecord(row: invitations.InvitationRow): InvitationRecord {
  return {
    _id: row.id,
    company: row.company_id,
    email: row.email,
    role: row.role,
    teams: JSON.parse(row.team_ids) as string[],
    invitedBy: row.inviter_id,
    board: row.board_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

async function requireAdmin(ctx: ServiceContext, caller: Caller, companyId: string): Promise<CompanyRole> {
  const { role } = await requireAccess(ctx.db, caller, { kind: 'company', id: companyId });
  if (role === 'member') throw new ForbiddenError('Only company owners and admins may invite people or reset passwords');
  return role;
}

/** Create Invitation: owners and admins; teams of the company only; an admin cannot invite an owner. */
export async function createInvitation(
  ctx: ServiceContext,
  caller: Caller,
  companyId: string,
  input: { email: string; role: CompanyRole; teams?: string[] | undefined; board?: string | undefined },
  links: Links,
): Promise<{ invitation: InvitationRecord; url: string; mailed: boolean }> {
  const callerRole = await requireAdmin(ctx, caller, companyId);
  if (input.role === 'owner' && callerRole !== 'owner') throw new ForbiddenError('Only company owners may invite owners');
  const email = normaliseEmail(input.email);
  const teamIds = [...new Set(input.teams ?? [])];
  for (const [index, teamId] of teamIds.entries()) {
    const team = await findTeamById(ctx.db, teamId);
    if (team?.company_id !== companyId)
      throw new ValidationError('Every team must be a team of this company', [{ field: `body.teams[${index}]`, message: 'is not a team of this company' }]);
  }
  // Invited from a board: the invitee joins its team, whatever else was chosen, and lands on it.
  let board: { id: string; name: string } | undefined;
  if (input.board !== undefined) {
    const row = await findBoardById(ctx.db, input.board);
    const team = row ? await findTeamById(ctx.db, row.team_id) : undefined;
    if (!row || team?.company_id !== companyId)
      throw new ValidationError('The board must be a board of this company', [{ field: 'body.board', message: 'is not a board of this company' }]);
    board = { id: row.id, name: row.name };
    if (!teamIds.includes(row.team_id)) teamIds.push(row.team_id);
  }
  const { token, tokenHash } = newLinkToken('tbi_');
  const url = `${links.baseUrl}/invitations#${token}`;
  return inTransaction(ctx, async (trx) => {
    const user = await findUserByEmail(trx, email);
    if (user && (await companies.findCompanyMember(trx, companyId, user.id))) throw new ConflictError(`${email} is already a member of this company`);
    const company = await companies.findCompanyById(trx, companyId);
    if (!company) throw new NotFoundError('Company');
    const inviter = await findUserById(trx, caller.userId);
    const now = Date.now();
    const row = {
      id: newId(now),
      company_id: companyId,
      email,
      role: input.role,
      team_ids: JSON.stringify(teamIds),
      inviter_id: caller.userId,
      token_hash: tokenHash,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + INVITATION_LIFETIME_MS).toISOString(),
      accepted_at: null,
      revoked_at: null,
      board_id: board?.id ?? null,
    };
    await invitations.insertInvitation(trx, row);
    await recordAudit(trx, actorOf(caller), {
      kind: 'invitation.created',
      company: companyId,
      target: { type: 'invitation', id: row.id },
      details: { email, role: input.role, teams: teamIds },
    });
    if (links.mail) {
      // in the invitee's language when they have an account, else in the inviter's
      const language = mailLanguage(user?.locale, inviter?.locale);
      const words = {
        inviter: inviter?.full_name ?? mailText(language, 'someone'),
        hasBoard: board ? 'yes' : 'no',
        board: board?.name ?? '',
        company: company.name,
        url,
      };
      await enqueueMail(trx, {
        to: email,
        subject: mailText(language, 'invitationSubject', words),
        body: mailText(language, 'invitationBody', words),
        language,
      });
    }
    return { invitation: invitationRecord(row), url, mailed: links.mail };
  });
}

export async function listInvitations(ctx: ServiceContext, caller: Caller, companyId: string): Promise<InvitationRecord[]> {
  await requireAdmin(ctx, caller, companyId);
  return (await invitations.listOpenInvitations(ctx.db, companyId)).map(invitationRecord);
}

export async function revokeInvitation(ctx: ServiceContext, caller: Caller, companyId: string, invitationId: string): Promise<InvitationRecord> {
  await requireAdmin(ctx, caller, companyId);
  return inTransaction(ctx, async (trx) => {
    const row = await invitations.revokeInvitation(trx, companyId, invitationId, new Date().toISOString());
    if (!row) throw new NotFoundError('Invitation');
    await recordAudit(trx, actorOf(caller), {
      kind: 'invitation.revoked',
      company: companyId,
      target: { type: 'invitation', id: row.id },
      details: { email: row.email },
    });
    return invitationRecord(row);
  });
}

/** Why a link no longer works, in words a person can act on. */
export type LinkGoneReason = 'used' | 'revoked' | 'expired';

/**
 * A 404 for a link that does not work. A link that once did says why and whom to ask: whoever holds
 * the token was sent it, so naming the company and the inviter tells them nothing new.
 */
async function invitationGone(db: Executor, tokenHash: string): Promise<DomainError> {
  const row = await invitations.findInvitationByToken(db, tokenHash);
  if (!row) return new NotFoundError('Invitation');
  const reason: LinkGoneReason = row.accepted_at ? 'used' : row.revoked_at ? 'revoked' : 'expired';
  const who = row.inviter_name ?? `an administrator of ${row.company_name}`;
  const what = { used: 'has been used already', revoked: 'was withdrawn', expired: 'has expired' }[reason];
  return new DomainError(404, 'not_found', `This invitation ${what}: ask ${who} for a new one`, [
    { field: 'token', message: what, reason, companyName: row.company_name, inviterName: row.inviter_name ?? null },
  ]);
}

/** Get Invitation: what the invitee sees before accepting; no authentication. */
export async function describeInvitation(ctx: ServiceContext, token: string) {
  const tokenHash = hashOf(token);
  const row = await invitations.findLiveInvitation(ctx.db, tokenHash, new Date().toISOString());
  if (!row) throw await invitationGone(ctx.db, tokenHash);
  const teams = [];
  for (const teamId of JSON.parse(row.team_ids) as string[]) {
    const team = await findTeamById(ctx.db, teamId);
    if (team) teams.push({ _id: team.id, name: team.name });
  }
  const board = row.board_id ? await findBoardById(ctx.db, row.board_id) : undefined;
  const account = await findUserByEmail(ctx.db, row.email);
  return {
    companyName: row.company_name,
    inviterName: row.inviter_name ?? null,
    email: row.email,
    role: row.role,
    expiresAt: row.expires_at,
    teams,
    board: board && !board.deleted_at ? { _id: board.id, name: board.name } : null,
    hasPassword: Boolean(account?.password_hash),
  };
}

/**
 * Accept Invitation: joins the invitation's company (with its role) and teams, and signs in. A
 * signed-in caller with the invited email joins as it is; otherwise the invitee gives a name and a
 * password (an existing account with a password must sign in first, so a leaked link cannot take it over).
 */
export async function acceptInvitation(
  ctx: ServiceContext,
  policy: SessionPolicy,
  token: string,
  input: { fullName?: string | undefined; password?: string | undefined },
  caller: Caller | undefined,
  meta: SessionMeta,
): Promise<SignedIn | { user: ReturnType<typeof userRecord>; session: undefined }> {
  const row = await invitations.findLiveInvitation(ctx.db, hashOf(token), new Date().toISOString());
  if (!row) throw await invitationGone(ctx.db, hashOf(token));
  const signedInUser = caller ? await findUserById(ctx.db, caller.userId) : undefined;
  const sameUser = signedInUser?.email === row.email ? signedInUser : undefined;
  let passwordHash: string | undefined;
  if (!sameUser) {
    const existing = await findUserByEmail(ctx.db, row.email);
    if (existing?.password_hash) throw new ConflictError('This email already has an account: sign in, then open the invitation again');
    // a password made here would be a way in around single sign-on: sign in through it, then open the invitation
    const company = await companies.findCompanyById(ctx.db, row.company_id);
    const keptBy = company?.single_sign_on_only === 1 && row.role !== 'owner' ? company : existing && (await singleSignOnOnlyCompanyOf(ctx.db, existing.id));
    if (keptBy) throw new SingleSignOnRequired(keptBy.name, 'accepting with a password (sign in with single sign-on, then open the invitation again)');
    if (!input.fullName?.trim()) throw new ValidationError('fullName is required', [{ field: 'body.fullName', message: 'is required' }]);
    if (input.password === undefined) throw new ValidationError('password is required', [{ field: 'body.password', message: 'is required' }]);
    checkNewPassword(input.password);
    passwordHash = await hashPassword(input.password);
  }
  return inTransaction(ctx, async (trx) => {
    if (!(await invitations.markAccepted(trx, row.id, new Date().toISOString()))) throw await invitationGone(trx, row.token_hash);
    const at = new Date().toISOString();
    const user = sameUser ?? (await findOrCreateUser(trx, row.email, input.fullName ?? row.email, at));
    if (passwordHash) {
      await setPasswordHash(trx, user.id, passwordHash);
      await sessions.endSessionsOfUser(trx, user.id, at);
    }
    await joinInvited(trx, row, user.id, at);
    // an invitation made for a person of an import puts the new member where that person was
    await placeInvitedPerson(ctx, trx, row.id, user.id);
    await recordAudit(
      trx,
      { userId: user.id, client: meta },
      { kind: 'invitation.accepted', company: row.company_id, target: { type: 'invitation', id: row.id }, details: { email: row.email, role: row.role } },
      at,
    );
    if (sameUser) return { user: userRecord(user), session: undefined };
    return { user: userRecord(user), session: await startSession(trx, policy, user.id, meta) };
  });
}

/** Adds the user to the invitation's company and teams, as Add Company Member and Add Team Member record them. */
export async function joinInvited(trx: Transaction, row: invitations.InvitationRow, userId: string, at: string): Promise<void> {
  if (!(await companies.findCompanyMember(trx, row.company_id, userId))) {
    await companies.insertCompanyMember(trx, { company_id: row.company_id, user_id: userId, role: row.role, created_at: at });
    recordEvent(trx, null, 'company.member.added', { company: row.company_id, user: userId }, { user: userId, role: row.role, invitation: row.id }, at);
  }
  for (const teamId of JSON.parse(row.team_ids) as string[]) {
    const team = await findTeamById(trx, teamId);
    if (team) await joinTeam(trx, null, team, userId, at);
  }
}

/** Request Password Reset: mails a link when the email has an account and mail is set up; the answer never says which. */
export async function requestPasswordReset(ctx: ServiceContext, email: string, links: Links): Promise<void> {
  if (!links.mail) return;
  const user = await findUserByEmail(ctx.db, email.trim().toLowerCase());
  // no link for a member kept to single sign-on either: the answer is the same
  if (!user || (await singleSignOnOnlyCompanyOf(ctx.db, user.id))) return;
  // the link goes out by mail only: the answer never says whether the email has an account
  await issueReset(ctx, user.id, links, true);
}

async function issueReset(ctx: ServiceContext, userId: string, links: Links, mail: boolean, actor: AuditActor = { userId: null }): Promise<{ url: string }> {
  const { token, tokenHash } = newLinkToken('tbr_');
  const url = `${links.baseUrl}/reset#${token}`;
  await inTransaction(ctx, async (trx) => {
    const user = await findUserById(trx, userId);
    if (!user) throw new NotFoundError('User');
    const now = Date.now();
    await invitations.insertPasswordReset(trx, {
      id: newId(now),
      user_id: userId,
      token_hash: tokenHash,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + RESET_LIFETIME_MS).toISOString(),
      used_at: null,
    });
    await recordAudit(trx, actor, {
      kind: mail ? 'password.reset.mailed' : 'password.reset.issued',
      company: { ofUser: userId },
      target: { type: 'user', id: userId },
    });
    if (mail) {
      const language = mailLanguage(user.locale);
      await enqueueMail(trx, {
        to: user.email,
        subject: mailText(language, 'resetSubject'),
        body: mailText(language, 'resetBody', { email: user.email, url }),
        language,
      });
    }
  });
  return { url };
}

/** An owner's or admin's reset link for a member (when no mail is set up): the link is the answer. */
export async function issueMemberPasswordReset(ctx: ServiceContext, caller: Caller, companyId: string, userId: string, links: Links): Promise<{ url: string }> {
  await requireAdmin(ctx, caller, companyId);
  if (!(await companies.findCompanyMember(ctx.db, companyId, userId))) throw new NotFoundError('Member');
  await refuseUnlessPasswordsAllowed(ctx.db, userId, 'a password reset');
  return issueReset(ctx, userId, links, false, actorOf(caller));
}

/** Get Password Reset: the email whose password the link sets, or why the link no longer works. */
export async function describePasswordReset(ctx: ServiceContext, token: string): Promise<{ email: string; expiresAt: string }> {
  const row = await invitations.findPasswordResetByToken(ctx.db, hashOf(token));
  if (!row) throw new NotFoundError('Password reset link');
  if (row.used_at || row.expires_at <= new Date().toISOString()) throw resetGone(row.used_at ? 'used' : 'expired');
  return { email: row.email, expiresAt: row.expires_at };
}

function resetGone(reason: Exclude<LinkGoneReason, 'revoked'>): DomainError {
  const what = reason === 'used' ? 'has been used already' : 'has expired (a link lives one hour)';
  return new DomainError(404, 'not_found', `This password reset link ${what}: ask for a new one from the sign-in page`, [
    { field: 'token', message: what, reason },
  ]);
}

/** Reset Password: the link's token, once; a new password; every other session of the user ends, and a new one starts. */
export async function resetPassword(
  ctx: ServiceContext,
  policy: SessionPolicy,
  token: string,
  password: string,
  meta: SessionMeta,
): Promise<SignedIn | SecondFactorNeeded> {
  checkNewPassword(password);
  const passwordHash = await hashPassword(password);
  const tokenHash = hashOf(token);
  const signedIn = await inTransaction(ctx, async (trx) => {
    const at = new Date().toISOString();
    const userId = await invitations.usePasswordReset(trx, tokenHash, at);
    if (!userId) return undefined;
    // a link made before the company kept its members to single sign-on: refused (and left unused, as the transaction rolls back)
    await refuseUnlessPasswordsAllowed(trx, userId, 'a password reset');
    await setPasswordHash(trx, userId, passwordHash);
    await sessions.endSessionsOfUser(trx, userId, at);
    await recordAudit(trx, { userId, client: meta }, { kind: 'password.reset', company: { ofUser: userId }, target: { type: 'user', id: userId } }, at);
    const user = await findUserById(trx, userId);
    if (!user) throw new NotFoundError('User');
    // a reset link replaces the password, not the second factor: the code is asked before a session
    const secondFactor = await secondFactorChallenge(ctx, userId, 'password_reset', trx);
    if (secondFactor) return { secondFactor };
    return { user: userRecord(user), session: await startSession(trx, policy, userId, meta) };
  });
  if (signedIn) return signedIn;
  await describePasswordReset(ctx, token);
  throw new NotFoundError('Password reset link');
}
