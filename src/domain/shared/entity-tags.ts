import { hash } from 'node:crypto';

/**
 * Entity tags (RFC 9110 section 8.8.3) of the answers to reads: strong, so one tag names one
 * sequence of bytes (src/http/conditional.ts).
 */

/** A strong entity tag of a body: 160 bits of its SHA-256, base64url, quoted. */
export function entityTag(body: string | Buffer): string {
  return `"${hash('sha256', body, 'base64url').slice(0, 27)}"`;
}

/** The length of every `entityTag`. */
export const ENTITY_TAG_LENGTH = 29;

/**
 * A body and its tag, for a record the domain keeps rendered (the card read model): the tag was
 * taken once, when the record was rendered, so an answer made of such records can be tagged without
 * hashing their bytes again (`RenderedFields` in src/routes/operation.ts).
 */
export interface TaggedBody {
  tag: string;
  body: string;
  /** The record's `__v`, where the body is one record that has one (a card's). */
  revision?: number | undefined;
}

/**
 * The tag of an answer that is one record with a revision (Get Card Details, Get Board with Lists and
 * Cards, Get Item by ID): `"<__v>.<tag>"`, so that the tag a client read names, in `If-Match`, the
 * revision it read (`revisionOfTag`). The dot is outside base64url: no plain tag has one.
 */
export function revisionTag(revision: number, tag: string): string {
  return `"${revision}.${tag.slice(1)}`;
}

const REVISION_TAG = /^(\d{1,15})\.[\w-]+$/;

/** The revision a tag's content (between its quotes) names: `7` for `7` or for `revisionTag`'s `7.…`; undefined when none. */
export function revisionOfTag(content: string): number | undefined {
  if (/^\d{1,15}$/.test(content)) return Number(content);
  const revised = REVISION_TAG.exec(content);
  return revised ? Number(revised[1]) : undefined;
}

export function tagged(body: string): TaggedBody {
  return { tag: entityTag(body), body };
}
