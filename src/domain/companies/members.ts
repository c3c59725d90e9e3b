/**
 * The life of a company and its members: renaming it, changing a member's role, removing a member,
 * leaving. A company always keeps an owner: removing or demoting its last owner is a 409. Every
 * change first records a change of the company (`__v` + 1), which takes its row lock, so two
 * requests cannot both take away "the other" owner. A removed member loses reach from its next
 * request (reach is read per request, src/plugins/auth.ts); what it wrote stays, with its name.
 */
import type { CompanyMember } from '../../schemas/companies.ts';
import type { Company } from '../../schemas/records.ts';
import type { CompanyRole, Transaction } from '../../storage/database.ts';
import * as companies from '../../storage/repositories/companies.ts';
import { findUserById } from '../../storage/repositories/users.ts';
import { requireAccess } from '../access/access.ts';
import { companyRecord } from '../account/records.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../shared/errors.ts';
import { nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { companyMemberRecord } from './records.ts';

type CompanyScope = { companyId?: string | undefined };

/** The company's change recorded (its lock) inside `trx`; a 404 when it went meanwhile. */
async function recordChange(trx: Transaction, companyId: string, at: string, name?: string) {
  const row = await companies.recordCompanyChange(trx, companyId, at, name);
  if (!row) throw new NotFoundError('Company');
  return row;
}

/** Update Company: owners and admins rename it. */
export async function updateCompany(ctx: ServiceContext, caller: Caller, companyId: string, scope: CompanyScope, input: { name: string }): Promise<Company> {
  const { role } = await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, scope });
  if (role === 'member') throw new ForbiddenError('Only company owners and admins may rename the company');
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const row = await recordChange(trx, companyId, at, input.name.trim());
    recordEvent(trx, caller, 'company.updated', { company: companyId }, { name: row.name }, at);
    return companyRecord({ ...row, role });
  });
}

/**
 * List Company Members: the company's owners and admins read every member with its role and email,
 * in the order they joined; a member gets a 403 (the listing carries everyone's email).
 */
export async function listCompanyMembers(ctx: ServiceContext, caller: Caller, companyId: string, scope: CompanyScope): Promise<CompanyMember[]> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, scope, admin: true, refusal: 'Only company owners and admins may list its members' });
  const rows = await companies.findCompanyMembers(ctx.db, companyId);
  return rows.map(({ role, joined_at, ...user }) => companyMemberRecord(user, { company_id: companyId, user_id: user.id, role, created_at: joined_at }));
}

/** The member's membership under the company's lock, or a 404. */
async function membershipOf(trx: Transaction, companyId: string, userId: string) {
  const membership = await companies.findCompanyMember(trx, companyId, userId);
  const user = membership && (await findUserById(trx, userId));
  if (!membership || !user) throw new NotFoundError('Company member');
  return { membership, user };
}

/** The last-owner rule: an owner may lose that role only while another owner remains. */
async function keepAnOwner(trx: Transaction, companyId: string, role: CompanyRole, action: string): Promise<void> {
  if (role === 'owner' && (await companies.countOwners(trx, companyId)) <= 1) {
    throw new ConflictError(`The company's last owner cannot ${action}; make another member owner first`);
  }
}

/**
 * Change Company Member Role: owners change any member's role; admins change the role of members
 * (to member or admin), not that of owners or other admins. Demoting the last owner is a 409.
 */
export async function changeMemberRole(
  ctx: ServiceContext,
  caller: Caller,
  companyId: string,
  userId: string,
  scope: CompanyScope,
  role: CompanyRole,
): Promise<CompanyMember> {
  const { role: callerRole } = await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, scope });
  if (callerRole === 'member') throw new ForbiddenError('Only company owners and admins may change roles');
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    await recordChange(trx, companyId, at);
    const { membership, user } = await membershipOf(trx, companyId, userId);
    if (callerRole === 'admin' && (membership.role !== 'member' || role === 'owner')) {
      throw new ForbiddenError('Admins change the roles of members only, and make no owners');
    }
    if (membership.role === role) return companyMemberRecord(user, membership);
    await keepAnOwner(trx, companyId, membership.role, 'stop being one');
    await companies.setCompanyMemberRole(trx, companyId, userId, role);
    recordEvent(trx, caller, 'member.role.changed', { company: companyId, user: userId }, { from: membership.role, to: role }, at);
    return companyMemberRecord(user, { ...membership, role });
  });
}

/** Takes the member out of the company and its teams, keeping an owner; answers the member as it was. */
async function removeMember(trx: Transaction, caller: Caller, companyId: string, userId: string, type: string, check: (role: CompanyRole) => void) {
  const at = nowIso();
  await recordChange(trx, companyId, at);
  const { membership, user } = await membershipOf(trx, companyId, userId);
  check(membership.role);
  await keepAnOwner(trx, companyId, membership.role, type === 'member.left' ? 'leave' : 'be removed');
  const teams = await companies.removeCompanyMember(trx, companyId, userId);
  recordEvent(trx, caller, type, { company: companyId, user: userId }, { role: membership.role, teams }, at);
  return companyMemberRecord(user, membership);
}

/**
 * Remove Company Member: owners remove anyone; admins remove members and admins, not owners. The
 * user leaves the company's teams too; its API keys and everything else stay (it may belong to
 * other companies). Removing the last owner is a 409.
 */
export async function removeCompanyMember(ctx: ServiceContext, caller: Caller, companyId: string, userId: string, scope: CompanyScope): Promise<CompanyMember> {
  const { role: callerRole } = await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, scope });
  if (callerRole === 'member') throw new ForbiddenError('Only company owners and admins may remove members; use DELETE …/members/me to leave');
  return inTransaction(ctx, (trx) =>
    removeMember(trx, caller, companyId, userId, 'member.removed', (role) => {
      if (callerRole === 'admin' && role === 'owner') throw new ForbiddenError('Only owners may remove an owner');
    }),
  );
}

/** Leave Company: any member; the last owner cannot (409). */
export async function leaveCompany(ctx: ServiceContext, caller: Caller, companyId: string, scope: CompanyScope): Promise<CompanyMember> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, scope });
  return inTransaction(ctx, (trx) => removeMember(trx, caller, companyId, caller.userId, 'member.left', () => {}));
}
