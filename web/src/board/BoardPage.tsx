import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { administers, client, type Label, type Member, problem, unwrap } from '../api.ts';
import { startCardReads } from '../card/queries.ts';
import { type CustomField, useFields } from '../fields/fields.ts';
import { pageIdle } from '../idle.ts';
import { openBlockers, useBoardRelations } from '../relations/relations.ts';
import { useBoardTextFilter } from '../search/boardFilter.ts';
import { forgetBoard, rememberBoard, useMe } from '../session.ts';
import { t } from '../strings.ts';
import { showToast } from '../ui/toasts.ts';
import { BOARD_VIEWS, BoardHeader, type BoardViewName } from './BoardHeader.tsx';
import { BoardSkeleton } from './BoardSkeleton.tsx';
import { BoardUnavailable } from './BoardUnavailable.tsx';
import type { FaceContext } from './CardTile.tsx';
import { loadCardDialog, useCardDialog } from './cardDialogLoader.ts';
import { type ComposerTemplate, ListComposer } from './composers.tsx';
import { HelpDialog, MoveDialog } from './dialogs.tsx';
import { useBoardDrops } from './dragAndDrop.ts';
import { isFiltering, matches } from './filters.ts';
import { ListColumn, type Scrollers } from './ListColumn.tsx';
import { useBoardStream } from './live.ts';
import { type LikeCard, likeCard } from './recurrences/like.ts';
import type { Panel } from './settings/BoardSettings.tsx';
import { cardKeyHandler, useHelpKey } from './shortcuts.ts';
import { type BoardView, boardKey, fillWindow, type Notice, refusalOf, useBoard, useBoardActions } from './store.ts';
import { useFilter } from './useFilter.ts';
import { datesWindowOf } from './views/window.ts';

// The board menu's dialogs (labels, archived items, settings) load when first opened.
const loadSettings = () => import('./settings/BoardSettings.tsx');
const BoardSettings = lazy(loadSettings);
// The Rules page is for the few who automate: it loads when opened.
const RulesDialog = lazy(() => import('./rules/RulesDialog.tsx'));
// Recurring cards likewise (from the board menu, or a list's menu with that list chosen).
const RecurrencesDialog = lazy(() => import('./recurrences/RecurrencesDialog.tsx'));
const MakeBoardTemplateDialog = lazy(() => import('./templates/MakeBoardTemplateDialog.tsx'));
// The table, calendar and timeline views are chunks of their own, each loaded when first shown.
const VIEW_CHUNKS = {
  table: () => import('./table/BoardTable.tsx'),
  calendar: () => import('./calendar/BoardCalendar.tsx'),
  timeline: () => import('./timeline/BoardTimeline.tsx'),
};
const BoardTable = lazy(VIEW_CHUNKS.table);
const BoardCalendar = lazy(VIEW_CHUNKS.calendar);
const BoardTimeline = lazy(VIEW_CHUNKS.timeline);
// Sharing is occasional: its dialog loads when opened.
const ShareDialog = lazy(() => import('./ShareDialog.tsx'));

/**
 * The board: the page composes its header, the lists and the dialogs; the columns, faces, composers,
 * drag and drop, shortcuts and the card dialog's loading live in their own modules beside it.
 */
