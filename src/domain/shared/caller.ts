import type { CompanyRole } from '../../storage/database.ts';
import { NotFoundError } from './errors.ts';

/** Who is calling: the user behind an API key and what that user can reach. */
export interface Caller {
  userId: string;
  apiKeyId: string;
  /** The caller's role in each company it belongs to. */
  companyRoles: ReadonlyMap<string, CompanyRole>;
  /** Teams the caller is a member of. */
  teamIds: ReadonlySet<string>;
}

/** Optional `companyId`/`teamId` a request names; when given they must match the resource. */
export interface Scope {
  companyId?: string | undefined;
  teamId?: string | undefined;
}

export interface TeamOwned {
  company_id: string;
  team_id: string;
}

export function isCompanyAdmin(caller: Caller, companyId: string): boolean {
  const role = caller.companyRoles.get(companyId);
  return role === 'owner' || role === 'admin';
}

/** Team members reach a team's resources; company owners and admins reach the whole company. */
export function canReachTeam(caller: Caller, companyId: string, teamId: string): boolean {
  if (!caller.companyRoles.has(companyId)) return false;
  return caller.teamIds.has(teamId) || isCompanyAdmin(caller, companyId);
}

/**
 * Returns the resource when the caller reaches it and it matches the request's scope; otherwise a 404,
 * so that the existence of another company's data does not leak.
 */
export function requireReach<T extends TeamOwned>(
  caller: Caller,
  resource: T | undefined,
  what: string,
  scope: Scope = {},
): T {
  if (
    !resource ||
    !canReachTeam(caller, resource.company_id, resource.team_id) ||
    (scope.companyId !== undefined && scope.companyId !== resource.company_id) ||
    (scope.teamId !== undefined && scope.teamId !== resource.team_id)
  ) {
    throw new NotFoundError(what);
  }
  return resource;
}
