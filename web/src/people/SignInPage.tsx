import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, lazy, Suspense, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { messageOf, postJson } from '../api.ts';
import { t } from '../strings.ts';
import type { SecondFactorChallenge } from './CodeStep.tsx';
import { factorText } from './factor-strings.ts';
import { afterSignIn, refusedForSingleSignOn, useSignInProviders } from './links.ts';
import { askPasskey } from './passkey-browser.ts';
import { peopleText } from './strings.ts';
import './people.css';

// The second step (codes, recovery codes, an app's setup) loads only for people who have one.
const CodeStep = lazy(() => import('./CodeStep.tsx').then((module) => ({ default: module.CodeStep })));

/** The sentence for the error code single sign-on came back with, if it did. */
function ssoProblem(): string | null {
  const code = new URLSearchParams(window.location.search).get('error');
  return code ? (t.ssoProblems[code] ?? t.ssoProblems.sso_failed ?? null) : null;
}

/** A second factor to give after single sign-on or a password reset: `/sign-in#challenge=…[&enrol=1]`. */
function challengeOfLink(): SecondFactorChallenge | null {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const challenge = fragment.get('challenge');
  if (!challenge) return null;
  window.history.replaceState(null, '', window.location.pathname);
  return { challenge, enrol: fragment.get('enrol') === '1' };
}

export function SignInPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const providers = useSignInProviders();
  const [error, setError] = useState<string | null>(ssoProblem);
  const [busy, setBusy] = useState(false);
  const [step, setStep] = useState<SecondFactorChallenge | null>(challengeOfLink);
  async function signedIn() {
    await afterSignIn(queryClient);
    navigate('/', { replace: true });
  }
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const { response, body } = await postJson('/api/v1/auth/sign-in', { email: form.get('email'), password: form.get('password') });
    setBusy(false);
    if (!response.ok) {
      if (response.status === 401 || response.status === 400) return setError(t.signInFailed);
      return setError(refusedForSingleSignOn(body) ? peopleText.singleSignOnOnly : messageOf(body, t.signInFailed));
    }
    const secondFactor = (body as { secondFactor?: SecondFactorChallenge }).secondFactor;
    if (secondFactor) return setStep(secondFactor);
    await signedIn();
  }
  async function signInWithPasskey() {
    setError(null);
    const started = await postJson('/api/v1/auth/passkey/options', {});
    if (!started.response.ok) return setError(messageOf(started.body, factorText.passkeyFailed));
    const { handle, options } = started.body as { handle: string; options: unknown };
    const response = await askPasskey(options).catch(() => undefined);
    if (!response) return setError(factorText.passkeyFailed);
    setBusy(true);
    const finished = await postJson('/api/v1/auth/passkey', { handle, response });
    setBusy(false);
    if (!finished.response.ok) {
      if (refusedForSingleSignOn(finished.body)) return setError(peopleText.singleSignOnOnly);
      return setError(finished.response.status === 429 ? factorText.throttled : factorText.passkeyFailed);
    }
    await signedIn();
  }
  if (step) {
    return (
      <main className="auth-page">
        <Suspense fallback={null}>
          <CodeStep step={step} onSignedIn={() => void signedIn()} onStartOver={() => setStep(null)} />
        </Suspense>
      </main>
    );
  }
  return (
    <main className="auth-page">
      <form className="auth-form" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">{t.signIn}</h1>
        <label>
          {t.email}
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          {t.password}
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <Link to="/forgot-password" className="auth-aside">
          {peopleText.forgotPassword}
        </Link>
        {error ? (
          <p role="alert" className="error">
            {error}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          {t.signIn}
        </button>
        <p className="auth-or">{t.orSignInWith}</p>
        <button type="button" disabled={busy} onClick={() => void signInWithPasskey()}>
          {factorText.usePasskey}
        </button>
        {providers?.singleSignOn ? (
          <>
            {/* a full navigation: the provider's pages are not this app's */}
            <button type="button" onClick={() => window.location.assign('/api/v1/auth/oidc/start')}>
              {t.signInWithSso}
            </button>
          </>
        ) : null}
      </form>
    </main>
  );
}
