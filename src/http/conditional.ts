import type { ExpectedVersion, VersionedKind } from '../domain/shared/caller.ts';
import { revisionOfTag } from '../domain/shared/entity-tags.ts';
import { ValidationError } from '../domain/shared/errors.ts';

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
 * last of card, list, board, label, checklist, item, comment, discussion, custom field in the path), as `"7"` or
 * as the tag of a read of it. The
 * expectation rides on the `Caller` into the domain, which compares it under the row's lock inside
 * the write's transaction (src/domain/shared/preconditions.ts). Routes whose path names none of
 * these, and the copies (which do not write their source), refuse `If-Match` with a 400.
 *
 * The protocol, without Fastify: src/plugins/conditional.ts puts it on the routes.
 */

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
  fieldId: 'custom-field',
};

export const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export type ConditionalTarget = { kind: VersionedKind; param: string };

/** The record kind and path parameter a write route's `If-Match` is about; undefined when none. */
export function conditionalTarget(method: string, url: string): ConditionalTarget | undefined {
  if (!WRITES.has(method) || url.endsWith('/copy')) return undefined;
  const params = [...url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string).filter((name) => name in TARGET_PARAMS);
  const param = params.at(-1);
  return param === undefined ? undefined : { kind: TARGET_PARAMS[param] as VersionedKind, param };
}

/** `If-None-Match` uses the weak comparison: `W/` is ignored; `*` matches any current answer. */
export function noneMatch(header: string | undefined, tag: string): boolean {
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
export function expectedVersionOf(
  header: string | undefined,
  params: Record<string, string>,
  target: ConditionalTarget | undefined,
): ExpectedVersion | undefined {
  if (header === undefined) return undefined;
  if (!target) {
    throw badIfMatch(
      'is not taken by this operation: If-Match applies to writes whose path names a card, list, board, label, checklist, item, comment or discussion',
    );
  }
  const versions = parseIfMatch(header);
  if (versions === undefined) return undefined;
  return { kind: target.kind, id: params[target.param] as string, versions };
}
