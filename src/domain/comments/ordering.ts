import { isId } from '../shared/ids.ts';

/**
 * Comments, replies and cheers of one card get strictly increasing `createdAt` in the order they
 * were made (taken under the card's row lock): a millisecond later than the newest one when the clock
 * has not moved past it. So (createdAt, id) order is creation order, and a new comment always sorts
 * after every existing one, which is what lets a cursor page neither repeat nor skip.
 */
export function nextCreatedAt(latest: string | undefined, now: string): string {
  if (latest === undefined || now > latest) return now;
  return new Date(Date.parse(latest) + 1).toISOString();
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A page of comments is keyed by the (createdAt, id) of its last comment: `[createdAt, id]` in the cursor. */
export function commentCursorKey(row: { created_at: string; id: string }): [string, string] {
  return [row.created_at, row.id];
}

export function isCommentCursorKey(key: unknown): key is [string, string] {
  return Array.isArray(key) && key.length === 2 && typeof key[0] === 'string' && TIMESTAMP.test(key[0]) && isId(key[1]);
}
