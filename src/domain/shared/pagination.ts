import { ValidationError } from './errors.ts';
import { isId } from './ids.ts';

/**
 * Cursor pagination of the contract: `limit` (default 50, max 200) and an opaque `cursor`; answers
 * carry `nextCursor`, null at the end. A cursor is the sort key of the last item a page showed,
 * as base64url JSON, so the next page starts strictly after it: with a key that never changes and
 * is unique (e.g. a timestamp plus the id), items added meanwhile are neither repeated nor skipped.
 */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function encodeCursor(key: unknown): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** The key a cursor carries, when `check` accepts it; any other text is a 400 naming `querystring.cursor`. */
export function decodeCursor<K>(cursor: string, check: (key: unknown) => key is K): K {
  let key: unknown;
  try {
    key = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    key = undefined;
  }
  if (!check(key)) {
    throw new ValidationError('cursor is not one this collection handed out', [
      { field: 'querystring.cursor', message: 'must be a nextCursor from a previous page' },
    ]);
  }
  return key;
}

/**
 * A page from rows fetched with `limit + 1`: the extra row only tells that there is more, and the
 * cursor is the key of the last row shown.
 */
export function toPage<R, K>(rows: readonly R[], limit: number, keyOf: (row: R) => K): Page<R> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null };
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The key of pages in creation order: the last item's `[createdAt, id]`. */
export type CreationKey = [string, string];

export function creationKey(row: { created_at: string; id: string }): CreationKey {
  return [row.created_at, row.id];
}

export function isCreationKey(key: unknown): key is CreationKey {
  return Array.isArray(key) && key.length === 2 && typeof key[0] === 'string' && TIMESTAMP.test(key[0]) && isId(key[1]);
}
