import { combine } from '@atlaskit/pragmatic-drag-and-drop/combine';
import { draggable, dropTargetForElements, monitorForElements } from '@atlaskit/pragmatic-drag-and-drop/element/adapter';
import { autoScrollForElements } from '@atlaskit/pragmatic-drag-and-drop-auto-scroll/element';
import { attachClosestEdge, type Edge, extractClosestEdge } from '@atlaskit/pragmatic-drag-and-drop-hitbox/closest-edge';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, lazy, memo, Suspense, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { forgetBoard, rememberBoard, useMe } from '../App.tsx';
import { administers, authHeaders, type CardFace, client, type Label, type Member, problem, unwrap } from '../api.ts';
import { startCardReads } from '../card/queries.ts';
import { useBoardTextFilter } from '../search/boardFilter.ts';
import { t } from '../strings.ts';
import { HelpDialog, MoveDialog } from './dialogs.tsx';
import { dueState, type Filter, initials, isFiltering, matches, textOn } from './filters.ts';
import { useBoardStream } from './live.ts';
import type { Panel } from './settings/BoardSettings.tsx';
import { settingsText } from './settings/strings.ts';
import { type BoardActions, type BoardView, type ListView, type Notice, useBoard, useBoardActions } from './store.ts';
import { type TouchTarget, useTouchDrag } from './touch.ts';
import { useFilter } from './useFilter.ts';

// The card dialog (and its Markdown renderer) loads when a card is first opened, or in the board's idle time.
let cardDialogModule: typeof import('../card/CardDialog.tsx') | undefined;
const loadCardDialog = () =>
  import('../card/CardDialog.tsx').then((module) => {
    cardDialogModule = module;
    return module;
  });
/**
 * The card dialog's component once its code is here, loading it when a card is open. Not React.lazy:
 * its first render suspends even when the code is already here (a Suspense fallback is held back for
 * React's reveal throttle, 300 ms), and switching from the lazy wrapper to the component itself
 * would remount an open dialog and lose what is being typed in it.
 */
function useCardDialog(wanted: boolean, onFailure: (error: unknown) => void) {
  const [loaded, setLoaded] = useState(cardDialogModule);
  const module = loaded ?? cardDialogModule;
  useEffect(() => {
    if (!wanted || module) return;
    let current = true;
    loadCardDialog().then(
      (arrived) => current && setLoaded(arrived),
      (error: unknown) => current && onFailure(error),
    );
    return () => {
      current = false;
    };
  }, [wanted, module, onFailure]);
  return module?.CardDialog;
}
// The board menu's dialogs (labels, archived items, settings) load when first opened.
const loadSettings = () => import('./settings/BoardSettings.tsx');
const BoardSettings = lazy(loadSettings);

/** Lists far outside the viewport render no cards (a 5,000-card board keeps a few hundred elements). */
const LIST_RENDER_MARGIN = '400px';

/** The open lists' scroll helpers, so keyboard focus can reach a card the virtualizer has not rendered. */
type Scrollers = Map<string, (index: number) => void>;

