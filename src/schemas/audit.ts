import { Type } from 'typebox';
import { Id, IdOf, Timestamp } from './common.ts';
import { named } from './named.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';

export const AuditEntry = named(
  'AuditEntry',
  Type.Object({
    _id: Id,
    at: Timestamp,
    kind: Type.String({ description: 'what happened, e.g. `sign_in.failed`, `apikey.created`, `member.role.changed` (docs/people.md lists them)' }),
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
