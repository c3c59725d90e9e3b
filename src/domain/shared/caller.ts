import type { CompanyRole } from '../../storage/database.ts';

/** The records a write can be made conditional on (the last of these a route's path names). */
export type VersionedKind = 'card' | 'list' | 'board' | 'label' | 'checklist' | 'item' | 'comment' | 'discussion' | 'custom-field';

/** What an `If-Match` asks: the record, and the revisions (`__v`) the caller accepts. */
export interface ExpectedVersion {
  kind: VersionedKind;
  id: string;
  /** Empty when the header named only tags that are no revision (never met: a 412 with the current `__v`). */
  versions: readonly number[];
}

/**
 * What an API key made to do less holds its caller to (docs/people.md, "API keys"); decided in
 * src/domain/access/access.ts. A key without limits, and a session, have none.
 */
export interface KeyLimits {
  /** Only reads: every write answers 403. */
  readOnly: boolean;
  /** The only teams the key reaches (team id → its company id); null: every team its user reaches. */
  teams: ReadonlyMap<string, string> | null;
  /** When the key stops working (epoch ms); null: never. */
  expiresAtMs: number | null;
}

/** Where a request came from (the audit log records it). */
export interface ClientMeta {
  ip?: string | undefined;
  userAgent?: string | undefined;
}

/** Who is calling: the user behind an API key or a session, and what that user can reach. */
export interface Caller {
  userId: string;
  /** The key the request presented; null for a signed-in person's session. */
  apiKeyId: string | null;
  /** The limits of the key the request presented, when it has any. */
  keyLimits?: KeyLimits | undefined;
  /** The session a signed-in person's request came with (docs/people.md); never its token. */
  session?: { id: string; csrfToken: string } | undefined;
  /** The caller's role in each company it belongs to. */
  companyRoles: ReadonlyMap<string, CompanyRole>;
  /** Teams the caller is a member of. */
  teamIds: ReadonlySet<string>;
  /** The board rule acting with this user's reach (src/domain/rules): its changes' events name it as their actor. */
  rule?: { id: string; name: string } | undefined;
  /** The client address and user agent of the request being served. */
  client?: ClientMeta | undefined;
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
