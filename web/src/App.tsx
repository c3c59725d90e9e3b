import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useEffect, useId, useState } from 'react';
import { Link, Navigate, Outlet, type RouteObject, useNavigate } from 'react-router';
import { administers, type Board, client, getJson, session, setUnauthorizedHandler, unwrap } from './api.ts';
import { BoardPage } from './board/BoardPage.tsx';
import { Bell } from './inbox/Bell.tsx';
import { signOut as endSession } from './people/links.ts';
import { SetupPage } from './people/SetupPage.tsx';
import { SignInPage } from './people/SignInPage.tsx';
import { SearchBox, useScrollToSearched } from './search/SearchBox.tsx';
import { t } from './strings.ts';
import { applyTheme, currentTheme, type Theme } from './theme.ts';

// The account page is rarely opened: it loads when it is.
const AccountPage = lazy(() => import('./account/AccountPage.tsx'));
// So is the administration of companies, and by few.
const AdminPage = lazy(() => import('./admin/AdminPage.tsx'));
// The inbox and My Tasks load when opened, outside the board page's first load.
const NotificationsPage = lazy(() => import('./inbox/NotificationsPage.tsx').then((module) => ({ default: module.NotificationsPage })));
// A team's archived boards, on the boards page: their own chunk with the board settings.
const ArchivedBoards = lazy(() => import('./board/settings/ArchivedBoards.tsx'));
const MyTasksPage = lazy(() => import('./inbox/MyTasksPage.tsx').then((module) => ({ default: module.MyTasksPage })));
// Importing a board is rare: its dialog loads when opened.
const ImportDialog = lazy(() => import('./imports/ImportDialog.tsx'));
// The pages a link leads to (an invitation, a reset) are opened once per person.
const InvitationPage = lazy(() => import('./people/InvitationPage.tsx'));
const ResetPasswordPage = lazy(() => import('./people/ResetPasswordPage.tsx'));
const ForgotPasswordPage = lazy(() => import('./people/ForgotPasswordPage.tsx'));

/** A page whose code loads when it is opened. */
function Lazy({ page }: { page: ReactNode }) {
  return <Suspense fallback={null}>{page}</Suspense>;
}

const LAST_BOARD = 'taskboard.lastBoard';
export const rememberBoard = (boardId: string) => localStorage.setItem(LAST_BOARD, boardId);
/** A deleted board is not reopened by `/`. */
export const forgetBoard = (boardId: string) => {
  if (localStorage.getItem(LAST_BOARD) === boardId) localStorage.removeItem(LAST_BOARD);
};

export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      // After a reload the page holds no CSRF token: the session hands it out again.
      if (!session.apiKey && !session.csrf) await getJson('/api/v1/auth/session').catch(() => undefined);
      return unwrap(await client.GET('/api/v1/me'));
    },
    staleTime: 60_000,
  });
}

/** The pages behind sign-in: a 401 anywhere leads to the sign-in page. */
function Shell() {
  const navigate = useNavigate();
  const me = useMe();
  useScrollToSearched();
  useEffect(() => {
    setUnauthorizedHandler(() => navigate('/sign-in', { replace: true }));
  }, [navigate]);
  if (me.isError) return <Navigate to="/sign-in" replace />;
  return (
    <div className="app">
      <TopBar name={me.data?.user.fullName} signedIn={me.isSuccess} administers={me.data?.companies.some((company) => administers(company.role)) ?? false} />
      <main className="app-main" id="main">
        <Outlet />
      </main>
    </div>
  );
}

function TopBar({ name, signedIn, administers }: { name: string | undefined; signedIn: boolean; administers: boolean }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [theme, setTheme] = useState<Theme>(currentTheme());
  const themeId = useId();
  async function signOut() {
    await endSession(queryClient);
    navigate('/sign-in');
  }
  return (
    <header className="topbar">
      <Link to="/boards" className="brand">
        {t.product}
      </Link>
      <nav aria-label={t.boards}>
        <Link to="/boards">{t.allBoards}</Link>
        <Link to="/my-tasks">{t.myTasks}</Link>
        {/* owners and admins only; the API refuses the others whatever the page shows */}
        {administers ? <Link to="/admin">{t.administration}</Link> : null}
      </nav>
      <SearchBox />
      <span className="spacer" />
      <Bell signedIn={signedIn} />
      <label htmlFor={themeId} className="theme-label">
        {t.theme}
      </label>
      <select
        id={themeId}
        value={theme}
        onChange={(event) => {
          const next = event.target.value as Theme;
          setTheme(next);
          applyTheme(next);
        }}
      >
        <option value="system">{t.themeSystem}</option>
        <option value="light">{t.themeLight}</option>
        <option value="dark">{t.themeDark}</option>
      </select>
      {name ? (
        <Link to="/account" className="who" aria-label={t.accountLink(name)}>
          {name}
        </Link>
      ) : null}
      <button type="button" onClick={signOut}>
        {t.signOut}
      </button>
    </header>
  );
}

/** `/`: the last board reopens; else the boards. */
function Start() {
  const last = localStorage.getItem(LAST_BOARD);
  return <Navigate to={last ? `/boards/${last}` : '/boards'} replace />;
}

