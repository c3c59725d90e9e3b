import { Type } from 'typebox';
import { Id, IdOf, Timestamp } from './common.ts';
import { named } from './named.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';

/**
 * Every kind of audit entry the server records: the one list the entries' schema states (so the
 * OpenAPI document and the typed client name them) and the recording code is typed against.
 */
export const AUDIT_KINDS = [
  'sign_in.succeeded',
  'sign_in.failed',
  'session.ended',
  'password.changed',
  'password.reset',
  'password.reset.issued',
  'password.reset.mailed',
  'invitation.created',
  'invitation.accepted',
  'invitation.revoked',
  'company.member.added',
  'member.role.changed',
  'member.removed',
  'member.left',
  'team.member.added',
  'team.member.removed',
  'team.member.left',
  'apikey.created',
  'apikey.rotated',
  'apikey.revoked',
  'calendarfeed.created',
  'calendarfeed.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret.rotated',
  'board.exported',
  'board.imported',
  'board.deleted',
  'audit_log.exported',
  'second_factor.enrolled',
  'second_factor.disabled',
  'second_factor.failed',
  'second_factor.reset',
  'company.second_factor.required',
  'company.single_sign_on_only.changed',
  'passkey.added',
  'passkey.removed',
] as const;

export type AuditKind = (typeof AUDIT_KINDS)[number];

export const AuditEntry = named(
  'AuditEntry',
  Type.Object({
    _id: Id,
    at: Timestamp,
    kind: Type.Enum(AUDIT_KINDS, { type: 'string', description: 'what happened (docs/people.md says what each kind records)' }),
    actor: Type.Union([Type.Object({ _id: Id, email: Type.Union([Type.String(), Type.Null()]) }), Type.Null()], {
      description: 'who did it; null when nobody known (a failed sign-in of an unknown email)',
    }),
    apiKey: Type.Union([Id, Type.Null()], { description: 'the API key the actor used; null: a session or no request' }),
    ip: Type.Union([Type.String(), Type.Null()]),
    userAgent: Type.Union([Type.String(), Type.Null()]),
    target: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()], { description: 'what it was done to' }),
    details: Type.Record(Type.String(), Type.Unknown(), { description: 'what the kind adds (a reason, a role, a name); never a secret' }),
  }),
);

export const AuditCompanyParams = Type.Object({ companyId: Id }, { additionalProperties: false });

const AuditFilterFields = {
  actor: Type.Optional(IdOf('only what this person did')),
  kind: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_.]+$', description: 'only entries of this kind' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'from this time (inclusive)' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'before this time (exclusive)' })),
};

export const AuditLogQuery = Type.Object({ ...AuditFilterFields, ...PageQueryFields }, { additionalProperties: false });

export const AuditExportQuery = Type.Object(
  {
    ...AuditFilterFields,
    format: Type.Optional(
      Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], { description: 'CSV (one row per entry) or JSON Lines (one AuditEntry per line, the default)' }),
    ),
  },
  { additionalProperties: false },
);

export const AuditLogResponse = Type.Object({ message: Type.String(), entries: Type.Array(AuditEntry), nextCursor: NextCursor });
