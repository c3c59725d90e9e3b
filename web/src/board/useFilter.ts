import { useState } from 'react';
import type { SetURLSearchParams } from 'react-router';
import { type Filter, filterOf, writeFilter } from './filters.ts';

/**
 * The board's filter as its controls show it. It lives in the URL so a link shares it, but the
 * router renders a navigation as a transition: a control that read the URL alone would flip back
 * until the transition landed (a checkbox unticked under the pointer, a caret jumping while typing).
 * So a change shows at once from local state, and the URL follows; a navigation from elsewhere (back,
 * a shared link) replaces the local state when its URL lands.
 */
export function useFilter(params: URLSearchParams, setParams: SetURLSearchParams): [Filter, (next: Filter) => void] {
  const url = params.toString();
  const [shown, setShown] = useState(() => ({ url, filter: filterOf(params) }));
  let current = shown;
  if (shown.url !== url) {
    current = { url, filter: filterOf(params) };
    setShown(current);
  }
  const setFilter = (next: Filter) => {
    setShown({ url, filter: next });
    setParams(writeFilter(params, next), { replace: true });
  };
  return [current.filter, setFilter];
}
