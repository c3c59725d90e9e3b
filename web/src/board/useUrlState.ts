import { useState } from 'react';

/**
 * A view's state that lives in the URL, so a link shares it. The router renders a navigation as a
 * transition: a control that read the URL alone would flip back until the transition landed (a
 * checkbox unticked under the pointer, a caret jumping while typing). So a change shows at once from
 * local state and the URL follows (`apply`); a navigation from elsewhere (back, a shared link)
 * replaces the local state when its URL lands. `read` takes the state from the URL, `write` answers
 * the URL's parameters with the state in them.
 */
export function useUrlState<S>(
  params: URLSearchParams,
  read: (params: URLSearchParams) => S,
  write: (state: S, params: URLSearchParams) => URLSearchParams,
  apply: (params: URLSearchParams) => void,
): [S, (next: S) => void] {
  const url = params.toString();
  const [shown, setShown] = useState(() => ({ url, state: read(params) }));
  let current = shown;
  if (shown.url !== url) {
    current = { url, state: read(params) };
    setShown(current);
  }
  const set = (next: S) => {
    setShown({ url, state: next });
    apply(write(next, params));
  };
  return [current.state, set];
}

/** A copy of `params` with each of `values` set, or removed where it is null or empty. */
export function withParams(params: URLSearchParams, values: Record<string, string | null>): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const [name, value] of Object.entries(values)) {
    if (value) next.set(name, value);
    else next.delete(name);
  }
  return next;
}
