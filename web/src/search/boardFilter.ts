import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '../api.ts';
import { useDebounced } from './SearchBox.tsx';

/** A board's cards the search can name at most (pages of 200): a filter matching more shows the first ones. */
const MAX_PAGES = 10;

export interface BoardTextFilter {
  /** The cards whose text (and operators) match; undefined while there is no answer yet. */
  cardIds?: ReadonlySet<string> | undefined;
  /** What is wrong with the text as a query (a 400's words). */
  error?: string | undefined;
}

/**
 * The board filter's text, answered by the search operation on this board's cards
 * (docs/decisions/0104-board-filter-by-search.md), so it takes the same words, phrases, exclusions
 * and operators as the header's box. `revision` (the board's last change) asks again after a change.
 */
export function useBoardTextFilter(boardId: string, text: string, revision: number): BoardTextFilter {
  const q = useDebounced(text.trim(), 200);
  const result = useQuery({
    queryKey: ['board-filter', boardId, q, revision],
    enabled: q !== '',
    placeholderData: keepPreviousData,
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    queryFn: async ({ signal }) => {
      const ids = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = unwrap(
          await client.GET('/api/v1/search', { params: { query: { q, boardId, types: 'card', limit: 200, ...(cursor ? { cursor } : {}) } }, signal }),
        );
        for (const hit of answer.hits) ids.add(hit._id);
        cursor = answer.nextCursor ?? undefined;
        if (!cursor) break;
      }
      return ids;
    },
  });
  if (text.trim() === '') return {};
  if (result.error) return { error: result.error.message };
  // while a changed text waits for its answer, the last answer stays shown
  return { cardIds: result.data };
}
