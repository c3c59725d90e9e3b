import type { Executor } from '../../storage/database.ts';
import type { Reach } from '../../storage/repositories/boards.ts';
import { findTeamScope } from '../../storage/repositories/teams.ts';
import type { ServiceContext } from '../context.ts';
import { type Caller, isCompanyAdmin, requireReach, type Scope } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';

/**
 * The team's id and company when the caller reaches it (team member, or company owner/admin) and it
 * matches the request's scope; else 404.
 */
export async function reachableTeam(db: Executor, caller: Caller, teamId: string, scope: Scope) {
  return requireReach(caller, await findTeamScope(db, teamId), 'Team', scope);
}

/**
 * What a collection request covers: everything the caller reaches, narrowed to the request's
 * `companyId`/`teamId`. A company or team named there that the caller does not reach is a 404, like
 * any other resource out of reach, rather than an empty collection.
 */
export async function collectionReach(ctx: ServiceContext, caller: Caller, scope: Scope): Promise<Reach> {
  if (scope.teamId !== undefined) {
    await reachableTeam(ctx.db, caller, scope.teamId, { companyId: scope.companyId });
  } else if (scope.companyId !== undefined && !caller.companyRoles.has(scope.companyId)) {
    throw new NotFoundError('Company');
  }
  const companyIds = [...caller.companyRoles.keys()];
  return {
    companyIds,
    adminCompanyIds: companyIds.filter((id) => isCompanyAdmin(caller, id)),
    teamIds: [...caller.teamIds],
    companyId: scope.companyId,
    teamId: scope.teamId,
  };
}
