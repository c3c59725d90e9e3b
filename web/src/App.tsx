import { lazy, type ReactNode, Suspense } from 'react';
import { Link, Navigate, type RouteObject } from 'react-router';
import { BoardSkeleton } from './board/BoardSkeleton.tsx';
import { loadBoardPage } from './board/pageLoader.ts';
import { HomePage } from './home/HomePage.tsx';
import { lastBoard } from './session.ts';
import { Shell } from './shell/Shell.tsx';
import { t } from './strings.ts';

/** The app's routes: the public pages, then the pages behind sign-in inside the shell. */
// The account page is rarely opened: it loads when it is.
const AccountPage = lazy(() => import('./account/AccountPage.tsx'));
// So is the administration of companies, and by few.
const AdminPage = lazy(() => import('./admin/AdminPage.tsx'));
// The inbox and My Tasks load when opened, outside the board page's first load.
const NotificationsPage = lazy(() => import('./inbox/NotificationsPage.tsx').then((module) => ({ default: module.NotificationsPage })));
const MyTasksPage = lazy(() => import('./inbox/MyTasksPage.tsx').then((module) => ({ default: module.MyTasksPage })));
// Mapping an import's people is opened once per import.
const ImportPeoplePage = lazy(() => import('./imports/ImportPeoplePage.tsx'));
// The pages a link leads to (an invitation, a reset) are opened once per person.
const InvitationPage = lazy(() => import('./people/InvitationPage.tsx'));
const ResetPasswordPage = lazy(() => import('./people/ResetPasswordPage.tsx'));
const ForgotPasswordPage = lazy(() => import('./people/ForgotPasswordPage.tsx'));
// The sign-in page is not part of a signed-in page's first load; the first-run setup is opened once per server.
const SignInPage = lazy(() => import('./people/SignInPage.tsx').then((module) => ({ default: module.SignInPage })));
const SetupPage = lazy(() => import('./people/SetupPage.tsx').then((module) => ({ default: module.SetupPage })));

// The board page (drag and drop, the virtualised lists, the live stream) is a chunk of its own, not
// part of the other pages' first load. At a board's address the server names it in a Link header, so
// it downloads beside the entry chunk (docs/decisions/0278); the import here then finds it loaded.
const BoardPage = lazy(() => loadBoardPage().then((module) => ({ default: module.BoardPage })));
if (/^\/boards\/[^/]+/.test(window.location.pathname) || (window.location.pathname === '/' && lastBoard())) void loadBoardPage();

/** A page whose code loads when it is opened. */
function Lazy({ page }: { page: ReactNode }) {
  return <Suspense fallback={null}>{page}</Suspense>;
}

/** `/`: the last board reopens; else the boards. */
function Start() {
  const last = lastBoard();
  return <Navigate to={last ? `/boards/${last}` : '/boards'} replace />;
}

export const routes: RouteObject[] = [
  { path: '/sign-in', element: <Lazy page={<SignInPage />} /> },
  { path: '/setup', element: <Lazy page={<SetupPage />} /> },
  { path: '/invitations', element: <Lazy page={<InvitationPage />} /> },
  { path: '/reset', element: <Lazy page={<ResetPasswordPage />} /> },
  // the address reset links had before; a link still in someone's mail keeps working
  { path: '/reset-password', element: <Lazy page={<ResetPasswordPage />} /> },
  { path: '/forgot-password', element: <Lazy page={<ForgotPasswordPage />} /> },
  {
    element: <Shell />,
    children: [
      { path: '/', element: <Start /> },
      { path: '/boards', element: <HomePage /> },
      {
        path: '/boards/:boardId',
        element: (
          <Suspense fallback={<BoardSkeleton />}>
            <BoardPage />
          </Suspense>
        ),
      },
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
        path: '/imports/:importId/people',
        element: (
          <Suspense fallback={<p className="page-pad">{t.loading}</p>}>
            <ImportPeoplePage />
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
