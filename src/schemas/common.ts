import { type Static, type TProperties, type TSchema, Type } from 'typebox';
import { TIERS } from '../config.ts';
import { MAX_BULK_ITEMS } from '../domain/shared/bulk.ts';
import { ID_PATTERN } from '../domain/shared/ids.ts';
import { named } from './named.ts';

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

/** The body of every error answer (the OpenAPI document adds the catalogue of `code`s). */
export const ErrorBody = named(
  'Error',
  Type.Object({
    message: Type.String(),
    code: Type.String(),
    requestId: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  }),
);

/**
 * What no text field may hold: control characters other than tab and newline (C0, DEL, C1), and
 * UTF-16 surrogates that are not part of a pair (ajv matches patterns with the `u` flag, so a pair
 * is one code point and only a lone half falls in the range). PostgreSQL cannot store U+0000, and
 * none of them is text a person typed.
 */
const FORBIDDEN = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\ud800-\\udfff';
/** Any text: possibly empty, no forbidden characters. */
const TEXT_PATTERN = `^[^${FORBIDDEN}]*$`;
/** Text with at least one character that is not a space, no forbidden characters. */
const NOT_BLANK_TEXT_PATTERN = `^(?=[\\s\\S]*\\S)[^${FORBIDDEN}]*$`;
/** Whether a text holds a forbidden character (to say so in an error's details). */
export const FORBIDDEN_IN_TEXT = new RegExp(`[${FORBIDDEN}]`, 'u');
/** Plain words for a value that fails one of the text patterns (the details of a 400). */
export const TEXT_RULE = 'must not contain control characters other than tab and newline, nor unpaired surrogates';

/** The caps on free text, in characters (code points); docs/decisions/0003-input-validation.md lists them. */
export const TEXT_CAPS = {
  /** Names of companies, teams, boards, lists, labels, cards, checklists, items, attachments. */
  name: 512,
  /** A card's description: Trello's limit. */
  description: 16_384,
  /** A comment or a reply: Trello's limit. */
  comment: 16_384,
  /** A card's cover (an image URL or a colour) and a link's URL. */
  url: 2048,
  /** The name of an API key. */
  apiKeyName: 100,
  /** A person's full name. */
  fullName: 200,
  /** A card's completion type. */
  completeType: 64,
} as const;

/**
 * A free-text field: at most `maxLength` characters, none of them forbidden (see TEXT_PATTERN);
 * `blank: false` also requires one character that is not a space (the field is then at least 1 long).
 */
export function Text(options: { maxLength: number; blank?: boolean; description?: string; examples?: string[] }) {
  const { maxLength, blank = true, ...rest } = options;
  return Type.String({
    ...(blank ? {} : { minLength: 1 }),
    maxLength,
    pattern: blank ? TEXT_PATTERN : NOT_BLANK_TEXT_PATTERN,
    ...rest,
  });
}

/** A card's description: free text, possibly empty. */
export const CardDescription = Text({ maxLength: TEXT_CAPS.description, description: `free text, at most ${TEXT_CAPS.description} characters` });

/** Names of non-empty, trimmed strings: names of boards, cards, attachments... */
export const Name = Text({ maxLength: TEXT_CAPS.name, blank: false });

/** The body of a partial update: any of `fields`, at least one of them (an empty body is a 400). */
export function UpdateOf<P extends TProperties>(fields: P) {
  const names = Object.keys(fields);
  const description = `at least one of ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1, description });
}

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
