import type { Member, Team } from '../../schemas/records.ts';
import type { Executor, Transaction } from '../../storage/database.ts';
import { findCompanyMember } from '../../storage/repositories/companies.ts';
import * as teams from '../../storage/repositories/teams.ts';
import { findTeamMembers, findTeamsOfUser } from '../../storage/repositories/users.ts';
import { requireAccess, requireFullKey, withinKeyTeams } from '../access/access.ts';
import { teamRecord } from '../account/records.ts';
import { toMember } from '../cards/records.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { newMade } from '../shared/records.ts';
import { inTransaction } from '../shared/transaction.ts';

/** Team rows → Team records, each with its members in the order they joined (one query for all). */
export async function teamRecords(db: Executor, rows: readonly teams.TeamRow[]): Promise<Team[]> {
  const members = new Map<string, Member[]>(rows.map((team) => [team.id, []]));
  for (const row of await findTeamMembers(
    db,
    rows.map((team) => team.id),
  ))
    members.get(row.team_id)?.push(toMember(row));
  return rows.map((team) => teamRecord(team, members.get(team.id) ?? []));
}

/** A new team in the company with `creatorId` as its creator and first member, made by `caller` (null: the administration command). */
export async function insertTeamWithCreator(trx: Transaction, caller: Caller | null, companyId: string, name: string, creatorId: string, at: string) {
  const row = { ...newMade(newId(), creatorId, at), company_id: companyId, name: name.trim() };
  await teams.insertTeam(trx, row);
  await teams.addTeamMember(trx, row.id, creatorId, at);
  recordEvent(trx, caller, 'team.created', { company: companyId, team: row.id }, { team: row.id, name: row.name, creator: creatorId }, at);
  return row;
}

/**
 * Adds the user to the team as the administration command does (`caller` null), with what every
 * change of a team's members does: the team's `__v` + 1 and a `team.member.added` event. False (and
 * nothing recorded) when the user already is a member.
 */
export async function joinTeam(
  trx: Transaction,
  caller: Caller | null,
  team: { id: string; company_id: string },
  userId: string,
  at: string,
): Promise<boolean> {
  // the team's lock before its member rows, as every change of its members takes them (no circular wait)
  await teams.lockTeam(trx, team.id);
  if (!(await teams.addTeamMember(trx, team.id, userId, at))) return false;
  await teams.recordTeamChange(trx, team.id, at);
  recordEvent(trx, caller, 'team.member.added', { company: team.company_id, team: team.id, user: userId }, { user: userId }, at);
  return true;
}

/**
 * Get Current Teams: the teams the caller is a member of (not every team a company owner or admin
 * reaches), oldest first, narrowed to `companyId`; a company the caller is not in is a 404.
 */
export async function listTeams(ctx: ServiceContext, caller: Caller, scope: { companyId?: string | undefined }): Promise<Team[]> {
  if (scope.companyId !== undefined) await requireAccess(ctx.db, caller, { kind: 'company', id: scope.companyId });
  const rows = (await findTeamsOfUser(ctx.db, caller.userId)).filter((team) => scope.companyId === undefined || team.company_id === scope.companyId);
  return teamRecords(ctx.db, withinKeyTeams(caller, { teams: rows }).teams);
}

/**
 * List Company Teams: every team of the company, oldest first, with its members, for its owners and
 * admins (who reach them all, unlike Get Current Teams, which lists the caller's own); a member gets
 * a 403.
 */
export async function listCompanyTeams(ctx: ServiceContext, caller: Caller, companyId: string, scope: { companyId?: string | undefined }): Promise<Team[]> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, scope, admin: true, refusal: 'Only company owners and admins may list its teams' });
  return teamRecords(ctx.db, await teams.findTeamsOfCompany(ctx.db, companyId));
}

/** Create Team: any member of the company may; the creator becomes the team's first member. */
export async function createTeam(ctx: ServiceContext, caller: Caller, companyId: string, input: { name: string }): Promise<Team> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId });
  requireFullKey(caller, 'create a team', 'teams');
  return inTransaction(ctx, async (trx) => {
    const row = await insertTeamWithCreator(trx, caller, companyId, input.name, caller.userId, nowIso());
    return (await teamRecords(trx, [row]))[0] as Team;
  });
}

