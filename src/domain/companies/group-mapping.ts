/**
 * Directory groups mapped to company roles and teams (docs/people.md, "Groups to roles and teams";
 * docs/decisions/0284-group-mapping.md). The mapping is the server's configuration (LDAP_GROUP_MAP,
 * OIDC_GROUP_MAP); at each sign-in through the directory or the provider, the person's memberships
 * of the companies and teams it names are made to match the person's groups. What it does not name
 * (other companies, teams people made themselves) it leaves alone; it never takes away a company's
 * last owner. Every change is the same event (and audit entry) an owner's change would record.
 */
import type { CompanyRole, Transaction } from '../../storage/database.ts';
import * as companies from '../../storage/repositories/companies.ts';
import * as teams from '../../storage/repositories/teams.ts';
import { findTeamsOfUser } from '../../storage/repositories/users.ts';
import { recordEvent } from '../events/record.ts';
import { joinTeam } from './teams.ts';

/** One line of the mapping: members of `group` get `role` in `company` (an id or an exact name) and join its `teams`. */
export interface GroupRule {
  group: string;
  company: string;
  role?: CompanyRole | undefined;
  teams?: readonly string[] | undefined;
}

/** A person's groups: LDAP distinguished names (a rule may name the DN or its first value, `cn=x,…` → `x`) or a claim's values. */
export type Groups = readonly string[];

const RANK: Record<CompanyRole, number> = { member: 0, admin: 1, owner: 2 };

/** The forms of a group a rule may name, compared without case: the name itself and, for a DN, its first value. */
function namesOf(group: string): string[] {
  const whole = group.trim().toLowerCase();
  const dn = whole.replace(/\s*,\s*/g, ',').replace(/\s*=\s*/g, '=');
  const first = /^[a-z0-9.-]+=((?:\\.|[^,\\])+)(?:,|$)/.exec(dn)?.[1];
  return [whole, dn, ...(first && dn.includes(',') ? [first] : [])];
}

/** Whether the person's groups include the rule's group. */
export function matchesGroup(rule: GroupRule, groups: Groups): boolean {
  const wanted = namesOf(rule.group)[1]!;
  return groups.some((group) => namesOf(group).includes(wanted));
}

/** The company a rule names: by id, else the only company of that name (a name several companies share names none). */
async function resolveCompany(trx: Transaction, reference: string): Promise<companies.CompanyRow | undefined> {
  const byId = await companies.findCompanyById(trx, reference);
  if (byId) return byId;
  const named = await companies.findCompaniesByName(trx, reference);
  return named.length === 1 ? named[0] : undefined;
}

async function resolveTeam(trx: Transaction, companyId: string, reference: string): Promise<teams.TeamRow | undefined> {
  const byId = await teams.findTeamById(trx, reference);
  if (byId?.company_id === companyId) return byId;
  return teams.findTeamByName(trx, companyId, reference);
}

/** What one sign-in changed, for the sign-in's audit entry. */
export interface MappingOutcome {
  /** `company:role` for each company joined or whose role changed, `-company` for each left. */
  changes: string[];
  /** Rules whose company or team is not found (by id or by a unique name): they did nothing. */
  unresolved: string[];
}

/**
 * Makes the user's memberships of the companies and teams named by `rules` match `groups`, inside
 * `trx` (the sign-in's transaction). In a named company the highest role of the matching rules is the
 * user's role; no matching rule takes the user out of it; of its named teams, the user is in exactly
 * those of the matching rules. The company's last owner stays its owner and member.
 */
export async function applyGroupMapping(trx: Transaction, rules: readonly GroupRule[], userId: string, groups: Groups, at: string): Promise<MappingOutcome> {
  const outcome: MappingOutcome = { changes: [], unresolved: [] };
  const byCompany = new Map<string, { company: companies.CompanyRow; rules: GroupRule[] }>();
  for (const rule of rules) {
    const company = await resolveCompany(trx, rule.company);
    if (!company) {
      outcome.unresolved.push(rule.company);
      continue;
    }
    const entry = byCompany.get(company.id) ?? { company, rules: [] };
    entry.rules.push(rule);
    byCompany.set(company.id, entry);
  }
  const teamsOfUser = new Set((await findTeamsOfUser(trx, userId)).map((team) => team.id));
  for (const { company, rules: companyRules } of byCompany.values()) {
    const matched = companyRules.filter((rule) => matchesGroup(rule, groups));
    const named = new Map<string, teams.TeamRow>();
    const wanted = new Set<string>();
    for (const rule of companyRules) {
      for (const reference of rule.teams ?? []) {
        const team = await resolveTeam(trx, company.id, reference);
        if (!team) {
          outcome.unresolved.push(`${company.name}/${reference}`);
          continue;
        }
        named.set(team.id, team);
        if (matched.includes(rule)) wanted.add(team.id);
      }
    }
    const membership = await companies.findCompanyMember(trx, company.id, userId);
    const role = matched.reduce<CompanyRole | undefined>((best, rule) => {
      const candidate = rule.role ?? 'member';
      return best === undefined || RANK[candidate] > RANK[best] ? candidate : best;
    }, undefined);

    if (role === undefined) {
      if (!membership) continue;
      // the company's lock first, then the last-owner rule, as every change of its members
      await companies.recordCompanyChange(trx, company.id, at);
      if (membership.role === 'owner' && (await companies.countOwners(trx, company.id)) <= 1) continue;
      const left = await companies.removeCompanyMember(trx, company.id, userId);
      recordEvent(trx, null, 'member.removed', { company: company.id, user: userId }, { role: membership.role, teams: left }, at);
      outcome.changes.push(`-${company.name}`);
      continue;
    }
    if (!membership) {
      await companies.recordCompanyChange(trx, company.id, at);
      await companies.insertCompanyMember(trx, { company_id: company.id, user_id: userId, role, created_at: at });
      recordEvent(trx, null, 'company.member.added', { company: company.id, user: userId }, { user: userId, role }, at);
      outcome.changes.push(`${company.name}:${role}`);
    } else if (membership.role !== role) {
      await companies.recordCompanyChange(trx, company.id, at);
      const lastOwner = membership.role === 'owner' && (await companies.countOwners(trx, company.id)) <= 1;
      if (!lastOwner) {
        await companies.setCompanyMemberRole(trx, company.id, userId, role);
        recordEvent(trx, null, 'member.role.changed', { company: company.id, user: userId }, { from: membership.role, to: role }, at);
        outcome.changes.push(`${company.name}:${role}`);
      }
    }
    for (const team of named.values()) {
      const member = teamsOfUser.has(team.id);
      if (wanted.has(team.id) && !member) {
        await joinTeam(trx, null, team, userId, at);
      } else if (!wanted.has(team.id) && member) {
        await teams.lockTeam(trx, team.id);
        if (await teams.removeTeamMember(trx, team.id, userId)) {
          await teams.recordTeamChange(trx, team.id, at);
          recordEvent(trx, null, 'team.member.removed', { company: company.id, team: team.id, user: userId }, { user: userId }, at);
        }
      }
    }
  }
  return outcome;
}
