import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { ApiError, client, unwrap } from '../api.ts';
import { searchText } from './strings.ts';
import './search.css';

export type SearchHit = components['schemas']['SearchHit'];
type HitType = SearchHit['type'];

/** The order the groups show in: what people look for most first. */
const GROUPS: readonly HitType[] = ['card', 'comment', 'discussion', 'checklistItem', 'attachment', 'board', 'list'];
/** Typing pauses this long before a search is sent. */
const DEBOUNCE_MS = 200;
const LIMIT = 20;

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Where a hit opens: its card on its board (scrolled to the comment or item), or its board or list. */
export function hitPath(hit: SearchHit): string {
  const board = `/boards/${hit.board._id}`;
  if (hit.type === 'board') return board;
  if (hit.type === 'list') return `${board}?item=${hit._id}`;
  const card = hit.card?._id ?? '';
  return hit.type === 'card' ? `${board}?card=${card}` : `${board}?card=${card}&item=${hit._id}`;
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

function Snippet({ snippet }: { snippet: SearchHit['snippet'] }) {
  const parts: (string | { mark: string })[] = [];
  let at = 0;
  for (const { start, length } of snippet.highlights) {
    if (start > at) parts.push(snippet.text.slice(at, start));
    parts.push({ mark: snippet.text.slice(start, start + length) });
    at = start + length;
  }
  if (at < snippet.text.length) parts.push(snippet.text.slice(at));
  return <span className="search-snippet">{parts.map((part, i) => (typeof part === 'string' ? part : <mark key={i}>{part.mark}</mark>))}</span>;
}

/**
 * The header's search box: results as you type (debounced; a superseded request is cancelled),
 * grouped by type, a combobox over a listbox (arrows move the active option, Enter opens it,
 * Escape closes the list, then clears the box). `/` anywhere outside a field focuses it.
 */
export function SearchBox() {
  const navigate = useNavigate();
  const location = useLocation();
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const q = useDebounced(text.trim(), DEBOUNCE_MS);

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  // leaving the page (a result opened, a link followed) closes the list
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each navigation
  useEffect(() => setOpen(false), [location.pathname, location.search]);

  const results = useQuery({
    queryKey: ['search', q],
    // the signal cancels the request when a newer query supersedes this one
    queryFn: async ({ signal }) => unwrap(await client.GET('/api/v1/search', { params: { query: { q, limit: LIMIT } }, signal })),
    enabled: q !== '',
    placeholderData: keepPreviousData,
    staleTime: 5_000,
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
  });

  const hits = q === '' ? [] : (results.data?.hits ?? []);
  const groups = useMemo(
    () => GROUPS.map((type) => ({ type, hits: hits.filter((hit) => hit.type === type) })).filter((group) => group.hits.length > 0),
    [hits],
  );
  // the options in the order they show (grouped), for the arrow keys
  const ordered = useMemo(() => groups.flatMap((group) => group.hits), [groups]);
  const optionId = (index: number) => `${id}-option-${index}`;
  const listboxId = `${id}-listbox`;
  const statusId = `${id}-status`;
  const showing = open && q !== '';

  // a new answer puts the active option back on none
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the results change
  useEffect(() => setActive(-1), [results.data]);

  function choose(hit: SearchHit) {
    setOpen(false);
    setText('');
    navigate(hitPath(hit));
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      if (ordered.length === 0) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current + step + ordered.length + (current < 0 && step < 0 ? 1 : 0)) % ordered.length);
    } else if (event.key === 'Enter') {
      const hit = ordered[active] ?? (showing ? ordered[0] : undefined);
      if (hit) {
        event.preventDefault();
        choose(hit);
      }
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setActive(-1);
      if (showing) setOpen(false);
      else setText('');
    }
  }

  useEffect(() => {
    if (active >= 0) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  });

  const error = results.error instanceof ApiError && results.error.status === 400 ? results.error.message : results.error ? results.error.message : null;
  const more = Boolean(results.data?.nextCursor);
  const status = !showing
    ? ''
    : error
      ? error
      : results.isFetching && !results.data
        ? searchText.searching
        : ordered.length === 0 && !results.isPlaceholderData && results.data
          ? searchText.none(q)
          : ordered.length > 0
            ? searchText.count(ordered.length, more)
            : '';

  let index = -1;
  return (
    <div role="search" className="header-search">
      <label htmlFor={`${id}-input`} className="visually-hidden">
        {searchText.label}
      </label>
      <input
        ref={input}
        id={`${id}-input`}
        type="search"
        role="combobox"
        aria-expanded={showing && ordered.length > 0}
        aria-controls={listboxId}
        aria-autocomplete="list"
        aria-activedescendant={showing && active >= 0 ? optionId(active) : undefined}
        aria-describedby={statusId}
        autoComplete="off"
        spellCheck={false}
        placeholder={searchText.placeholder}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => {
          setOpen(false);
          setActive(-1);
        }}
        onKeyDown={onKeyDown}
      />
      <div className="search-popup" hidden={!showing || (ordered.length === 0 && status === '')}>
        <p id={statusId} className="search-status" role="status">
          {status}
        </p>
        <div
          role="listbox"
          id={listboxId}
          aria-label={searchText.results}
          // busy while the shown results are an earlier query's, until the typed one's answer lands
          aria-busy={results.isFetching || q !== text.trim()}
          hidden={ordered.length === 0}
        >
          {groups.map((group) => (
            <div key={group.type} role="group" className="search-group" aria-labelledby={`${id}-group-${group.type}`}>
              <div id={`${id}-group-${group.type}`} className="search-group-title" role="presentation">
                {searchText.types[group.type]}
              </div>
              {group.hits.map((hit) => {
                index += 1;
                const mine = index;
                const where = searchText.where([hit.board.name, hit.list?.name ?? '', hit.type !== 'card' && hit.card ? hit.card.name : '']);
                return (
                  <div
                    key={`${hit.type}-${hit._id}`}
                    id={optionId(mine)}
                    role="option"
                    tabIndex={-1}
                    aria-selected={mine === active}
                    className="search-option"
                    // keep the focus in the box, so the click is not lost to its blur
                    onMouseDown={(event) => event.preventDefault()}
                    onMouseMove={() => setActive(mine)}
                    onClick={() => choose(hit)}
                  >
                    <span className="search-title">
                      {hit.title}
                      {hit.archived ? ` (${searchText.archived})` : ''}
                    </span>
                    <span className="search-where">{where}</span>
                    {hit.snippet.text !== hit.title ? <Snippet snippet={hit.snippet} /> : null}
                  </div>
                );
              })}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

/**
 * Scrolls to what a search opened inside a page (`?item=<id>`): a list of the board, or a comment or
 * checklist item of the open card, once it shows (elements carry `data-item-id` or `data-list-id`),
 * marking it until the next click. Gives up after a few seconds if it never shows.
 */
export function useScrollToSearched() {
  const location = useLocation();
  useEffect(() => {
    const item = new URLSearchParams(location.search).get('item');
    if (!item || !/^[0-9a-f]{24}$/.test(item)) return;
    const selector = `[data-item-id="${item}"], [data-list-id="${item}"]`;
    let marked: HTMLElement | null = null;
    const mark = () => {
      const element = document.querySelector<HTMLElement>(selector);
      if (!element) return false;
      element.scrollIntoView({ block: 'center', inline: 'center' });
      element.dataset.searchTarget = 'true';
      marked = element;
      return true;
    };
    if (mark()) return () => marked?.removeAttribute('data-search-target');
    const observer = new MutationObserver(() => {
      if (mark()) observer.disconnect();
    });
    observer.observe(document.body, { childList: true, subtree: true });
    const giveUp = setTimeout(() => observer.disconnect(), 5_000);
    return () => {
      observer.disconnect();
      clearTimeout(giveUp);
      (marked as HTMLElement | null)?.removeAttribute('data-search-target');
    };
  }, [location.search]);
}
