import { useQueryClient } from '@tanstack/react-query';
import { LayoutDashboard, ListChecks, LogOut, Menu as MenuIcon, Moon, PanelLeft, Search, Shield, User, X } from 'lucide-react';
import { lazy, Suspense, useEffect, useId, useState } from 'react';
import { Link, Navigate, Outlet, useNavigate } from 'react-router';
import { administers, setUnauthorizedHandler } from '../api.ts';
import { loadBoardPageOnIntent } from '../board/pageLoader.ts';
import { Bell } from '../inbox/Bell.tsx';
import { OfflineBanner } from '../offline/AppStatus.tsx';
import { signOut as endSession } from '../people/links.ts';
import { SearchBox, useScrollToSearched } from '../search/SearchBox.tsx';
import { useMe } from '../session.ts';
import { t } from '../strings.ts';
import { applyTheme, currentTheme, type Theme } from '../theme.ts';
import { Menu } from '../ui/Menu.tsx';
import { loadPopupsWhenSettled } from '../ui/popups.ts';
import { Toaster } from '../ui/Toaster.tsx';
import { Tip } from '../ui/Tooltip.tsx';

// The left rail loads after the page's first load; its place is kept meanwhile (docs/decisions/0272).
const Rail = lazy(() => import('./Rail.tsx'));
const RAIL_CLOSED = 'taskboard.railClosed';

/** The pages behind sign-in: a 401 anywhere leads to the sign-in page. */
export function Shell() {
  const navigate = useNavigate();
  const me = useMe();
  const [railOpen, setRailOpen] = useState(() => !localStorage.getItem(RAIL_CLOSED));
  const [drawer, setDrawer] = useState(false);
  useScrollToSearched();
  const queryClient = useQueryClient();
  useEffect(() => loadPopupsWhenSettled(queryClient), [queryClient]);
  // the board page is a chunk of its own: fetched as a link to a board is pointed at or touched
  useEffect(loadBoardPageOnIntent, []);
  useEffect(() => {
    setUnauthorizedHandler(() => navigate('/sign-in', { replace: true }));
  }, [navigate]);
  if (me.isError) return <Navigate to="/sign-in" replace />;
  return (
    <div className="app">
      <TopBar
        name={me.data?.user.fullName}
        signedIn={me.isSuccess}
        administers={me.data?.companies.some((company) => administers(company.role)) ?? false}
        onRail={() => setDrawer(true)}
      />
      <OfflineBanner />
      <div className="app-body">
        <Suspense fallback={<div className={railOpen ? 'rail-space' : 'rail-space closed'} />}>
          <Rail
            open={railOpen}
            onToggle={() => {
              if (railOpen) localStorage.setItem(RAIL_CLOSED, '1');
              else localStorage.removeItem(RAIL_CLOSED);
              setRailOpen(!railOpen);
            }}
            drawer={drawer}
            onDrawerClose={() => setDrawer(false)}
          />
        </Suspense>
        <main className="app-main" id="main">
          <Outlet />
        </main>
      </div>
      <Toaster />
    </div>
  );
}

function TopBar({ name, signedIn, administers, onRail }: { name: string | undefined; signedIn: boolean; administers: boolean; onRail: () => void }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [theme, setTheme] = useState<Theme>(currentTheme());
  const themeId = useId();
  const [searching, setSearching] = useState(false);
  async function signOut() {
    await endSession(queryClient);
    navigate('/sign-in');
  }
  const pickTheme = (next: Theme) => {
    setTheme(next);
    applyTheme(next);
  };
  return (
    <header className={`topbar${searching ? ' searching' : ''}`}>
      <Tip label={t.openRail}>
        <button type="button" className="icon-button phone-only" aria-label={t.openRail} onClick={onRail}>
          <PanelLeft size={20} aria-hidden="true" />
        </button>
      </Tip>
      <Link to="/boards" className="brand" aria-label={t.product}>
        <LayoutDashboard size={20} aria-hidden="true" />
        <span className="brand-name">{t.product}</span>
      </Link>
      <nav aria-label={t.boards} className="desk-only">
        <Link to="/boards">{t.allBoards}</Link>
        <Link to="/my-tasks">{t.myTasks}</Link>
        {/* owners and admins only; the API refuses the others whatever the page shows */}
        {administers ? <Link to="/admin">{t.administration}</Link> : null}
      </nav>
      {/* on a phone the search waits behind a button, so the header keeps to one row */}
      <button
        type="button"
        className="icon-button phone-only"
        aria-label={searching ? t.closeSearch : t.openSearch}
        aria-expanded={searching}
        onClick={() => setSearching(!searching)}
      >
        {searching ? <X size={20} aria-hidden="true" /> : <Search size={20} aria-hidden="true" />}
      </button>
      <SearchBox />
      <span className="spacer" />
      <Bell signedIn={signedIn} />
      <label htmlFor={themeId} className="theme-label desk-only">
        {t.theme}
      </label>
      <select id={themeId} className="desk-only" value={theme} onChange={(event) => pickTheme(event.target.value as Theme)}>
        <option value="system">{t.themeSystem}</option>
        <option value="light">{t.themeLight}</option>
        <option value="dark">{t.themeDark}</option>
      </select>
      {name ? (
        <Link to="/account" className="who desk-only" aria-label={t.accountLink(name)}>
          {name}
        </Link>
      ) : null}
      <button type="button" className="desk-only" onClick={signOut}>
        {t.signOut}
      </button>
      <span className="phone-only">
        <Menu
          label={t.mainMenu}
          trigger={<MenuIcon size={20} aria-hidden="true" />}
          items={[
            { label: t.allBoards, icon: <LayoutDashboard size={16} />, onSelect: () => navigate('/boards') },
            { label: t.myTasks, icon: <ListChecks size={16} />, onSelect: () => navigate('/my-tasks') },
            ...(administers ? [{ label: t.administration, icon: <Shield size={16} />, onSelect: () => navigate('/admin') }] : []),
            ...(name ? [{ label: t.accountLink(name), icon: <User size={16} />, onSelect: () => navigate('/account') }] : []),
            {
              label: theme === 'dark' ? t.themeLightNow : t.themeDarkNow,
              icon: <Moon size={16} />,
              onSelect: () => pickTheme(theme === 'dark' ? 'light' : 'dark'),
            },
            { label: t.signOut, icon: <LogOut size={16} />, onSelect: () => void signOut() },
          ]}
        />
      </span>
    </header>
  );
}
