import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { methodsOf, prependRouteHook } from './route-hooks.ts';
import { ValidationError } from '../domain/shared/errors.ts';
import type { ExpectedVersion, VersionedKind } from '../domain/shared/preconditions.ts';
import { entityTag, revisionOfTag, revisionTag } from '../domain/shared/entity-tags.ts';

/**
 * Conditional requests (RFC 9110 section 13).
 *
 * Reads: every GET answered 200 with a JSON body carries a strong `ETag`, a hash of the body it
 * sends (so it changes with whatever the answer shows, a label renamed on a card as much as the
 * card's own `__v`; an answer made of records kept rendered comes tagged by its route with a hash
 * of the answer in which each record stands as its own tag, `RenderedFields`), and
 * `Cache-Control: private, no-cache` (a client may keep it, and asks again with `If-None-Match`).
 * A request whose `If-None-Match` names that tag is answered 304 with no body. The read has run by
 * then (the tag is the answer's hash), so a 304 counts against the route's tier.
 *
 * Reads that answer one record with a `__v` (`answersRevision`) put it in front of the hash
 * (`"7.<hash>"`), so that a client may send the tag of its read back in `If-Match`.
 *
 * Writes: `If-Match` names the `__v` the caller expects of the record the route's path names (the
 * last of card, list, board, label, checklist, item, comment, discussion in the path), as `"7"` or
 * as the tag of a read of it. The
 * expectation rides on the `Caller` into the domain, which compares it under the row's lock inside
 * the write's transaction (src/domain/shared/preconditions.ts). Routes whose path names none of
 * these, and the copies (which do not write their source), refuse `If-Match` with a 400.
 */

declare module 'fastify' {
  interface FastifyReply {
    /**
     * The answer's entity tag when its route knows it without hashing the body (an answer made of
     * records kept rendered with their tags); null: the body is hashed.
     */
    contentTag: string | null;
    /** The `__v` of the one record a read answers, named by its tag (`revisionTag`); null: none. */
    recordRevision: number | null;
  }
}

/** The path parameters that name a record a write can be conditional on. */
const TARGET_PARAMS: Record<string, VersionedKind> = {
  cardId: 'card',
  listId: 'list',
  boardId: 'board',
  labelId: 'label',
  checklistId: 'checklist',
  itemId: 'item',
  commentId: 'comment',
  discussionId: 'discussion',
};

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

type ConditionalTarget = { kind: VersionedKind; param: string };

/** The record kind and path parameter a write route's `If-Match` is about; undefined when none. */
export function conditionalTarget(method: string, url: string): ConditionalTarget | undefined {
  if (!WRITES.has(method) || url.endsWith('/copy')) return undefined;
  const params = [...url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string).filter((name) => name in TARGET_PARAMS);
  const param = params.at(-1);
  return param === undefined ? undefined : { kind: TARGET_PARAMS[param] as VersionedKind, param };
}

/** `If-None-Match` uses the weak comparison: `W/` is ignored; `*` matches any current answer. */
function noneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const candidate = part.trim().replace(/^W\//, '');
    return candidate === '*' || candidate === tag;
  });
}

const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e]*)"$/;
const MAX_IF_MATCH = 1000;

function badIfMatch(message: string): ValidationError {
  return new ValidationError(`Invalid request: headers.if-match ${message}`, [{ field: 'headers.if-match', message }]);
}

/**
 * The revisions an `If-Match` accepts: each entity-tag `"7"` (or a bare `7`) is a `__v`, and so is
 * the tag of a read of the record (`"7.…"`: `revisionTag`); a weak tag or a tag that names no
 * revision can never match (strong comparison). Undefined for `*` (any revision: the write only
 * needs the record to be there, which it decides anyway).
 */
export function parseIfMatch(header: string): number[] | undefined {
  if (header.length > MAX_IF_MATCH) throw badIfMatch(`must be at most ${MAX_IF_MATCH} characters`);
  if (header.trim() === '*') return undefined;
  const versions: number[] = [];
  for (const raw of header.split(',')) {
    const part = raw.trim();
    if (/^\d{1,15}$/.test(part)) {
      versions.push(Number(part));
      continue;
    }
    const tag = ENTITY_TAG.exec(part);
    if (!tag) throw badIfMatch('must be "*" or a list of entity tags naming the record\'s __v, such as "7"');
    const revision = tag[1] ? undefined : revisionOfTag(tag[2] as string);
    if (revision !== undefined) versions.push(revision);
  }
  return versions;
}

/** The `If-Match` of a write, read against the route's target (undefined: the route takes none). */
function expectedVersionOf(request: FastifyRequest, target: ConditionalTarget | undefined): ExpectedVersion | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  if (!target) {
    throw badIfMatch('is not taken by this operation: If-Match applies to writes whose path names a card, list, board, label, checklist, item, comment or discussion');
  }
  const versions = parseIfMatch(header);
  if (versions === undefined) return undefined;
  return { kind: target.kind, id: (request.params as Record<string, string>)[target.param] as string, versions };
}

export default fp(
  async function conditionalPlugin(app: FastifyInstance) {
    app.decorateReply('contentTag', null);
    app.decorateReply('recordRevision', null);
    // After validation (the path's ids are well-formed) and before the handler: the domain reads it
    // from the caller. Only on the writes (a read is never conditional on a revision: RFC 9110 lets a
    // server ignore If-Match there), with the route's target found once, when the route is declared.
    app.addHook('onRoute', (route) => {
      const methods = methodsOf(route).filter((method) => WRITES.has(method));
      if (methods.length === 0) return;
      const targets = new Map(methods.map((method) => [method, conditionalTarget(method, route.url)]));
      const readIfMatch = (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
        if (request.caller) {
          const expectedVersion = expectedVersionOf(request, targets.get(request.method));
          if (expectedVersion) request.caller = { ...request.caller, expectedVersion };
        }
        done();
      };
      prependRouteHook(route, 'preHandler', readIfMatch);
    });

    // Registered before compression, so that the hash is of the JSON itself, whatever the encoding.
    // Synchronous: it runs on every answer and waits on nothing.
    app.addHook('onSend', (request, reply, payload, done) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return done(null, payload);
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return done(null, payload);
      const hashed = reply.contentTag ?? entityTag(payload);
      const tag = reply.recordRevision === null ? hashed : revisionTag(reply.recordRevision, hashed);
      reply.header('ETag', tag);
      reply.header('Cache-Control', 'private, no-cache');
      if (!noneMatch(request.headers['if-none-match'], tag)) return done(null, payload);
      reply.code(304);
      reply.removeHeader('content-type');
      reply.removeHeader('content-length');
      done(null, '');
    });
  },
  { name: 'conditional' },
);