export function BoardPage() {
  const { boardId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const board = useBoard(boardId);
  const me = useMe();
  const [notice, setNotice] = useState<Notice | null>(null);
  const [announcement, setAnnouncement] = useState('');
  // The card dialog's code comes once the board is idle (not in the first load), so a card opens without waiting for it.
  useEffect(() => {
    const idle = window.requestIdleCallback?.(() => void loadCardDialog(), { timeout: 5000 });
    return () => (idle === undefined ? undefined : window.cancelIdleCallback(idle));
  }, []);
  const notify = useCallback((next: Notice) => setNotice(next), []);
  const announce = useCallback((text: string) => setAnnouncement(text), []);
  const actions = useBoardActions(boardId, notify, announce);
  const { connected } = useBoardStream(boardId, actions.refreshCard);
  const labels = useQuery({
    queryKey: ['labels', boardId],
    queryFn: async () => unwrap(await client.GET('/api/v1/boards/{boardId}/labels', { params: { path: { boardId } } })).labels as Label[],
  });
  const labelsById = useMemo(() => new Map((labels.data ?? []).map((label) => [label._id, label])), [labels.data]);
  const [filter, setFilter] = useFilter(params, setParams);
  const textFilter = useBoardTextFilter(boardId, filter.text, board.dataUpdatedAt);
  const openCardId = params.get('card');
  const cardDialogFailed = useCallback((error: unknown) => notify({ kind: 'error', text: t.refused(problem(error)) }), [notify]);
  const CardDialog = useCardDialog(Boolean(openCardId), cardDialogFailed);
  const [moving, setMoving] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const [panel, setPanel] = useState<Panel | null>(null);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const scrollers = useRef<Scrollers>(new Map());
  const composers = useRef(new Map<string, () => void>());
  const canvas = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (board.data) rememberBoard(boardId);
  }, [board.data, boardId]);

  const team = me.data?.teams.find((one) => one._id === board.data?.board.team);
  const members: Member[] = team?.members ?? [];
  // Delete Board is for the company's owners and admins: Get Me gives the caller's role in each company.
  const role = me.data?.companies.find((company) => company._id === board.data?.board.company)?.role;
  const canDelete = administers(role);
  const deleteBoard = useCallback(async () => {
    try {
      const { deleteBoardConfirmed } = await loadSettings();
      if (!(await deleteBoardConfirmed(queryClient, boardId))) return;
      forgetBoard(boardId);
      navigate('/boards', { replace: true });
    } catch (error) {
      setNotice({ kind: 'error', text: t.refused(problem(error)) });
    }
  }, [queryClient, boardId, navigate]);

  const openCard = useCallback(
    (cardId: string, focus?: string) => {
      startCardReads(queryClient, cardId);
      const next = new URLSearchParams(params);
      next.set('card', cardId);
      if (focus) next.set('focus', focus);
      else next.delete('focus');
      setParams(next);
    },
    [params, setParams, queryClient],
  );
  const closeCard = useCallback(() => {
    const next = new URLSearchParams(params);
    const cardId = next.get('card');
    next.delete('card');
    next.delete('focus');
    setParams(next);
    if (cardId) {
      // The dialog closes when React commits the URL change, which may be a frame or two later;
      // until then the board behind it is inert and cannot take focus.
      const returnFocus = (frames: number) =>
        requestAnimationFrame(() => {
          if (document.querySelector('dialog[open]') && frames > 0) return returnFocus(frames - 1);
          document.querySelector<HTMLElement>(`[data-card-id="${cardId}"]`)?.focus();
        });
      returnFocus(30);
    }
  }, [params, setParams]);

  /** A card dropped on `target` (by mouse or finger): its list and index there, and the move. */
  const dropCard = useCallback(
    (view: BoardView, cardId: string, fromListId: string, target: TouchTarget) => {
      const fromList = view.lists.find((list) => list._id === fromListId);
      const fromIndex = fromList?.cards.findIndex((card) => card._id === cardId) ?? -1;
      const toList = view.lists.find((list) => list._id === target.listId);
      let index: number;
      if (target.type === 'card') {
        index = (toList?.cards.findIndex((card) => card._id === target.cardId) ?? 0) + (target.edge === 'bottom' ? 1 : 0);
        if (target.listId === fromListId && fromIndex < index) index -= 1;
      } else index = (toList?.cards.length ?? 0) - (target.listId === fromListId ? 1 : 0);
      if (target.listId === fromListId && index === fromIndex) return;
      void actions.moveCard(cardId, target.listId, Math.max(0, index));
    },
    [actions],
  );

  // Drops: the innermost target decides (a card's edge, else the list's end, else a list's edge).
  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    return combine(
      autoScrollForElements({ element }),
      monitorForElements({
        onDrop({ source, location }) {
          const view = board.data;
          const target = location.current.dropTargets[0];
          if (!target || !view) return;
          if (source.data.type === 'card') {
            const to: TouchTarget | null =
              target.data.type === 'card'
                ? {
                    type: 'card',
                    listId: target.data.listId as string,
                    cardId: target.data.cardId as string,
                    edge: extractClosestEdge(target.data) === 'bottom' ? 'bottom' : 'top',
                  }
                : target.data.type === 'list'
                  ? { type: 'list', listId: target.data.listId as string }
                  : null;
            if (to) dropCard(view, source.data.cardId as string, source.data.listId as string, to);
          } else if (source.data.type === 'list' && target.data.type === 'list') {
            const listId = source.data.listId as string;
            const from = view.lists.findIndex((list) => list._id === listId);
            const over = view.lists.findIndex((list) => list._id === target.data.listId);
            let index = over + (extractClosestEdge(target.data) === 'right' ? 1 : 0);
            if (from < index) index -= 1;
            if (index !== from) void actions.moveList(listId, index);
          }
        },
      }),
    );
  }, [board.data, actions, dropCard]);

  const onTouchDrop = useCallback(
    (cardId: string, fromListId: string, target: TouchTarget) => board.data && dropCard(board.data, cardId, fromListId, target),
    [board.data, dropCard],
  );
  useTouchDrag(canvas, onTouchDrop);

  // `?` opens the shortcuts anywhere on the board, outside fields.
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      const field = (event.target as HTMLElement).closest('input, textarea, select, [contenteditable], dialog');
      if (!field && event.key === '?') {
        event.preventDefault();
        setHelp(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (board.isError)
    return (
      <p className="page-pad" role="alert">
        {board.error.message}
      </p>
    );
  if (!board.data) return <BoardSkeleton />;
  const view = board.data;
  const now = Date.now();
  const filtering = isFiltering(filter);
  // the text is answered by the search operation; until its first answer, by the cards' own text
  const byText = textFilter.cardIds;
  const local = byText || textFilter.error ? { ...filter, text: '' } : filter;
  const visible = view.lists.map((list) =>
    filtering ? list.cards.filter((card) => matches(card, local, now) && (!byText || byText.has(card._id))) : list.cards,
  );
  const shown = visible.reduce((sum, cards) => sum + cards.length, 0);

  const focusCard = (listIndex: number, cardIndex: number) => {
    const list = view.lists[listIndex];
    const cards = visible[listIndex];
    if (!list || !cards?.length) return;
    const index = Math.max(0, Math.min(cardIndex, cards.length - 1));
    const id = cards[index]?._id;
    const find = () => document.querySelector<HTMLElement>(`[data-card-id="${id}"]`);
    const element = find();
    if (element) return element.focus();
    document.querySelector(`[data-list-id="${list._id}"]`)?.scrollIntoView({ inline: 'nearest', block: 'nearest' });
    scrollers.current.get(list._id)?.(index);
    requestAnimationFrame(() => requestAnimationFrame(() => find()?.focus()));
  };

  const onCardKey = (event: KeyboardEvent<HTMLElement>, listIndex: number, cardIndex: number, card: CardFace) => {
    if (event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.key;
    const handled = () => event.preventDefault();
    // Trello's shortcuts on a focused card (the help dialog lists them).
    const shortcuts = new Map<string, (() => unknown) | undefined>([
      ['ArrowDown', () => focusCard(listIndex, cardIndex + 1)],
      ['ArrowUp', () => focusCard(listIndex, cardIndex - 1)],
      ['Enter', () => openCard(card._id)],
      ['e', () => openCard(card._id, 'name')],
      ['l', () => openCard(card._id, 'labels')],
      ['m', () => openCard(card._id, 'members')],
      ['d', () => openCard(card._id, 'due')],
      ['n', () => composers.current.get(card.list)?.()],
      ['c', () => void actions.archiveCard(card._id).then(() => focusCard(listIndex, cardIndex))],
      ['?', () => setHelp(true)],
      [' ', me.data ? () => void actions.toggleMembers(card._id, [me.data.user._id]) : undefined],
    ]);
    const shortcut = shortcuts.get(key);
    if (shortcut) {
      handled();
      shortcut();
      return;
    }
    if (key === 'ArrowRight' || key === 'ArrowLeft') {
      handled();
      const step = key === 'ArrowRight' ? 1 : -1;
      for (let next = listIndex + step; next >= 0 && next < view.lists.length; next += step) if (visible[next]?.length) return focusCard(next, cardIndex);
      return;
    }
    if (key === '<' || key === '>' || key === ',' || key === '.') {
      handled();
      const target = view.lists[listIndex + (key === '<' || key === ',' ? -1 : 1)];
      if (!target) return;
      const index = Math.min(cardIndex, target.cards.length);
      void actions
        .moveCard(card._id, target._id, index)
        .then(() => requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-card-id="${card._id}"]`)?.focus()));
    }
  };

  const movingCard = moving ? view.lists.flatMap((list) => list.cards).find((card) => card._id === moving) : undefined;

  return (
    <div className="board">
      <BoardHeader
        name={view.board.name}
        boardId={boardId}
        filter={filter}
        setFilter={setFilter}
        labels={labels.data ?? []}
        members={members}
        onHelp={() => setHelp(true)}
        canDelete={canDelete}
        onPanel={setPanel}
        onDelete={() => void deleteBoard()}
      />
      {!connected ? (
        <p className="banner" role="status">
          {t.reconnecting}
        </p>
      ) : null}
      {notice ? (
        <div className={`notice notice-${notice.kind}`} role="alert">
          <span>{notice.text}</span>
          {notice.action ? (
            <button
              type="button"
              onClick={() => {
                setNotice(null);
                notice.action?.run();
              }}
            >
              {notice.action.label}
            </button>
          ) : null}
          <button type="button" onClick={() => setNotice(null)}>
            {t.close}
          </button>
        </div>
      ) : null}
      {filtering && shown === 0 ? <p className="muted page-pad">{t.noMatches(filter.text)}</p> : null}
      <div className="canvas" ref={canvas}>
        {view.lists.map((list, listIndex) => (
          <ListColumn
            key={list._id}
            list={list}
            cards={visible[listIndex] ?? []}
            listIndex={listIndex}
            listCount={view.lists.length}
            actions={actions}
            onCardKey={onCardKey}
            openCard={openCard}
            scrollers={scrollers.current}
            composers={composers.current}
            labelsById={labelsById}
            now={now}
          />
        ))}
        <ListComposer actions={actions} first={view.lists.length === 0} />
      </div>
      <div className="visually-hidden" aria-live="polite" role="status">
        {announcement}
      </div>
      {openCardId && CardDialog ? (
        <CardDialog
          key={openCardId}
          cardId={openCardId}
          labels={labels.data ?? []}
          members={members}
          focus={params.get('focus')}
          actions={actions}
          onClose={closeCard}
          onMove={() => setMoving(openCardId)}
        />
      ) : null}
      {movingCard ? (
        <MoveDialog
          card={movingCard}
          lists={view.lists}
          onCancel={() => setMoving(null)}
          onMove={(listId, index) => {
            setMoving(null);
            void actions.moveCard(movingCard._id, listId, index);
          }}
        />
      ) : null}
      {help ? <HelpDialog onClose={() => setHelp(false)} /> : null}
      {panel ? (
        <Suspense fallback={null}>
          <BoardSettings
            panel={panel}
            boardId={boardId}
            boardName={view.board.name}
            canDelete={canDelete}
            actions={actions}
            onClose={() => setPanel(null)}
            onDelete={() => void deleteBoard()}
          />
        </Suspense>
      ) : null}
    </div>
  );
}

function BoardSkeleton() {
  return (
    <div className="canvas" aria-busy="true" aria-label={t.loading}>
      {[0, 1, 2].map((list) => (
        <div key={list} className="list skeleton">
          {[0, 1, 2, 3].map((card) => (
            <div key={card} className="card skeleton-card" />
          ))}
        </div>
      ))}
    </div>
  );
}

function BoardHeader(props: {
  name: string;
  boardId: string;
  filter: Filter;
  setFilter: (filter: Filter) => void;
  labels: Label[];
  members: Member[];
  onHelp: () => void;
  canDelete: boolean;
  onPanel: (panel: Panel) => void;
  onDelete: () => void;
}) {
  const { filter, setFilter } = props;
  const menu = useRef<HTMLDetailsElement>(null);
  /** A menu item: the menu closes, then the item acts. */
  const item = (run: () => void) => () => {
    if (menu.current) menu.current.open = false;
    run();
  };
  const textId = useId();
  const dueId = useId();
  const toggle = (ids: string[], id: string) => (ids.includes(id) ? ids.filter((one) => one !== id) : [...ids, id]);
  return (
    <div className="board-header">
      <h1 className="board-name">{props.name}</h1>
      <div className="filters" role="group" aria-label={t.filters}>
        <label htmlFor={textId} className="visually-hidden">
          {t.filterText}
        </label>
        <input
          id={textId}
          type="search"
          placeholder={t.filterText}
          value={filter.text}
          onChange={(event) => setFilter({ ...filter, text: event.target.value })}
        />
        <details className="popover">
          <summary>
            {t.filterLabels}
            {filter.labels.length ? ` (${filter.labels.length})` : ''}
          </summary>
          <fieldset>
            <legend className="visually-hidden">{t.filterLabels}</legend>
            {props.labels.map((label) => (
              <label key={label._id} className="check">
                <input
                  type="checkbox"
                  checked={filter.labels.includes(label._id)}
                  onChange={() => setFilter({ ...filter, labels: toggle(filter.labels, label._id) })}
                />
                <span className="swatch" style={{ background: label.color.hex }} aria-hidden="true" />
                {label.name || label.color.name}
              </label>
            ))}
          </fieldset>
        </details>
        <details className="popover">
          <summary>
            {t.filterMembers}
            {filter.members.length ? ` (${filter.members.length})` : ''}
          </summary>
          <fieldset>
            <legend className="visually-hidden">{t.filterMembers}</legend>
            {props.members.map((member) => (
              <label key={member._id} className="check">
                <input
                  type="checkbox"
                  checked={filter.members.includes(member._id)}
                  onChange={() => setFilter({ ...filter, members: toggle(filter.members, member._id) })}
                />
                {member.fullName}
              </label>
            ))}
          </fieldset>
        </details>
        <label htmlFor={dueId} className="visually-hidden">
          {t.filterDue}
        </label>
        <select id={dueId} value={filter.due} onChange={(event) => setFilter({ ...filter, due: event.target.value as Filter['due'] })}>
          <option value="">{t.dueAny}</option>
          <option value="overdue">{t.dueOverdueOption}</option>
          <option value="day">{t.dueNextDay}</option>
          <option value="week">{t.dueNextWeek}</option>
          <option value="none">{t.dueNone}</option>
        </select>
        {isFiltering(filter) ? (
          <button type="button" onClick={() => setFilter({ text: '', labels: [], members: [], due: '' })}>
            {t.clearFilters}
          </button>
        ) : null}
        <button type="button" onClick={props.onHelp} aria-label={t.shortcuts}>
          ?
        </button>
        <details className="popover board-menu" ref={menu}>
          <summary>{settingsText.menu}</summary>
          <div className="menu">
            <button type="button" onClick={item(() => props.onPanel('labels'))}>
              {settingsText.labels}
            </button>
            <button type="button" onClick={item(() => props.onPanel('archive'))}>
              {settingsText.archived}
            </button>
            <button type="button" onClick={item(() => props.onPanel('settings'))}>
              {settingsText.settings}
            </button>
            {props.canDelete ? (
              <button type="button" onClick={item(props.onDelete)}>
                {settingsText.deleteBoard}
              </button>
            ) : null}
          </div>
        </details>
      </div>
    </div>
  );
}

/** Whether the element is within `margin` of the viewport (lists far off screen skip their cards). */
function useNear(ref: React.RefObject<HTMLElement | null>, margin: string): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new IntersectionObserver((entries) => setNear(entries.some((entry) => entry.isIntersecting)), { rootMargin: `0px ${margin}` });
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, margin]);
  return near;
}

interface ListProps {
  list: ListView;
  cards: CardFace[];
  listIndex: number;
  listCount: number;
  actions: BoardActions;
  onCardKey: (event: KeyboardEvent<HTMLElement>, listIndex: number, cardIndex: number, card: CardFace) => void;
  openCard: (cardId: string) => void;
  scrollers: Scrollers;
  composers: Map<string, () => void>;
  labelsById: ReadonlyMap<string, Label>;
  now: number;
}

const ListColumn = memo(function ListColumn({
  list,
  cards,
  listIndex,
  listCount,
  actions,
  onCardKey,
  openCard,
  scrollers,
  composers,
  labelsById,
  now,
}: ListProps) {
  const section = useRef<HTMLElement>(null);
  const header = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const near = useNear(section, LIST_RENDER_MARGIN);
  const [edge, setEdge] = useState<Edge | null>(null);
  const [renaming, setRenaming] = useState(false);
  const [composing, setComposing] = useState(false);

  useEffect(() => {
    composers.set(list._id, () => setComposing(true));
    return () => void composers.delete(list._id);
  }, [composers, list._id]);

  useEffect(() => {
    const element = section.current;
    const handle = header.current;
    const scroll = scroller.current;
    if (!element || !handle || !scroll) return;
    return combine(
      draggable({ element, dragHandle: handle, getInitialData: () => ({ type: 'list', listId: list._id }) }),
      dropTargetForElements({
        element,
        getData: ({ input, element: target }) =>
          attachClosestEdge({ type: 'list', listId: list._id }, { input, element: target, allowedEdges: ['left', 'right'] }),
        onDrag: ({ self, source }) => setEdge(source.data.type === 'list' && source.data.listId !== list._id ? extractClosestEdge(self.data) : null),
        onDragLeave: () => setEdge(null),
        onDrop: () => setEdge(null),
      }),
      autoScrollForElements({ element: scroll }),
    );
  }, [list._id]);

  const count = list.cards.length + (list.nextCursor ? '+' : '');
  return (
    <section ref={section} className={`list${edge ? ` drop-${edge}` : ''}`} aria-label={list.name} data-list-id={list._id} role="region">
      <div className="list-header" ref={header}>
        {renaming ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              const name = (event.currentTarget.elements.namedItem('name') as HTMLInputElement).value.trim();
              if (name && name !== list.name) void actions.renameList(list._id, name);
              setRenaming(false);
            }}
          >
            <input
              name="name"
              defaultValue={list.name}
              aria-label={t.listName}
              autoFocus
              onBlur={(event) => event.currentTarget.form?.requestSubmit()}
              onKeyDown={(event) => event.key === 'Escape' && setRenaming(false)}
            />
          </form>
        ) : (
          <h2 className="list-name">
            <button type="button" className="list-name-button" onClick={() => setRenaming(true)} aria-label={t.renameList(list.name)}>
              {list.name}
            </button>
          </h2>
        )}
        <span className="list-count" aria-label={t.cardCount(list.cards.length)}>
          {count}
        </span>
        <details className="popover list-menu">
          <summary aria-label={t.listActions(list.name)}>⋯</summary>
          <div className="menu">
            <button type="button" disabled={listIndex === 0} onClick={() => void actions.moveList(list._id, listIndex - 1)}>
              {t.moveListLeft}
            </button>
            <button type="button" disabled={listIndex === listCount - 1} onClick={() => void actions.moveList(list._id, listIndex + 1)}>
              {t.moveListRight}
            </button>
            <button
              type="button"
              onClick={() => {
                if (window.confirm(t.confirmArchiveList(list.name, list.cards.length))) void actions.archiveList(list._id);
              }}
            >
              {t.archiveList}
            </button>
          </div>
        </details>
      </div>
      <div className="list-cards" ref={scroller}>
        {near ? (
          <CardRows
            list={list}
            cards={cards}
            listIndex={listIndex}
            onCardKey={onCardKey}
            openCard={openCard}
            scroller={scroller}
            scrollers={scrollers}
            labelsById={labelsById}
            now={now}
          />
        ) : (
          <div style={{ height: Math.min(cards.length, 8) * 64 }} />
        )}
        {cards.length === 0 ? <p className="muted empty">{t.emptyList}</p> : null}
      </div>
      <CardComposer listId={list._id} listName={list.name} actions={actions} open={composing} setOpen={setComposing} />
    </section>
  );
});

function CardRows(props: {
  list: ListView;
  cards: CardFace[];
  listIndex: number;
  onCardKey: ListProps['onCardKey'];
  openCard: (cardId: string) => void;
  scroller: React.RefObject<HTMLDivElement | null>;
  scrollers: Scrollers;
  labelsById: ReadonlyMap<string, Label>;
  now: number;
}) {
  const { cards, scroller } = props;
  const virtualizer = useVirtualizer({
    count: cards.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 72,
    overscan: 6,
    getItemKey: (index) => cards[index]?._id ?? index,
  });
  useEffect(() => {
    props.scrollers.set(props.list._id, (index) => virtualizer.scrollToIndex(index, { align: 'auto' }));
    return () => void props.scrollers.delete(props.list._id);
  }, [props.scrollers, props.list._id, virtualizer]);
  return (
    <div role="list" aria-label={props.list.name} className="card-rows" style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((item) => {
        const card = cards[item.index];
        if (!card) return null;
        return (
          <div
            key={item.key}
            role="listitem"
            className="card-row"
            data-index={item.index}
            ref={virtualizer.measureElement}
            style={{ transform: `translateY(${item.start}px)` }}
          >
            <CardTile
              card={card}
              listId={props.list._id}
              labelsById={props.labelsById}
              onKeyDown={(event) => props.onCardKey(event, props.listIndex, item.index, card)}
              onOpen={() => props.openCard(card._id)}
              now={props.now}
            />
          </div>
        );
      })}
    </div>
  );
}

const CardTile = memo(function CardTile({
  card,
  listId,
  labelsById,
  onKeyDown,
  onOpen,
  now,
}: {
  card: CardFace;
  listId: string;
  labelsById: ReadonlyMap<string, Label>;
  onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
  onOpen: () => void;
  now: number;
}) {
  const element = useRef<HTMLDivElement>(null);
  const [edge, setEdge] = useState<Edge | null>(null);
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    const node = element.current;
    if (!node) return;
    return combine(
      draggable({
        element: node,
        getInitialData: () => ({ type: 'card', cardId: card._id, listId }),
        onDragStart: () => setDragging(true),
        onDrop: () => setDragging(false),
      }),
      dropTargetForElements({
        element: node,
        canDrop: ({ source }) => source.data.type === 'card',
        getData: ({ input, element: target }) =>
          attachClosestEdge({ type: 'card', cardId: card._id, listId }, { input, element: target, allowedEdges: ['top', 'bottom'] }),
        onDrag: ({ self, source }) => setEdge(source.data.cardId === card._id ? null : extractClosestEdge(self.data)),
        onDragLeave: () => setEdge(null),
        onDrop: () => setEdge(null),
      }),
    );
  }, [card._id, listId]);
  const due = dueState(card, now);
  // a label deleted meanwhile is gone from the board's labels before the card's face is read again
  const labels = card.labels.flatMap((id) => labelsById.get(id) ?? []);
  const checklist = card.allChecklistItemsCount;
  // The card's name is its content, name first: what a screen reader says is what the eye sees.
  return (
    <div
      ref={element}
      role="button"
      tabIndex={0}
      className={`card${dragging ? ' dragging' : ''}${edge ? ` drop-${edge}` : ''}`}
      data-card-id={card._id}
      onClick={onOpen}
      onKeyDown={onKeyDown}
    >
      {card.cover ? <Cover cover={card.cover} /> : null}
      <div className="card-name">{card.name}</div>
      {labels.length ? (
        <div className="card-labels">
          <span className="visually-hidden">, {t.labels}: </span>
          {labels.map((label) => (
            <span key={label._id} className="label-chip" style={{ background: label.color.hex, color: textOn(label.color.hex) }}>
              {label.name || label.color.name}{' '}
            </span>
          ))}
        </div>
      ) : null}
      {card.dueDate || card.hasDescription || checklist.total || card.commentsCount || card.attachmentsCount || card.members.length ? (
        <div className="card-badges">
          {card.dueDate ? (
            <span className={`badge due due-${due}`}>
              <span className="visually-hidden">, {t.dueDate} </span>
              {new Date(card.dueDate).toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}
              {due === 'overdue' || due === 'done' ? <span className="visually-hidden"> ({due === 'overdue' ? t.dueOverdue : t.dueDone})</span> : null}
            </span>
          ) : null}
          {card.hasDescription ? (
            <span className="badge">
              <span aria-hidden="true">≡</span>
              <span className="visually-hidden">, {t.hasDescription}</span>
            </span>
          ) : null}
          {checklist.total ? (
            <span className={`badge${checklist.completed === checklist.total ? ' done' : ''}`}>
              <span aria-hidden="true">☑ </span>
              <span className="visually-hidden">, {t.checklist(checklist.completed, checklist.total)}</span>
              <span aria-hidden="true">
                {checklist.completed}/{checklist.total}
              </span>
            </span>
          ) : null}
          {card.commentsCount ? (
            <span className="badge">
              <span aria-hidden="true">💬 {card.commentsCount}</span>
              <span className="visually-hidden">, {t.comments(card.commentsCount)}</span>
            </span>
          ) : null}
          {card.attachmentsCount ? (
            <span className="badge">
              <span aria-hidden="true">📎 {card.attachmentsCount}</span>
              <span className="visually-hidden">, {t.attachments(card.attachmentsCount)}</span>
            </span>
          ) : null}
          {card.members.length ? (
            <span className="card-members">
              <span className="visually-hidden">, {t.members}: </span>
              {card.members.map((member) =>
                member.photoUrl ? (
                  <img key={member._id} className="avatar" src={member.photoUrl} alt={member.fullName} title={member.fullName} />
                ) : (
                  <span key={member._id} className="avatar" title={member.fullName}>
                    <span aria-hidden="true">{initials(member.fullName)}</span>
                    <span className="visually-hidden">{member.fullName} </span>
                  </span>
                ),
              )}
            </span>
          ) : null}
        </div>
      ) : null}
    </div>
  );
});

/** Covers read as files: the page's own requests carry its credentials, which an <img> of an API key session would not. */
const coverImages = new Map<string, Promise<string | null>>();
const COVER_IMAGES_KEPT = 200;

function coverImage(url: string): Promise<string | null> {
  let image = coverImages.get(url);
  if (!image) {
    image = fetch(url, { headers: authHeaders(), credentials: 'same-origin' })
      .then(async (response) => (response.ok ? URL.createObjectURL(await response.blob()) : null))
      .catch(() => null);
    coverImages.set(url, image);
    if (coverImages.size > COVER_IMAGES_KEPT) {
      const [oldest, kept] = coverImages.entries().next().value as [string, Promise<string | null>];
      coverImages.delete(oldest);
      void kept.then((src) => src && URL.revokeObjectURL(src));
    }
  }
  return image;
}

/** A card's cover: a colour band, or an image (a URL of this server, such as one of the card's attachments). */
function Cover({ cover }: { cover: string }) {
  const isImage = /^\/(?!\/)/.test(cover) || cover.startsWith(`${window.location.origin}/`);
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    if (!isImage) return;
    let live = true;
    void coverImage(cover).then((found) => live && setSrc(found));
    return () => {
      live = false;
    };
  }, [cover, isImage]);
  if (!isImage) return CSS.supports('color', cover) ? <div className="card-cover card-cover-colour" style={{ background: cover }} /> : null;
  return src ? <img className="card-cover" src={src} alt="" /> : <div className="card-cover card-cover-loading" />;
}

function CardComposer({
  listId,
  listName,
  actions,
  open,
  setOpen,
}: {
  listId: string;
  listName: string;
  actions: BoardActions;
  open: boolean;
  setOpen: (open: boolean) => void;
}) {
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);
  if (!open)
    return (
      <button type="button" className="add-card" onClick={() => setOpen(true)} aria-label={t.addCardTo(listName)}>
        + {t.addCard}
      </button>
    );
  const submit = () => {
    const name = input.current?.value.trim() ?? '';
    if (!name) return;
    void actions.createCard(listId, name);
    if (input.current) input.current.value = '';
    input.current?.focus();
  };
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <textarea
        ref={input}
        aria-label={t.cardName}
        placeholder={t.cardName}
        rows={2}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey) {
            event.preventDefault();
            submit();
          } else if (event.key === 'Escape') setOpen(false);
        }}
      />
      <div className="composer-actions">
        <button type="submit" className="primary">
          {t.addCardButton}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {t.cancel}
        </button>
      </div>
    </form>
  );
}

function ListComposer({ actions, first }: { actions: BoardActions; first: boolean }) {
  const [open, setOpen] = useState(first);
  const id = useId();
  if (!open)
    return (
      <button type="button" className="add-list" onClick={() => setOpen(true)}>
        + {t.addList}
      </button>
    );
  return (
    <form
      className="list composer"
      onSubmit={(event) => {
        event.preventDefault();
        const input = event.currentTarget.elements.namedItem('name') as HTMLInputElement;
        const name = input.value.trim();
        if (name) void actions.createList(name);
        input.value = '';
      }}
    >
      <label htmlFor={id}>{first ? t.addFirstList : t.listName}</label>
      <input id={id} name="name" autoFocus={!first} onKeyDown={(event) => event.key === 'Escape' && setOpen(false)} />
      <div className="composer-actions">
        <button type="submit" className="primary">
          {t.addList}
        </button>
        {!first ? (
          <button type="button" onClick={() => setOpen(false)}>
            {t.cancel}
          </button>
        ) : null}
      </div>
    </form>
  );
}