/**
 * Runs a change of the team's members in one transaction: the team's `__v` grows by one first (which
 * also serialises changes to one team), and the answer is the team as this change left it.
 */
async function changeMembers(
  ctx: ServiceContext,
  caller: Caller,
  teamId: string,
  scope: Scope,
  change: (trx: Executor, team: { id: string; company_id: string }) => Promise<void>,
  event: { type: 'team.member.added' | 'team.member.removed'; user: string },
): Promise<Team> {
  return inTransaction(ctx, async (trx) => {
    const team = await requireAccess(trx, caller, { kind: 'team', id: teamId, scope });
    // the team's row as this change leaves it: the change itself writes only its members
    const at = nowIso();
    const changed = await teams.recordTeamChange(trx, team.id, at);
    if (!changed) throw new NotFoundError('Team');
    await change(trx, team);
    recordEvent(trx, caller, event.type, { company: team.company_id, team: team.id, user: event.user }, { user: event.user }, at);
    return (await teamRecords(trx, [changed]))[0] as Team;
  });
}

/**
 * Add Team Member: team members and company owners/admins add a member of the team's company.
 * A user outside the company is a 404 (the caller cannot see it); one already in the team, a 409.
 */
export async function addTeamMember(ctx: ServiceContext, caller: Caller, teamId: string, scope: Scope, userId: string): Promise<Team> {
  return changeMembers(
    ctx,
    caller,
    teamId,
    scope,
    async (trx, team) => {
      if (!(await findCompanyMember(trx, team.company_id, userId))) {
        throw new NotFoundError('User', [{ field: 'body.userId', message: "is not a member of the team's company" }]);
      }
      if (!(await teams.addTeamMember(trx, team.id, userId, nowIso()))) {
        throw new ConflictError('The user is already a member of this team', [{ field: 'body.userId', message: 'already a member' }]);
      }
    },
    { type: 'team.member.added', user: userId },
  );
}

/**
 * Remove Team Member: team members and company owners/admins take a member out (a member may leave).
 * The user loses the team's boards and cards from its next request on, unless it administers the
 * company. Its card memberships stay, hidden while it cannot reach the cards.
 */
export async function removeTeamMember(ctx: ServiceContext, caller: Caller, teamId: string, scope: Scope, userId: string): Promise<Team> {
  return changeMembers(
    ctx,
    caller,
    teamId,
    scope,
    async (trx, team) => {
      if (!(await teams.removeTeamMember(trx, team.id, userId))) throw new NotFoundError('Team member');
    },
    { type: 'team.member.removed', user: userId },
  );
}

/** Update Team: company owners and admins rename a team of the company. */
export async function updateTeam(ctx: ServiceContext, caller: Caller, teamId: string, scope: Scope, input: { name: string }): Promise<Team> {
  const team = await requireAccess(ctx.db, caller, { kind: 'team', id: teamId, scope });
  const { role } = await requireAccess(ctx.db, caller, { kind: 'company', id: team.company_id });
  if (role === 'member') throw new ForbiddenError('Only company owners and admins may rename a team');
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const changed = await teams.recordTeamChange(trx, team.id, at, input.name.trim());
    if (!changed) throw new NotFoundError('Team');
    recordEvent(trx, caller, 'team.updated', { company: changed.company_id, team: changed.id }, { name: changed.name }, at);
    return (await teamRecords(trx, [changed]))[0] as Team;
  });
}

/** Leave Team: the caller leaves a team it is a member of (a 404 when it is not one). */
export async function leaveTeam(ctx: ServiceContext, caller: Caller, teamId: string, scope: Scope): Promise<Team> {
  const team = await requireAccess(ctx.db, caller, { kind: 'team', id: teamId, scope });
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const changed = await teams.recordTeamChange(trx, team.id, at);
    if (!changed || !(await teams.removeTeamMember(trx, team.id, caller.userId))) throw new NotFoundError('Team member');
    recordEvent(trx, caller, 'team.member.left', { company: changed.company_id, team: changed.id, user: caller.userId }, {}, at);
    return (await teamRecords(trx, [changed]))[0] as Team;
  });
}
