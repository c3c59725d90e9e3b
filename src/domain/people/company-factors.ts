/**
 * A company's rule on second factors (docs/people.md, "A company that requires a second factor"):
 * its owners require one of every member (who then set one up at their next sign-in, before the
 * app), see who has one, and reset a member's factors when a phone is lost. Each change is an entry
 * of the audit log. Owners only: an admin reads no one's security settings (as with the audit log).
 */
import type { CompanyRole } from '../../storage/database.ts';
import * as companies from '../../storage/repositories/companies.ts';
import * as factors from '../../storage/repositories/second-factors.ts';
import { requireAccess } from '../access/access.ts';
import { actorOf, recordAudit } from '../audit/log.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';
import { inTransaction } from '../shared/transaction.ts';
import { mailFactorNotice, type SecurityMail } from './mail.ts';

const OWNERS_ONLY = "Only company owners may see and change its members' second factors";

export interface MemberFactors {
  user: string;
  email: string;
  fullName: string;
  role: CompanyRole;
  /** The second factors the member has set up (`totp`, `passkey`); empty: none. */
  methods: string[];
}

export interface CompanyFactors {
  required: boolean;
  members: MemberFactors[];
}

export async function getCompanyFactors(ctx: ServiceContext, caller: Caller, companyId: string): Promise<CompanyFactors> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, owner: true, refusal: OWNERS_ONLY });
  const company = await companies.findCompanyById(ctx.db, companyId);
  if (!company) throw new NotFoundError('Company');
  const members = await companies.findCompanyMembers(ctx.db, companyId);
  const ids = members.map((member) => member.id);
  const withTotp = await factors.usersWithTotp(ctx.db, ids);
  const withPasskeys = await factors.usersWithPasskeys(ctx.db, ids);
  return {
    required: company.require_second_factor === 1,
    members: members.map((member) => ({
      user: member.id,
      email: member.email,
      fullName: member.full_name,
      role: member.role,
      methods: [...(withTotp.has(member.id) ? ['totp'] : []), ...(withPasskeys.has(member.id) ? ['passkey'] : [])],
    })),
  };
}

/** Requires (or no longer requires) a second factor of the company's members; those without one set one up at their next sign-in. */
export async function setSecondFactorRequired(ctx: ServiceContext, caller: Caller, companyId: string, required: boolean): Promise<CompanyFactors> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, owner: true, refusal: OWNERS_ONLY });
  await inTransaction(ctx, async (trx) => {
    await factors.setCompanySecondFactorRequired(trx, companyId, required);
    await recordAudit(trx, actorOf(caller), {
      kind: 'company.second_factor.required',
      company: companyId,
      target: { type: 'company', id: companyId },
      details: { required },
    });
  });
  return getCompanyFactors(ctx, caller, companyId);
}

/**
 * Removes every second factor of a member (a lost phone): their app, passkeys and recovery codes, and their
 * sign-ins waiting for a code. Recorded in the audit log of each company the person belongs to; the
 * person is told by mail when they had a factor.
 */
export async function resetMemberFactors(ctx: ServiceContext, caller: Caller, companyId: string, userId: string, mail?: SecurityMail): Promise<void> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, owner: true, refusal: OWNERS_ONLY });
  await inTransaction(ctx, async (trx) => {
    if (!(await companies.findCompanyMember(trx, companyId, userId))) throw new NotFoundError('Company member');
    const hadTotp = await factors.deleteTotpFactor(trx, userId);
    const passkeys = await factors.deletePasskeysOfUser(trx, userId);
    await factors.deleteRecoveryCodes(trx, userId);
    await factors.deleteSignInChallengesOf(trx, userId);
    await recordAudit(trx, actorOf(caller), {
      kind: 'second_factor.reset',
      company: { ofUser: userId },
      target: { type: 'user', id: userId },
      details: { methods: [...(hadTotp ? ['totp'] : []), ...(passkeys ? ['passkey'] : [])], by: 'owner', company: companyId },
    });
    if (hadTotp || passkeys)
      await mailFactorNotice(trx, mail, userId, {
        kind: 'reset',
        ownerId: caller.userId,
        companyId,
        required: (await companies.findCompanyById(trx, companyId))?.require_second_factor === 1,
      });
  });
}
