import { conditionalTarget } from './conditional.ts';

/**
 * What the OpenAPI document says beyond the route schemas: servers, tag descriptions, a description
 * for every status, the headers every answer carries, the conditional-request and idempotency
 * headers, and the catalogue of error codes. The route schemas stay the one source of the bodies;
 * this module only adds the HTTP around them, the same way for every operation.
 */

/** Every `code` an error body can carry, with its status and meaning. */
export const ERROR_CODES: readonly { code: string; status: number; meaning: string }[] = [
  { code: 'validation_failed', status: 400, meaning: 'the path, query or body breaks the schema; `details` names each field' },
  { code: 'bad_request', status: 400, meaning: 'the request cannot be read as HTTP/JSON' },
  { code: 'unauthorized', status: 401, meaning: 'no API key, or one that is unknown, revoked or expired' },
  { code: 'forbidden', status: 403, meaning: 'within reach, but the role does not allow it' },
  { code: 'not_found', status: 404, meaning: "no such resource within the caller's reach (never 403 outside it)" },
  { code: 'method_not_allowed', status: 405, meaning: 'the path exists, the method does not' },
  { code: 'not_acceptable', status: 406, meaning: 'the Accept header rules out JSON' },
  { code: 'timeout', status: 408, meaning: 'the client sent the request too slowly' },
  {
    code: 'conflict',
    status: 409,
    meaning: 'the change collides with the current state (a repeat, a duplicate, or a request with the same Idempotency-Key still running)',
  },
  { code: 'payload_too_large', status: 413, meaning: 'the body or the upload is over its cap' },
  { code: 'unsupported_media_type', status: 415, meaning: 'the body is not application/json (or multipart for uploads)' },
  { code: 'range_not_satisfiable', status: 416, meaning: "a download's Range lies outside the file; Content-Range names its size" },
  { code: 'precondition_failed', status: 412, meaning: 'If-Match names a `__v` that is no longer current; nothing changed' },
  { code: 'idempotency_key_reused', status: 422, meaning: 'the Idempotency-Key was used before with a different body' },
  { code: 'rate_limited', status: 429, meaning: "the key's tier budget is spent; retry after Retry-After seconds" },
  { code: 'headers_too_large', status: 431, meaning: "the request headers are over the server's cap" },
  { code: 'internal', status: 500, meaning: 'a fault of the server; the request id finds it in the log' },
  { code: 'unavailable', status: 503, meaning: 'the database, the rate limiter or the attachment store cannot answer now; retry after Retry-After seconds' },
];

export const TAG_DESCRIPTIONS: Record<string, string> = {
  health: 'Liveness and readiness probes; no API key.',
  account: 'The caller and its API keys.',
  people: 'Signing in: passwords, sessions (cookie + X-CSRF-Token), first-run setup, invitations and password resets (docs/people.md).',
  audit: "A company's audit log: security and administration events, for its owners; read and exported (docs/people.md).",
  companies: 'Companies (tenants) and their members.',
  teams: 'Teams of a company and their members.',
  'my-tasks': "The cards the caller is a member of, across the caller's reach.",
  'calendar-feeds': "Secret iCalendar URLs of the caller's My Tasks or of one board, for calendar apps; revocable.",
  boards: 'Boards of a team, with their lists and cards.',
  imports: 'Boards brought in: a Trello export or a board export becomes a new board of a team, followed until it is done.',
  lists: 'Lists of a board, in order.',
  labels: 'Labels of a board and their colours.',
  'custom fields': "A board's custom fields and the values its cards hold.",
  'card relations': 'Blocks, relates to and duplicates between cards of one company, shown on both cards.',
  cards: 'Cards: create, read, change, move, copy, archive; bulk and multi-team variants.',
  checklists: 'Checklists of a card.',
  'checklist items': 'Items of a checklist: names, dates, completion, members, order.',
  attachments: 'Files and links attached to a card or to a checklist item.',
  comments: 'Comments on a card.',
  discussions: 'Replies under a comment.',
  cheers: 'Cheers on cards, comments, discussions and attachments.',
  activity: 'The event record: what changed on a card, board or team, newest first.',
  webhooks: "Signed webhooks: a company's subscriptions to its events, their secrets and deliveries.",
  recurrences: 'Recurring cards: a card template made on an RFC 5545 schedule in a time zone, each occurrence once.',
  rules: "Board rules: a trigger, conditions and actions run once after each triggering change, their runs' history and a dry run.",
  'board-templates': "Board templates kept on a team: a snapshot of a board's lists, labels, custom fields and rules, and new boards made from it.",
  notifications: "The caller's notifications: reminders, assignments, cheers, comments and replies.",
  search: 'Search across everything the caller reaches: cards, comments, discussions, checklist items, attachments, boards and lists.',
};

