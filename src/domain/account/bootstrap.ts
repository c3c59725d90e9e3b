import { findCompanyOfUserByName } from '../../storage/repositories/companies.ts';
import { findTeamByName } from '../../storage/repositories/teams.ts';
import { findOrCreateUser, insertCompanyOwnedBy, normaliseEmail, retryOnceOnUniqueViolation } from '../companies/companies.ts';
import { insertTeamWithCreator, joinTeam } from '../companies/teams.ts';
import type { ServiceContext } from '../context.ts';
import { ValidationError } from '../shared/errors.ts';
import { nowIso } from '../shared/ids.ts';
import { issueApiKey } from './service.ts';

export interface BootstrapInput {
  company: string;
  team: string;
  email: string;
  fullName: string;
  keyName?: string;
}

export interface BootstrapResult {
  companyId: string;
  teamId: string;
  userId: string;
  apiKey: string;
}

/**
 * Creates what is missing of user, company (the user as owner) and team (the user as member), and
 * issues a new API key for the user. Running it again with the same names reuses what exists.
 */
export async function bootstrap(ctx: ServiceContext, input: BootstrapInput): Promise<BootstrapResult> {
  const email = normaliseEmail(input.email, 'email');
  for (const [field, value] of [
    ['company', input.company],
    ['team', input.team],
    ['name', input.fullName],
  ] as const) {
    if (!value.trim()) throw new ValidationError(`${field} must not be empty`);
  }

  // Two bootstraps for one new email at once: the loser hits the unique email; the second run reuses it.
  const ids = await retryOnceOnUniqueViolation(ctx, async (trx) => {
    const now = nowIso();
    const userId = (await findOrCreateUser(trx, email, input.fullName, now)).id;
    // The company of that name the user already belongs to, else a new one it owns.
    const companyId =
      (await findCompanyOfUserByName(trx, userId, input.company.trim()))?.id ?? (await insertCompanyOwnedBy(trx, null, input.company, userId, now)).id;
    const team = await findTeamByName(trx, companyId, input.team.trim());
    const teamId = team ? team.id : (await insertTeamWithCreator(trx, null, companyId, input.team, userId, now)).id;
    // an existing team gains the user as any change of its members does (`__v`, event)
    if (team) await joinTeam(trx, null, team, userId, now);
    return { companyId, teamId, userId };
  });

  const { token } = await issueApiKey(ctx, ids.userId, input.keyName ?? 'bootstrap');
  return { ...ids, apiKey: token };
}