function TeamBoards({ teamId, teamName, canDelete }: { teamId: string; teamName: string; canDelete: boolean }) {
  const queryClient = useQueryClient();
  const boards = useQuery({
    queryKey: ['boards', teamId],
    queryFn: async () => unwrap(await client.GET('/api/v1/boards', { params: { query: { teamId } } })).boards,
  });
  const create = useMutation({
    mutationFn: async (name: string) => unwrap(await client.POST('/api/v1/boards', { params: { query: { teamId } }, body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['boards', teamId] }),
  });
  const inputId = useId();
  const [importing, setImporting] = useState(false);
  return (
    <section className="team" aria-labelledby={`${inputId}-title`}>
      <div className="team-head">
        <h2 id={`${inputId}-title`}>{teamName}</h2>
        <button type="button" onClick={() => setImporting(true)} aria-label={t.importBoardInto(teamName)}>
          {t.importBoard}
        </button>
      </div>
      {importing ? (
        <Suspense fallback={null}>
          <ImportDialog teamId={teamId} teamName={teamName} onClose={() => setImporting(false)} />
        </Suspense>
      ) : null}
      <ul className="board-tiles">
        {boards.data?.map((board) => (
          <BoardTile key={board._id} board={board} teamId={teamId} />
        ))}
        {boards.data?.length === 0 ? <li className="muted">{t.noBoards}</li> : null}
      </ul>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const input = event.currentTarget.elements.namedItem('name') as HTMLInputElement;
          const name = input.value.trim();
          if (name) create.mutate(name, { onSuccess: () => (input.value = '') });
        }}
      >
        <label htmlFor={inputId} className="visually-hidden">
          {t.boardName}
        </label>
        <input id={inputId} name="name" placeholder={t.boardName} />
        <button type="submit">{t.createBoard}</button>
        {create.error ? (
          <span role="alert" className="error">
            {create.error.message}
          </span>
        ) : null}
      </form>
      <Suspense fallback={null}>
        <ArchivedBoards teamId={teamId} canDelete={canDelete} />
      </Suspense>
    </section>
  );
}

function BoardTile({ board, teamId }: { board: Board; teamId: string }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['boards', teamId] });
  const rename = useMutation({
    mutationFn: async (name: string) => unwrap(await client.PATCH('/api/v1/boards/{boardId}', { params: { path: { boardId: board._id } }, body: { name } })),
    onSuccess: refresh,
  });
  const archive = useMutation({
    mutationFn: async () => unwrap(await client.PATCH('/api/v1/boards/{boardId}/archive', { params: { path: { boardId: board._id } } })),
    onSuccess: refresh,
  });
  return (
    <li className="board-tile">
      {editing ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const name = (event.currentTarget.elements.namedItem('name') as HTMLInputElement).value.trim();
            if (name) rename.mutate(name);
            setEditing(false);
          }}
        >
          <input name="name" defaultValue={board.name} aria-label={t.boardName} autoFocus onBlur={() => setEditing(false)} />
        </form>
      ) : (
        <Link to={`/boards/${board._id}`}>{board.name}</Link>
      )}
      <span className="tile-actions">
        <button type="button" onClick={() => setEditing(true)} aria-label={t.renameNamed(board.name)}>
          {t.rename}
        </button>
        <button type="button" onClick={() => archive.mutate()} aria-label={t.archiveNamed(board.name)}>
          {t.archive}
        </button>
      </span>
    </li>
  );
}

function Home() {
  const me = useMe();
  if (!me.data) return <p className="page-pad">{t.loading}</p>;
  return (
    <div className="home page-pad">
      <h1>{t.boards}</h1>
      {me.data.companies.map((company) => (
        <section key={company._id} className="company" aria-label={`${t.company} ${company.name}`}>
          <h2 className="company-name">{company.name}</h2>
          {me.data.teams
            .filter((team) => team.company === company._id)
            .map((team) => (
              <TeamBoards key={team._id} teamId={team._id} teamName={team.name} canDelete={administers(company.role)} />
            ))}
        </section>
      ))}
    </div>
  );
}

export const routes: RouteObject[] = [
  { path: '/sign-in', element: <SignInPage /> },
  { path: '/setup', element: <SetupPage /> },
  { path: '/invitations', element: <Lazy page={<InvitationPage />} /> },
  { path: '/reset', element: <Lazy page={<ResetPasswordPage />} /> },
  // the address reset links had before; a link still in someone's mail keeps working
  { path: '/reset-password', element: <Lazy page={<ResetPasswordPage />} /> },
  { path: '/forgot-password', element: <Lazy page={<ForgotPasswordPage />} /> },
  {
    element: <Shell />,
    children: [
      { path: '/', element: <Start /> },
      { path: '/boards', element: <Home /> },
      { path: '/boards/:boardId', element: <BoardPage /> },
      {
        path: '/account',
        element: (
          <Suspense fallback={<p className="page-pad">{t.loading}</p>}>
            <AccountPage />
          </Suspense>
        ),
      },
      {
        path: '/admin/*',
        element: (
          <Suspense fallback={<p className="page-pad">{t.loading}</p>}>
            <AdminPage />
          </Suspense>
        ),
      },
      {
        path: '/notifications',
        element: (
          <Suspense fallback={<p className="page-pad">{t.loading}</p>}>
            <NotificationsPage />
          </Suspense>
        ),
      },
      {
        path: '/my-tasks',
        element: (
          <Suspense fallback={<p className="page-pad">{t.loading}</p>}>
            <MyTasksPage />
          </Suspense>
        ),
      },
      {
        path: '*',
        element: (
          <p className="page-pad">
            {t.notFound} <Link to="/boards">{t.backToBoards}</Link>
          </p>
        ),
      },
    ],
  },
];