const STATUS_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  304: 'Not Modified: the ETag in If-None-Match is current; no body',
  400: 'Bad Request: invalid path, query or body (`validation_failed`)',
  401: 'Unauthorized: missing or unknown API key',
  403: 'Forbidden: the role does not allow it',
  404: "Not Found: not within the caller's reach",
  409: 'Conflict',
  412: 'Precondition Failed: If-Match is stale',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable: the Idempotency-Key was used with a different body',
  429: 'Too Many Requests: the tier budget is spent; see Retry-After',
  503: 'Service Unavailable: retry after Retry-After seconds',
};

const HEADERS = {
  'X-Request-Id': {
    description: "The request's id (the caller's own X-Request-Id when it is sane); error bodies repeat it as `requestId`.",
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'The state of the bucket after this request: `"<tier>";r=<remaining>;t=<seconds until a request is free again>`.',
    schema: { type: 'string', examples: ['"medium";r=59;t=1'] },
  },
  'RateLimit-Policy': {
    description: 'The bucket: `"<tier>";q=<requests>;w=<window seconds>`.',
    schema: { type: 'string', examples: ['"medium";q=60;w=60'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying (429 and 503).',
    schema: { type: 'integer', minimum: 0 },
  },
  ETag: {
    description:
      'A strong validator of the answer; send it back in If-None-Match. The ETag of a read of one record (Get Card Details, Get Board with Lists and Cards, Get Item by ID) is `"<__v>.<hash>"`: sent in If-Match, it makes a write of that record conditional on the `__v` that was read.',
    schema: { type: 'string' },
  },
  'Cache-Control': { description: '`private, no-cache`: a client may keep the answer and asks again with If-None-Match.', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when the answer is the one kept for this Idempotency-Key, replayed.',
    schema: { type: 'string', enum: ['true'] },
  },
  Location: { description: 'The path of the created resource.', schema: { type: 'string' } },
} as const;

const PARAMETERS = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'The ETag of a copy the caller holds: a 304 with no body when it is still current.',
    schema: { type: 'string' },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The `__v` the change is based on (`"7"`), or the ETag of a read of that record (`"7.<hash>"`): 412 `precondition_failed` when it is stale, and nothing changes.',
    schema: { type: 'string' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A key of the caller (e.g. a UUID): the first answer is kept for 24 hours and replayed on a repeat with the same body; ' +
      'the same key with another body is a 422, a repeat while the first runs a 409.',
    schema: { type: 'string', maxLength: 255 },
  },
} as const;

interface Response {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
}
interface Operation {
  tags?: string[];
  parameters?: unknown[];
  responses?: Record<string, Response>;
  requestBody?: { required?: boolean };
  'x-rate-limit-tier'?: string;
  /** Set by src/routes/operation.ts on an operation whose body may be left out. */
  'x-optional-body'?: boolean;
}
interface Document {
  info: Record<string, unknown>;
  tags?: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
const parameterRef = (name: keyof typeof PARAMETERS) => ({ $ref: `#/components/parameters/${name}` });
const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

function isErrorBody(response: Response): boolean {
  const schema = (response.content?.['application/json'] as { schema?: { $ref?: string } } | undefined)?.schema;
  return schema?.$ref === '#/components/schemas/Error';
}

/** Adds the HTTP around the bodies to every operation of a generated document (mutates it). */
export function completeDocument(doc: Document, options: { rateLimited: boolean }): Document {
  const used = new Set<string>();
  const sharedErrors: Record<string, Response> = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const tag of op.tags ?? []) used.add(tag);
      const responses = (op.responses ??= {});
      const limited = options.rateLimited && Boolean(op['x-rate-limit-tier']);
      const api = path.startsWith('/api/') || path.startsWith('/v2/');
      const parameters = (op.parameters ??= []);
      const jsonRead = method === 'get' && Boolean(responses['200']?.content?.['application/json']);
      // A body the server takes or not (none, empty, `{}`): a validating proxy must let a call without one pass.
      if (op['x-optional-body']) {
        if (op.requestBody) op.requestBody.required = false;
        delete op['x-optional-body'];
      }
      if (jsonRead) {
        parameters.push(parameterRef('IfNoneMatch'));
        responses['304'] = { description: STATUS_DESCRIPTIONS[304] as string };
      }
      // the same rule the conditional plugin applies (src/http/conditional.ts)
      if (conditionalTarget(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1'))) {
        parameters.push(parameterRef('IfMatch'));
        responses['412'] = { description: STATUS_DESCRIPTIONS[412] as string, content: errorContent };
      }
      if (api && ['post', 'patch'].includes(method)) {
        parameters.push(parameterRef('IdempotencyKey'));
        responses['409'] ??= { content: errorContent };
        responses['422'] = { description: STATUS_DESCRIPTIONS[422] as string, content: errorContent };
      }
      if (parameters.length === 0) delete op.parameters;
      for (const [status, response] of Object.entries(responses)) {
        if (!response.description || response.description === 'Default Response') response.description = STATUS_DESCRIPTIONS[status] ?? `HTTP ${status}`;
        const headers: Record<string, unknown> = { 'X-Request-Id': headerRef('X-Request-Id') };
        if (limited && status !== '503') {
          headers.RateLimit = headerRef('RateLimit');
          headers['RateLimit-Policy'] = headerRef('RateLimit-Policy');
        }
        if (status === '429' || status === '503') headers['Retry-After'] = headerRef('Retry-After');
        if (jsonRead && (status === '200' || status === '304')) {
          headers.ETag = headerRef('ETag');
          headers['Cache-Control'] = headerRef('Cache-Control');
        }
        if (api && ['post', 'patch'].includes(method) && status.startsWith('2')) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
        if (api && status === '201') headers.Location = headerRef('Location');
        response.headers = { ...response.headers, ...headers };
        // The error answers of rate-limited operations are all alike: one shared response per status.
        if (limited && Number(status) >= 400 && isErrorBody(response)) {
          const name = `Error${status}`;
          sharedErrors[name] ??= response;
          responses[status] = { $ref: `#/components/responses/${name}` } as Response;
        }
      }
    }
  }
  doc.tags = [...used].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name }));
  doc.components.headers = HEADERS;
  doc.components.responses = Object.fromEntries(Object.entries(sharedErrors).sort(([a], [b]) => a.localeCompare(b)));
  doc.components.parameters = PARAMETERS;
  const error = doc.components.schemas?.Error as { description?: string; properties?: Record<string, Record<string, unknown>> } | undefined;
  if (error?.properties?.code) {
    error.description = 'The body of every error answer.';
    error.properties.code = {
      ...error.properties.code,
      description: `What went wrong, for programs (the message is for people):\n\n${ERROR_CODES.map((e) => `- \`${e.code}\` (${e.status}): ${e.meaning}`).join('\n')}`,
      examples: ERROR_CODES.map((e) => e.code),
    };
  }
  doc.info['x-error-codes'] = ERROR_CODES;
  return doc;
}
