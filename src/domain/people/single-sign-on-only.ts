/**
 * A company's "sign in with single sign-on only" (docs/people.md; docs/decisions/0285-single-sign-on-only.md):
 * its members sign in through the directory (LDAP) or the OpenID Connect provider, so that leaving the
 * directory ends their access. Passwords of this server, their resets and passkeys alone are refused
 * for them; the company's owners keep them, as the way in when the provider is down (break-glass).
 */
import type { Executor } from '../../storage/database.ts';
import * as companies from '../../storage/repositories/companies.ts';
import { requireAccess } from '../access/access.ts';
import { actorOf, recordAudit } from '../audit/log.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { ConflictError, DomainError, NotFoundError } from '../shared/errors.ts';
import { inTransaction } from '../shared/transaction.ts';

const OWNERS_ONLY = 'Only company owners may see and change how its members sign in';

export interface SignInPolicy {
  singleSignOnOnly: boolean;
  /** Whether this server has single sign-on set up at all (LDAP_URL or OIDC_ISSUER). */
  singleSignOnAvailable: boolean;
}

/** The refusal of a password (or passkey alone) to a member kept to single sign-on: a 403 naming the company. */
export class SingleSignOnRequired extends DomainError {
  constructor(companyName: string, what: string) {
    super(403, 'forbidden', `${companyName} signs its members in through single sign-on only: ${what} is refused; use your organisation's sign-in`, [
      { field: 'body', message: 'single sign-on only', reason: 'single_sign_on_only' },
    ]);
  }
}

/** The company that keeps the user to single sign-on, if any: one with the setting on where the user is not an owner. */
export function singleSignOnOnlyCompanyOf(db: Executor, userId: string): Promise<{ id: string; name: string } | undefined> {
  return companies.findSingleSignOnOnlyCompanyOf(db, userId);
}

/** Throws the 403 when a company keeps the user to single sign-on; `what`: the refused way ("a password", "a password reset"). */
export async function refuseUnlessPasswordsAllowed(db: Executor, userId: string, what: string): Promise<void> {
  const company = await singleSignOnOnlyCompanyOf(db, userId);
  if (company) throw new SingleSignOnRequired(company.name, what);
}

export async function getSignInPolicy(ctx: ServiceContext, caller: Caller, companyId: string, available: boolean): Promise<SignInPolicy> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, owner: true, refusal: OWNERS_ONLY });
  const company = await companies.findCompanyById(ctx.db, companyId);
  if (!company) throw new NotFoundError('Company');
  return { singleSignOnOnly: company.single_sign_on_only === 1, singleSignOnAvailable: available };
}

/**
 * Turns "sign in with single sign-on only" on or off (owners); recorded in the audit log. Turning it
 * on needs single sign-on on this server (a 409 otherwise: nobody but the owners could sign in).
 * Sessions already open stay open until they end.
 */
export async function setSingleSignOnOnly(ctx: ServiceContext, caller: Caller, companyId: string, on: boolean, available: boolean): Promise<SignInPolicy> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, owner: true, refusal: OWNERS_ONLY });
  if (on && !available) {
    throw new ConflictError('This server has no single sign-on set up (LDAP_URL or OIDC_ISSUER): members could not sign in', [
      { field: 'body.singleSignOnOnly', message: 'no single sign-on on this server' },
    ]);
  }
  await inTransaction(ctx, async (trx) => {
    const company = await companies.findCompanyById(trx, companyId);
    if (!company) throw new NotFoundError('Company');
    if ((company.single_sign_on_only === 1) === on) return;
    await companies.setCompanySingleSignOnOnly(trx, companyId, on);
    await recordAudit(trx, actorOf(caller), {
      kind: 'company.single_sign_on_only.changed',
      company: companyId,
      target: { type: 'company', id: companyId },
      details: { singleSignOnOnly: on },
    });
  });
  return getSignInPolicy(ctx, caller, companyId, available);
}
