import { hash } from 'node:crypto';

/**
 * Entity tags (RFC 9110 section 8.8.3) of the answers to reads: strong, so one tag names one
 * sequence of bytes (src/plugins/conditional.ts).
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
}

export function tagged(body: string): TaggedBody {
  return { tag: entityTag(body), body };
}
