import type { CompanyMember } from '../../schemas/companies.ts';
import type { Company } from '../../schemas/records.ts';
import type { CompanyRole, Executor, Transaction } from '../../storage/database.ts';
import { UniqueViolation } from '../../storage/errors.ts';
import * as companies from '../../storage/repositories/companies.ts';
import { findCompaniesOfUser, findUserByEmail, insertUser, type UserRow } from '../../storage/repositories/users.ts';
import { requireAccess, requireFullKey, withinKeyTeams } from '../access/access.ts';
import { companyRecord } from '../account/records.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { newMade } from '../shared/records.ts';
import { inTransaction } from '../shared/transaction.ts';
import { companyMemberRecord } from './records.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The stored form of an email (trimmed, lower case); a 400 naming `field` when it is not one. */
export function normaliseEmail(raw: string, field = 'body.email'): string {
  const email = raw.trim().toLowerCase();
  if (!EMAIL.test(email)) throw new ValidationError(`"${raw}" is not an email address`, [{ field, message: 'must be an email address' }]);
  return email;
}

/** The user with this (normalised) email, created with `fullName` when there is none. */
export async function findOrCreateUser(db: Executor, email: string, fullName: string, at: string): Promise<UserRow> {
  const existing = await findUserByEmail(db, email);
  if (existing) return existing;
  const row = { id: newId(), email, full_name: fullName.trim(), photo_url: '', created_at: at, updated_at: at };
  await insertUser(db, row);
  return { ...row, password_hash: null, email_notifications: 0, locale: null, time_zone: null, email_cadence: 'minute', summary_sent_on: null };
}

/** A new company with `ownerId` as its owner, made by `caller` (null: by the administration command). */
export async function insertCompanyOwnedBy(trx: Transaction, caller: Caller | null, name: string, ownerId: string, at: string) {
  const row = { ...newMade(newId(), ownerId, at), name: name.trim() };
  await companies.insertCompany(trx, row);
  await companies.insertCompanyMember(trx, { company_id: row.id, user_id: ownerId, role: 'owner', created_at: at });
  recordEvent(trx, caller, 'company.created', { company: row.id }, { company: row.id, name: row.name, owner: ownerId }, at);
  return { ...row, require_second_factor: 0 as const, single_sign_on_only: 0 as const, role: 'owner' as const };
}

/**
 * Runs `work` in a transaction, once more when it fails on a unique key: two requests that create
 * the same new user at once collide on its email, and the second run then finds the user.
 */
export async function retryOnceOnUniqueViolation<T>(ctx: ServiceContext, work: (trx: Transaction) => Promise<T>): Promise<T> {
  const run = () => inTransaction(ctx, work);
  return run().catch((error: unknown) => {
    if (error instanceof UniqueViolation) return run();
    throw error;
  });
}

/** Get Companies: the caller's companies with its role in each, oldest first. */
export async function listCompanies(ctx: ServiceContext, caller: Caller): Promise<Company[]> {
  return withinKeyTeams(caller, { companies: await findCompaniesOfUser(ctx.db, caller.userId) }).companies.map(companyRecord);
}

/** Create Company: any user may; the caller becomes its owner. */
export async function createCompany(ctx: ServiceContext, caller: Caller, input: { name: string }): Promise<Company> {
  requireFullKey(caller, 'create a company', 'teams');
  const row = await inTransaction(ctx, (trx) => insertCompanyOwnedBy(trx, caller, input.name, caller.userId, nowIso()));
  return companyRecord(row);
}

/** Roles a caller may hand out: owners any, admins admin and member, members none. */
function mayGrant(callerRole: CompanyRole, role: CompanyRole): boolean {
  if (callerRole === 'owner') return true;
  return callerRole === 'admin' && role !== 'owner';
}

/**
 * Add Company Member: owners and admins add a user by email, creating the user when the email is
 * new (an existing user keeps its name). A user who already belongs to the company is a 409.
 */
export async function addCompanyMember(
  ctx: ServiceContext,
  caller: Caller,
  companyId: string,
  scope: { companyId?: string | undefined },
  input: { email: string; fullName: string; role: CompanyRole },
): Promise<CompanyMember> {
  const { role: callerRole } = await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, scope });
  if (!mayGrant(callerRole, input.role)) {
    throw new ForbiddenError(callerRole === 'member' ? 'Only company owners and admins may add members' : 'Only company owners may add owners');
  }
  const email = normaliseEmail(input.email);
  if (!input.fullName.trim()) throw new ValidationError('fullName must not be empty', [{ field: 'body.fullName', message: 'must not be empty' }]);

  return retryOnceOnUniqueViolation(ctx, async (trx) => {
    // the company may have gone since the caller authenticated
    if (!(await companies.findCompanyById(trx, companyId))) throw new NotFoundError('Company');
    const now = nowIso();
    const user = await findOrCreateUser(trx, email, input.fullName, now);
    if (await companies.findCompanyMember(trx, companyId, user.id)) {
      throw new ConflictError(`${email} is already a member of this company`);
    }
    const membership = { company_id: companyId, user_id: user.id, role: input.role, created_at: now };
    await companies.insertCompanyMember(trx, membership);
    recordEvent(trx, caller, 'company.member.added', { company: companyId, user: user.id }, { user: user.id, role: input.role }, now);
    return companyMemberRecord(user, membership);
  });
}
