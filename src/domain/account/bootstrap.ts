import { isUniqueViolation } from '../../storage/dialect.ts';
import type { ServiceContext } from '../context.ts';
import { ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Creates what is missing of user, company (the user as owner) and team (the user as member), and
 * issues a new API key for the user. Running it again with the same names reuses what exists.
 */
export async function bootstrap(ctx: ServiceContext, input: BootstrapInput): Promise<BootstrapResult> {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw new ValidationError(`"${input.email}" is not an email address`);
  for (const [field, value] of [['company', input.company], ['team', input.team], ['name', input.fullName]] as const) {
    if (!value.trim()) throw new ValidationError(`${field} must not be empty`);
  }

  const ensure = () => ctx.db.transaction().execute(async (trx) => {
    const now = nowIso();
    let user = await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
    if (!user) {
      user = { id: newId() };
      await trx
        .insertInto('users')
        .values({ id: user.id, email, full_name: input.fullName.trim(), photo_url: '', created_at: now, updated_at: now })
        .execute();
    }
    const userId = user.id;

    // The company of that name the user already belongs to, else a new one it owns.
    let company = await trx
      .selectFrom('companies')
      .innerJoin('company_members', 'company_members.company_id', 'companies.id')
      .select('companies.id')
      .where('companies.name', '=', input.company.trim())
      .where('company_members.user_id', '=', userId)
      .executeTakeFirst();
    if (!company) {
      company = { id: newId() };
      await trx
        .insertInto('companies')
        .values({ id: company.id, name: input.company.trim(), creator_id: userId, created_at: now, updated_at: now, version: 0 })
        .execute();
      await trx.insertInto('company_members').values({ company_id: company.id, user_id: userId, role: 'owner', created_at: now }).execute();
    }

    let team = await trx
      .selectFrom('teams')
      .select('id')
      .where('company_id', '=', company.id)
      .where('name', '=', input.team.trim())
      .executeTakeFirst();
    if (!team) {
      team = { id: newId() };
      await trx
        .insertInto('teams')
        .values({ id: team.id, company_id: company.id, name: input.team.trim(), creator_id: userId, created_at: now, updated_at: now, version: 0 })
        .execute();
    }
    await trx
      .insertInto('team_members')
      .values({ team_id: team.id, user_id: userId, created_at: now })
      .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
      .execute();
    return { companyId: company.id, teamId: team.id, userId };
  });
  // Two bootstraps for one new email at once: the loser hits the unique email; run again to reuse it.
  const ids = await ensure().catch((error: unknown) => {
    if (isUniqueViolation(error)) return ensure();
    throw error;
  });

  const { token } = await issueApiKey(ctx, ids.userId, input.keyName ?? 'bootstrap');
  return { ...ids, apiKey: token };
}
