/**
 * The left rail (docs/decisions/0272): My Tasks and all boards, the starred boards (the account's,
 * docs/decisions/0276) and recent ones, and every team's boards; collapsible on a desk (remembered in this browser), a drawer on a phone.
 * Its own chunk, loaded after the page's first load; the shell keeps its width meanwhile.
 */
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { LayoutDashboard, ListChecks, PanelLeftClose, PanelLeftOpen, SquareKanban, Star, X } from 'lucide-react';
import { type ReactNode, useEffect, useId, useSyncExternalStore } from 'react';
import { NavLink, useLocation } from 'react-router';
import { type Board, client, unwrap } from '../api.ts';
import { Modal } from '../board/dialogs.tsx';
import { onRecentBoards, recentBoards, useMe } from '../session.ts';
import { t } from '../strings.ts';
import { Tip } from '../ui/Tooltip.tsx';
import { railText } from './railStrings.ts';
import './rail.css';

/** Where stars were kept in the browser before they were the account's: moved to it once, then forgotten. */
const STARRED_HERE = 'taskboard.starredBoards';
const STARRED_KEY = ['starred-boards'] as const;

function starsKeptHere(): string[] {
  try {
    const ids: unknown = JSON.parse(localStorage.getItem(STARRED_HERE) ?? '[]');
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** The account's starred boards, and a toggle that shows at once and is put right by the server's answer. */
function useStarredBoards() {
  const queryClient = useQueryClient();
  const starred = useQuery({
    queryKey: STARRED_KEY,
    queryFn: async () => {
      const here = starsKeptHere();
      if (here.length) {
        // a board starred in this browser before: starred on the account (one gone meanwhile is a 404, skipped)
        for (const boardId of here) await client.POST('/api/v1/boards/{boardId}/star', { params: { path: { boardId } } });
        localStorage.removeItem(STARRED_HERE);
      }
      return unwrap(await client.GET('/api/v1/me/starred-boards')).boards as Board[];
    },
  });
  const toggle = useMutation({
    mutationFn: async ({ board, star }: { board: Board; star: boolean }) => {
      const params = { params: { path: { boardId: board._id } } };
      unwrap(star ? await client.POST('/api/v1/boards/{boardId}/star', params) : await client.DELETE('/api/v1/boards/{boardId}/star', params));
    },
    onMutate: ({ board, star }) =>
      queryClient.setQueryData<Board[]>(STARRED_KEY, (boards = []) =>
        star ? [...boards.filter((one) => one._id !== board._id), board] : boards.filter((one) => one._id !== board._id),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: STARRED_KEY }),
  });
  return { boards: starred.data ?? [], toggle: (board: Board, star: boolean) => toggle.mutate({ board, star }) };
}

// a snapshot must be a stable value: the list as text
const recentText = () => JSON.stringify(recentBoards());

export default function Rail(props: { open: boolean; onToggle: () => void; drawer: boolean; onDrawerClose: () => void }) {
  const { pathname } = useLocation();
  const { drawer, onDrawerClose } = props;
  // a link followed in the drawer closes it
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new address closes it
  useEffect(() => {
    if (drawer) onDrawerClose();
  }, [pathname]);
  return (
    <>
      <nav className={props.open ? 'rail' : 'rail closed'} aria-label={t.openRail}>
        <Tip label={props.open ? railText.collapse : railText.expand}>
          <button
            type="button"
            className="icon-button rail-toggle"
            aria-label={props.open ? railText.collapse : railText.expand}
            aria-expanded={props.open}
            onClick={props.onToggle}
          >
            {props.open ? <PanelLeftClose size={18} aria-hidden className="flip-rtl" /> : <PanelLeftOpen size={18} aria-hidden className="flip-rtl" />}
          </button>
        </Tip>
        {props.open ? <RailContent /> : null}
      </nav>
      {drawer ? (
        <Modal label={t.openRail} onClose={onDrawerClose} className="rail-drawer">
          <div className="rail-drawer-head">
            <h2>{t.openRail}</h2>
            <button type="button" className="icon-button" aria-label={t.close} onClick={onDrawerClose}>
              <X size={20} aria-hidden />
            </button>
          </div>
          <nav aria-label={t.openRail}>
            <RailContent />
          </nav>
        </Modal>
      ) : null}
    </>
  );
}

function RailContent() {
  const me = useMe();
  const starred = useStarredBoards();
  const isStarred = new Set(starred.boards.map((board) => board._id));
  const teams = me.data?.teams ?? [];
  const companies = me.data?.companies ?? [];
  const boardsOf = useQueries({
    queries: teams.map((team) => ({
      // the boards page reads the same, so either fills the other's cache
      queryKey: ['boards', team._id],
      queryFn: async () => unwrap(await client.GET('/api/v1/boards', { params: { query: { teamId: team._id } } })).boards,
    })),
  });
  const known = new Map<string, Board>(boardsOf.flatMap((query) => (query.data ?? []).map((board) => [board._id, board] as const)));
  const row = (board: Board) => {
    const on = isStarred.has(board._id);
    return <BoardRow key={board._id} board={board} starred={on} onStar={() => starred.toggle(board, !on)} />;
  };
  // boards no longer reachable (deleted, archived, or another person's) are left out
  const listed = (ids: string[]) => ids.flatMap((id) => known.get(id) ?? []);
  const starredBoards = starred.boards;
  const recent = listed(JSON.parse(useSyncExternalStore(onRecentBoards, recentText)) as string[]);

  return (
    <div className="rail-content">
      <ul className="rail-list">
        <li>
          <NavLink to="/my-tasks" className="rail-link">
            <ListChecks size={16} aria-hidden />
            {t.myTasks}
          </NavLink>
        </li>
        <li>
          <NavLink to="/boards" end className="rail-link">
            <LayoutDashboard size={16} aria-hidden />
            {t.allBoards}
          </NavLink>
        </li>
      </ul>
      {starredBoards.length ? <RailSection title={railText.starred}>{starredBoards.map(row)}</RailSection> : null}
      {recent.length ? <RailSection title={railText.recent}>{recent.map(row)}</RailSection> : null}
      {companies.map((company) =>
        teams
          .filter((team) => team.company === company._id)
          .map((team) => {
            const boards = (boardsOf[teams.indexOf(team)]?.data ?? []).filter((board) => !board.archived?.status);
            return (
              <RailSection key={team._id} title={companies.length > 1 ? railText.teamOf(team.name, company.name) : team.name}>
                {boards.length ? boards.map(row) : <li className="muted rail-empty">{railText.noBoards}</li>}
              </RailSection>
            );
          }),
      )}
    </div>
  );
}

function RailSection({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    // a named group, not a region with a heading: the rail is one landmark, and the page's headings stay the page's
    <section className="rail-section" role="group" aria-labelledby={id}>
      <div id={id} className="rail-heading">
        {title}
      </div>
      <ul className="rail-list">{children}</ul>
    </section>
  );
}

function BoardRow({ board, starred, onStar }: { board: Board; starred: boolean; onStar: () => void }) {
  return (
    <li className="rail-board">
      <NavLink to={`/boards/${board._id}`} className="rail-link">
        <SquareKanban size={16} aria-hidden />
        <span className="rail-name">{board.name}</span>
      </NavLink>
      <Tip label={railText.star(board.name)}>
        <button
          type="button"
          className={starred ? 'icon-button rail-star on' : 'icon-button rail-star'}
          aria-pressed={starred}
          aria-label={railText.star(board.name)}
          onClick={onStar}
        >
          <Star size={14} aria-hidden fill={starred ? 'currentColor' : 'none'} />
        </button>
      </Tip>
    </li>
  );
}
