import type { CompanyRole } from '../../storage/database.ts';
import type { ExpectedVersion } from './preconditions.ts';

/** Who is calling: the user behind an API key or a session, and what that user can reach. */
export interface Caller {
  userId: string;
  /** The key the request presented; null for a signed-in person's session. */
  apiKeyId: string | null;
  /** The session a signed-in person's request came with (docs/people.md); never its token. */
  session?: { id: string; csrfToken: string } | undefined;
  /** The caller's role in each company it belongs to. */
  companyRoles: ReadonlyMap<string, CompanyRole>;
  /** Teams the caller is a member of. */
  teamIds: ReadonlySet<string>;
  /** The request being served (its `X-Request-Id`), which the events of its changes carry. */
  requestId?: string | undefined;
  /** The request's `If-Match`: the revision it expects of the record its path names (./preconditions.ts). */
  expectedVersion?: ExpectedVersion | undefined;
}

/**
 * Optional `companyId`/`teamId` a request names; when given they must match the resource. Whether a
 * caller reaches a thing is decided in one place: src/domain/access/access.ts.
 */
export interface Scope {
  companyId?: string | undefined;
  teamId?: string | undefined;
}
