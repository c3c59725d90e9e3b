import type { CompanyRole } from '../../storage/database.ts';

/** Who is calling: the user behind an API key and what that user can reach. */
export interface Caller {
  userId: string;
  apiKeyId: string;
  /** The caller's role in each company it belongs to. */
  companyRoles: ReadonlyMap<string, CompanyRole>;
  /** Teams the caller is a member of. */
  teamIds: ReadonlySet<string>;
}

/**
 * Optional `companyId`/`teamId` a request names; when given they must match the resource. Whether a
 * caller reaches a thing is decided in one place: src/domain/access/access.ts.
 */
export interface Scope {
  companyId?: string | undefined;
  teamId?: string | undefined;
}
