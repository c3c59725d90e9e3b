import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link, Navigate, Outlet, useNavigate } from 'react-router';
import { administers, setUnauthorizedHandler } from '../api.ts';
import { Bell } from '../inbox/Bell.tsx';
import { signOut as endSession } from '../people/links.ts';
import { SearchBox, useScrollToSearched } from '../search/SearchBox.tsx';
import { useMe } from '../session.ts';
import { t } from '../strings.ts';
import { applyTheme, currentTheme, type Theme } from '../theme.ts';

/** The pages behind sign-in: a 401 anywhere leads to the sign-in page. */
export function Shell() {
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
