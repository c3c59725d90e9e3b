import type { SetURLSearchParams } from 'react-router';
import { type Filter, filterOf, writeFilter } from './filters.ts';
import { useUrlState } from './useUrlState.ts';

/** The board's filter as its controls show it, kept in the URL (./useUrlState.ts). */
export function useFilter(params: URLSearchParams, setParams: SetURLSearchParams): [Filter, (next: Filter) => void] {
  return useUrlState(
    params,
    filterOf,
    (filter, current) => writeFilter(current, filter),
    (next) => setParams(next, { replace: true }),
  );
}
