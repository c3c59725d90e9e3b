import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { getJson, messageOf, postJson } from '../api.ts';
import { t } from '../strings.ts';
import { afterSignIn, forgetToken, tokenOfLink } from './links.ts';
import { NewPasswordField } from './PasswordField.tsx';

function Setup() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [token] = useState(tokenOfLink);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = Object.fromEntries(new FormData(event.currentTarget));
    const { response, body } = await postJson('/api/v1/setup', { token, ...form });
    if (!response.ok) return setError(messageOf(body, t.setupFailed));
    forgetToken('/setup');
    await afterSignIn(queryClient);
    navigate('/', { replace: true });
  }
  return (
    <main className="auth-page">
      <form className="auth-form" onSubmit={submit} aria-labelledby="setup-title">
        <h1 id="setup-title">{t.setupTitle}</h1>
        <p>{token ? t.setupIntro : t.setupMissingToken}</p>
        <label>
          {t.fullName}
          <input name="fullName" autoComplete="name" required />
        </label>
        <label>
          {t.email}
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <NewPasswordField label={t.password} />
        <label>
          {t.companyName}
          <input name="companyName" required />
        </label>
        <label>
          {t.teamName}
          <input name="teamName" required />
        </label>
        {error ? (
          <p role="alert" className="error">
            {error}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={!token}>
          {t.createAccount}
        </button>
      </form>
    </main>
  );
}

/** The setup page is offered while the server says it is not set up yet. */
export function SetupPage() {
  const [state, setState] = useState<'unknown' | 'needed' | 'done'>('unknown');
  useEffect(() => {
    const token = tokenOfLink();
    if (!token) return setState('needed');
    getJson(`/api/v1/setup/${encodeURIComponent(token)}`)
      .then(({ response }) => setState(response.ok ? 'needed' : 'done'))
      .catch(() => setState('done'));
  }, []);
  if (state === 'unknown') return null;
  return state === 'needed' ? <Setup /> : <Navigate to="/sign-in" replace />;
}
