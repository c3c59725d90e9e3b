/**
 * Search across everything a caller can reach: cards (name, description), comments, discussions,
 * checklist items, attachments, boards and lists. The index is kept by the database itself
 * (migration 0017), so a committed change is found at once; reach is decided by the access module
 * like every read, and the index is read only within it.
 */
import { type SearchFilter, type SearchRow, searchEntries } from '../../storage/repositories/search.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ValidationError } from '../shared/errors.ts';
import { isId } from '../shared/ids.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, type Page, toPage } from '../shared/pagination.ts';
import { parseSearchQuery, type SearchQuery } from './query.ts';
import { type Snippet, snippetOf } from './snippet.ts';

export const HIT_TYPES = ['card', 'comment', 'discussion', 'checklistItem', 'attachment', 'board', 'list'] as const;
export type HitType = (typeof HIT_TYPES)[number];

export interface SearchOptions {
  /** The query; absent: a 400 saying there is nothing to search for. */
  q?: string | undefined;
  boardId?: string | undefined;
  /** Comma-separated hit types. */
  types?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  /** The time "now" of `due:` and `created:` (tests pass their own). */
  now?: Date | undefined;
}

interface Named {
  _id: string;
  name: string;
}

export interface SearchHit {
  type: HitType;
  _id: string;
  title: string;
  snippet: Snippet;
  archived: boolean;
  updatedAt: string;
  card: Named | null;
  list: Named | null;
  board: Named;
  team: Named;
  company: Named;
}

type CursorKey = [number, string, string];

function isCursorKey(key: unknown): key is CursorKey {
  return (
    Array.isArray(key) &&
    key.length === 3 &&
    (key[0] === 0 || key[0] === 1) &&
    typeof key[1] === 'string' &&
    key[1].length > 0 &&
    key[1].length <= 64 &&
    isId(key[2])
  );
}

function parseTypes(types: string | undefined): HitType[] | undefined {
  if (types === undefined) return undefined;
  const names = types
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const unknown = names.filter((t) => !(HIT_TYPES as readonly string[]).includes(t));
  if (names.length === 0 || unknown.length > 0) {
    throw new ValidationError('Invalid types', [{ field: 'querystring.types', message: `must be a comma-separated list of ${HIT_TYPES.join(', ')}` }]);
  }
  return [...new Set(names)] as HitType[];
}

const DAY = 24 * 60 * 60 * 1000;
const DUE_SPAN = { day: 1, week: 7, month: 30 } as const;

function dueFilter(query: SearchQuery, now: Date): SearchFilter['due'] {
  const at = now.toISOString();
  switch (query.due) {
    case undefined:
      return undefined;
    case 'none':
      return { none: true };
    case 'overdue':
      return { before: at, incomplete: true };
    default:
      return { from: at, before: new Date(now.getTime() + DUE_SPAN[query.due] * DAY).toISOString() };
  }
}

/** The text a hit's snippet is cut from: where the words were found. */
function snippetText(row: SearchRow, terms: readonly string[]): string {
  if (row.entity_type === 'comment' || row.entity_type === 'discussion') return row.body;
  if (row.entity_type === 'card' && row.body !== '' && row.tier !== 0 && terms.length > 0) return row.body;
  return row.title;
}

function hitOf(row: SearchRow, terms: readonly string[]): SearchHit {
  const card = row.card_id !== null ? { _id: row.card_id, name: row.card_name ?? '' } : null;
  return {
    type: row.entity_type as HitType,
    _id: row.entity_id,
    title: card && ['card', 'comment', 'discussion'].includes(row.entity_type) ? card.name : row.title,
    snippet: snippetOf(snippetText(row, terms), terms),
    archived: row.archived !== 0,
    updatedAt: row.updated_at,
    card,
    list: row.list_id !== null ? { _id: row.list_id, name: row.list_name ?? '' } : null,
    board: { _id: row.board_id, name: row.board_name },
    team: { _id: row.team_id, name: row.team_name },
    company: { _id: row.company_id, name: row.company_name },
  };
}

/** What `options` ask of the index, within the caller's reach (the bench explains the statement it makes). */
export async function searchFilter(
  ctx: ServiceContext,
  caller: Caller,
  scope: Scope,
  options: SearchOptions,
): Promise<{ filter: SearchFilter; query: SearchQuery; limit: number }> {
  const query = parseSearchQuery(options.q ?? '');
  const types = parseTypes(options.types);
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor, isCursorKey);
  if (options.boardId !== undefined) await requireAccess(ctx.db, caller, { kind: 'board', id: options.boardId, scope, field: 'querystring.boardId' });
  const reach = await requireAccess(ctx.db, caller, { kind: 'collection', scope });
  const now = options.now ?? new Date();
  const filter: SearchFilter = {
    reach,
    boardId: options.boardId,
    types,
    terms: query.terms,
    excluded: query.excluded,
    archived: query.archived,
    labels: query.labels,
    members: query.members.map((m) => (m === 'me' ? { userId: caller.userId } : { name: m })),
    due: dueFilter(query, now),
    complete: query.complete,
    boards: query.boards,
    lists: query.lists,
    hasAttachments: query.hasAttachments,
    fields: query.fields,
    createdSince: query.createdDays === undefined ? undefined : new Date(now.getTime() - query.createdDays * DAY).toISOString(),
    after,
    take: limit + 1,
  };
  return { filter, query, limit };
}

/**
 * Search: the hits of `q` among what the caller reaches (narrowed by the scope and `boardId`), title
 * matches first, then the most recently written; paged by a cursor of that order.
 */
export async function search(ctx: ServiceContext, caller: Caller, scope: Scope, options: SearchOptions): Promise<Page<SearchHit>> {
  const { filter, query, limit } = await searchFilter(ctx, caller, scope, options);
  const rows = await searchEntries(ctx.db, filter);
  const page = toPage(rows, limit, (row): CursorKey => [row.tier, row.updated_at, row.entity_id]);
  return { items: page.items.map((row) => hitOf(row, query.terms)), nextCursor: page.nextCursor };
}
