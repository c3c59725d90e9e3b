import type { ServiceContext } from '../context.ts';
import { findTeamScope, type Reach } from '../../storage/repositories/boards.ts';
import { type Caller, isCompanyAdmin, requireReach, type Scope } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';

/**
 * What a collection request covers: everything the caller reaches, narrowed to the request's
 * `companyId`/`teamId`. A company or team named there that the caller does not reach is a 404, like
 * any other resource out of reach, rather than an empty collection.
 */
export async function collectionReach(ctx: ServiceContext, caller: Caller, scope: Scope): Promise<Reach> {
  if (scope.teamId !== undefined) {
    requireReach(caller, await findTeamScope(ctx.db, scope.teamId), 'Team', { companyId: scope.companyId });
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