export function BoardPage() {
  const { boardId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  // a calendar or timeline link reads its dates window first (docs/decisions/0295)
  const datesWindow = useMemo(() => datesWindowOf(params), [params]);
  const board = useBoard(boardId, datesWindow);
  const me = useMe();
  const [notice, setNotice] = useState<Notice | null>(null);
  const [announcement, setAnnouncement] = useState('');
  // The card dialog's code comes once the cards are shown and the page is idle, so a card opens without
  // waiting for it and its download (the biggest chunk) never competes with the board's own reads.
  const boardShown = board.data !== undefined;
  useEffect(() => {
    if (!boardShown) return;
    const leaving = new AbortController();
    void pageIdle(leaving.signal).then(() => {
      if (!leaving.signal.aborted) void loadCardDialog();
    });
    return () => leaving.abort();
  }, [boardShown]);
  // What went well (with its Undo) is a toast; a refusal stays above the board until closed.
  const notify = useCallback((next: Notice) => (next.kind === 'info' ? showToast(next) : setNotice(next)), []);
  const announce = useCallback((text: string) => setAnnouncement(text), []);
  const actions = useBoardActions(boardId, notify, announce);
  const { connected, viewers } = useBoardStream(boardId, actions.refreshCard);
  const labels = useQuery({
    queryKey: ['labels', boardId],
    queryFn: async () => unwrap(await client.GET('/api/v1/boards/{boardId}/labels', { params: { path: { boardId } } })).labels as Label[],
  });
  // the board's template cards (as loaded), then the team's others, offered by each list's composer; the same array until they change
  const templates = useTemplates(board.data, boardId);
  const fields = useFields(boardId);
  const labelsById = useMemo(() => new Map((labels.data ?? []).map((label) => [label._id, label])), [labels.data]);
  const [filter, setFilter] = useFilter(params, setParams);
  const textFilter = useBoardTextFilter(boardId, filter.text, board.dataUpdatedAt);
  const openCardId = params.get('card');
  const cardDialogFailed = useCallback((error: unknown) => notify({ kind: 'error', text: t.refused(problem(error)) }), [notify]);
  const CardDialog = useCardDialog(Boolean(openCardId), cardDialogFailed);
  const [moving, setMoving] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const [sharing, setSharing] = useState(false);
  const [panel, setPanel] = useState<Panel | null>(null);
  const [rulesOpen, setRulesOpen] = useState(false);
  const [makingTemplate, setMakingTemplate] = useState(false);
  // the recurring cards' dialog: closed (null), from the board menu, for a list, or like a card
  const [recurring, setRecurring] = useState<{ list: string | null; card?: LikeCard } | null>(null);
  const recurInList = useCallback((listId: string) => setRecurring({ list: listId }), []);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const scrollers = useRef<Scrollers>(new Map());
  const composers = useRef(new Map<string, () => void>());
  const canvas = useRef<HTMLDivElement>(null);
  const now = useMinute();
  // The card keys' handler is the latest render's, behind one function for the page's life, so the
  // lists and faces (memoised) do not draw again for a new handler on every render of the page.
  const cardKeys = useRef<ReturnType<typeof cardKeyHandler> | null>(null);
  const onCardKey = useCallback<ReturnType<typeof cardKeyHandler>>((...args) => cardKeys.current?.(...args), []);

  // a link to another view fetches its code while the board is read, not after
  const askedView = params.get('view');
  useEffect(() => {
    if (askedView === 'table' || askedView === 'calendar' || askedView === 'timeline') void VIEW_CHUNKS[askedView]().catch(() => undefined);
  }, [askedView]);

  useEffect(() => {
    if (board.data) rememberBoard(boardId);
  }, [board.data, boardId]);

  const team = me.data?.teams.find((one) => one._id === board.data?.board.team);
  const members: Member[] = useMemo(() => team?.members ?? [], [team]);
  // the fields card fronts show, and the people a person field names: one object, so the faces re-render only when either changes
  const relations = useBoardRelations(boardId);
  // which cards open blockers hold back, as a key: the faces re-render when that changes, not on every change of the board
  const blockedKey = useMemo(() => {
    const onBoard = new Map((board.data?.lists ?? []).flatMap((list) => list.cards.map((card) => [card._id, card] as const)));
    return JSON.stringify([...openBlockers(relations.data, boardId, onBoard)]);
  }, [relations.data, board.data, boardId]);
  // by what the faces show, not by the reads' arrival: a board with no fields on its cards keeps one context when its fields arrive
  const facesKey = JSON.stringify([(fields.data ?? []).filter((field) => field.showOnCard), members, blockedKey]);
  const faces = useMemo<FaceContext>(() => {
    const [shownFields, people, blocked] = JSON.parse(facesKey) as [CustomField[], Member[], string];
    return {
      fields: shownFields,
      people: new Map(people.map((member) => [member._id, member])),
      blockers: new Map(JSON.parse(blocked) as [string, string[]][]),
    };
  }, [facesKey]);
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

  useBoardDrops(canvas, board.data, actions);

  // another window shown before the whole board is read (the next month): its cards are read at once
  const windowKey = datesWindow ? `${datesWindow.by} ${datesWindow.from} ${datesWindow.to}` : '';
  const windowRead = useRef(windowKey);
  const partial = board.data?.partial === true;
  useEffect(() => {
    if (!partial || !datesWindow || windowRead.current === windowKey) return;
    windowRead.current = windowKey;
    void fillWindow(queryClient, boardId, datesWindow).catch(() => undefined);
  }, [partial, datesWindow, windowKey, queryClient, boardId]);

  // the view is in the URL with the filters, so a link shares both
  const viewShown: BoardViewName = BOARD_VIEWS.find((one) => one === askedView) ?? 'board';
  const viewLink = (next: BoardViewName) => {
    const link = new URLSearchParams(params);
    if (next !== 'board') link.set('view', next);
    else link.delete('view');
    const query = link.toString();
    return `/boards/${boardId}${query ? `?${query}` : ''}`;
  };
  const tableRefused = useCallback(
    async (error: unknown, cardId: string) => {
      const { conflict, message } = refusalOf(error);
      if (conflict) await actions.refreshCard(cardId).catch(() => undefined);
      notify({ kind: 'error', text: conflict ? t.changedMeanwhileBoard : t.refused(message) });
    },
    [actions, notify],
  );

  const openHelp = useCallback(() => setHelp(true), []);
  useHelpKey(openHelp);

  if (board.isError) return <BoardUnavailable error={board.error} />;
  if (!board.data) return <BoardSkeleton />;
  const view = board.data;
  const filtering = isFiltering(filter);
  // the text is answered by the search operation; until its first answer, by the cards' own text
  const byText = textFilter.cardIds;
  const local = byText || textFilter.error ? { ...filter, text: '' } : filter;
  const visible = view.lists.map((list) =>
    filtering ? list.cards.filter((card) => matches(card, local, now) && (!byText || byText.has(card._id))) : list.cards,
  );
  const shown = visible.reduce((sum, cards) => sum + cards.length, 0);
  // the table's, calendar's and timeline's cards: those the board shows, each with its list
  const rows = viewShown === 'board' ? [] : view.lists.flatMap((list, index) => (visible[index] ?? []).map((card) => ({ card, list })));

  cardKeys.current = cardKeyHandler({ view, visible, actions, openCard, scrollers, composers, myId: me.data?.user._id, openHelp });

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
        viewers={viewers.filter((viewer) => viewer._id !== me.data?.user._id)}
        onHelp={() => setHelp(true)}
        canDelete={canDelete}
        onPanel={setPanel}
        onDelete={() => void deleteBoard()}
        onShare={() => setSharing(true)}
        onRules={() => setRulesOpen(true)}
        onRecurrences={() => setRecurring({ list: null })}
        onMakeTemplate={() => setMakingTemplate(true)}
        view={viewShown}
        viewLink={viewLink}
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
      {viewShown === 'table' ? (
        <Suspense fallback={<p className="muted page-pad">{t.loading}</p>}>
          <BoardTable
            boardId={boardId}
            boardName={view.board.name}
            rows={rows}
            labelsById={labelsById}
            people={faces.people}
            members={members}
            fields={fields.data ?? []}
            userId={me.data?.user._id ?? ''}
            params={params}
            setParams={(next) => setParams(next, { replace: true })}
            actions={actions}
            openCard={openCard}
            onError={tableRefused}
            lists={view.lists}
            place={{ companyId: view.board.company, teamId: view.board.team }}
            onBulkDone={(result) => notify({ kind: result.ok ? 'info' : 'error', text: result.ok ? result.text : t.refused(result.text) })}
            onBulkChanged={() => queryClient.invalidateQueries({ queryKey: boardKey(boardId) })}
          />
        </Suspense>
      ) : null}
      {viewShown === 'calendar' ? (
        <Suspense fallback={<p className="muted page-pad">{t.loading}</p>}>
          <BoardCalendar
            boardName={view.board.name}
            rows={rows}
            labelsById={labelsById}
            params={params}
            setParams={(next) => setParams(next, { replace: true })}
            actions={actions}
            openCard={openCard}
          />
        </Suspense>
      ) : null}
      {viewShown === 'timeline' ? (
        <Suspense fallback={<p className="muted page-pad">{t.loading}</p>}>
          <BoardTimeline
            boardName={view.board.name}
            rows={rows}
            members={members}
            relations={relations.data ?? []}
            params={params}
            setParams={(next) => setParams(next, { replace: true })}
            actions={actions}
            openCard={openCard}
          />
        </Suspense>
      ) : null}
      <div className="canvas" ref={canvas} hidden={viewShown !== 'board'}>
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
            faces={faces}
            now={now}
            onRecur={recurInList}
            templates={templates}
            filtering={filtering}
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
          onRecur={(card) => {
            closeCard();
            setRecurring({ list: card.list, card: likeCard(card) });
          }}
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
      {sharing ? (
        <Suspense fallback={null}>
          <ShareDialog
            boardId={boardId}
            boardName={view.board.name}
            teamId={view.board.team}
            companyId={view.board.company}
            role={role}
            members={members}
            onClose={() => setSharing(false)}
          />
        </Suspense>
      ) : null}
      {rulesOpen ? (
        <Suspense fallback={null}>
          <RulesDialog boardId={boardId} boardName={view.board.name} labels={labels.data ?? []} members={members} onClose={() => setRulesOpen(false)} />
        </Suspense>
      ) : null}
      {makingTemplate ? (
        <Suspense fallback={null}>
          <MakeBoardTemplateDialog boardId={boardId} boardName={view.board.name} onClose={() => setMakingTemplate(false)} />
        </Suspense>
      ) : null}
      {recurring ? (
        <Suspense fallback={null}>
          <RecurrencesDialog
            boardId={boardId}
            boardName={view.board.name}
            labels={labels.data ?? []}
            members={members}
            forList={recurring.list}
            likeCard={recurring.card ?? null}
            onClose={() => setRecurring(null)}
          />
        </Suspense>
      ) : null}
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

function useTemplates(view: BoardView | undefined, boardId: string): ComposerTemplate[] {
  const key = (view?.lists ?? []).flatMap((list) => list.cards.filter((card) => card.isTemplate).map((card) => `${card._id}\u0000${card.name}`)).join('\u0001');
  const teamId = view?.board.team;
  // the team's template cards of its other boards (docs/decisions/0304): read when the board opens
  const team = useQuery({
    queryKey: ['card-templates', teamId],
    enabled: Boolean(teamId),
    queryFn: async () => unwrap(await client.GET('/api/v1/teams/{teamId}/card-templates', { params: { path: { teamId: teamId as string } } })).cardTemplates,
  });
  return useMemo(() => {
    const own: ComposerTemplate[] = key
      ? key.split('\u0001').map((entry) => {
          const [_id = '', name = ''] = entry.split('\u0000');
          return { _id, name };
        })
      : [];
    const others = (team.data ?? []).filter((one) => one.board !== boardId).map((one) => ({ _id: one._id, name: one.name, boardName: one.boardName }));
    return [...own, ...others];
  }, [key, team.data, boardId]);
}

/**
 * The time due badges and filters count from, in steps of a minute: the faces (memoised) draw again
 * once a minute, not with every render of the page.
 */
function useMinute(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 60_000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}
