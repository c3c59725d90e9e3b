import { type Static, type TSchema, Type } from 'typebox';
import { TIERS } from '../config.ts';
import { MAX_BULK_ITEMS } from '../domain/shared/bulk.ts';
import { ID_PATTERN } from '../domain/shared/ids.ts';

/** An id whose description says what it names. */
export const IdOf = (description: string) => Type.String({ pattern: ID_PATTERN, description });
export const Id = IdOf('24 lowercase hex characters');
export const Timestamp = Type.String({ description: 'ISO 8601 UTC with milliseconds', examples: ['2026-11-21T09:30:00.000Z'] });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/** `companyId` and `teamId`: optional; when given they must match the resource (else 404). */
export const ScopeQuery = Type.Object(
  {
    companyId: Type.Optional(Id),
    teamId: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type ScopeQuery = Static<typeof ScopeQuery>;

/** For operations that take no query parameters: any given is a 400. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const ErrorBody = Type.Object(
  {
    message: Type.String(),
    code: Type.String(),
    requestId: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  { $id: 'ErrorBody' },
);

/** Names of non-empty, trimmed strings: names of boards, cards, attachments... */
export const Name = Type.String({ minLength: 1, maxLength: 512, pattern: '\\S' });

/** A success body: `{ message, <key>: schema }`. */
export function success<K extends string, S extends TSchema>(key: K, schema: S) {
  return Type.Object({ message: Type.String(), [key]: schema } as { message: ReturnType<typeof Type.String> } & {
    [P in K]: S;
  });
}

export const Tier = Type.Union(TIERS.map((tier) => Type.Literal(tier)));

/** The answers every authenticated route can give besides its success. */
export function errorResponses(...statuses: number[]) {
  // 503: the rate limiter could not decide (no store reachable).
  const all = new Set([400, 401, 404, 429, 503, ...statuses]);
  return Object.fromEntries([...all].map((status) => [status, ErrorBody]));
}

/** Where an item goes: an index in the target collection (0 = first), or "top" / "bottom". */
export const PositionRequest = Type.Union([Type.Integer({ minimum: 0 }), Type.Literal('top'), Type.Literal('bottom')], {
  description: 'an index in the collection (0 is the first place; past the end means the bottom), or "top" / "bottom"',
});

/** The items of a bulk request: one to MAX_BULK_ITEMS of them. */
export const BulkItems = <T extends TSchema>(items: T, description: string) => Type.Array(items, { minItems: 1, maxItems: MAX_BULK_ITEMS, description });
