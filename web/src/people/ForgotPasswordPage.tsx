import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { messageOf, postJson } from '../api.ts';
import { t } from '../strings.ts';
import { useSignInProviders } from './links.ts';
import { peopleText } from './strings.ts';
import './people.css';

/** "Forgot password?": always the same answer, so the page never tells whether an email has an account. */
export default function ForgotPasswordPage() {
  const providers = useSignInProviders();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email') ?? '').trim();
    setBusy(true);
    setError(null);
    const { response, body } = await postJson('/api/v1/auth/password-reset', { email }).catch(() => ({ response: undefined, body: undefined }));
    setBusy(false);
    if (!response?.ok) return setError(messageOf(body, peopleText.somethingFailed));
    setSentTo(email);
  }
  return (
    <main className="auth-page">
      <div className="auth-form">
        <h1>{peopleText.forgotTitle}</h1>
        {providers && !providers.mail ? (
          <p>{peopleText.forgotNoMail}</p>
        ) : sentTo ? (
          <p role="status">{peopleText.resetMailed(sentTo)}</p>
        ) : (
          <form className="auth-fields" onSubmit={submit} aria-label={peopleText.forgotTitle}>
            <p>{peopleText.forgotIntro}</p>
            <label>
              {t.email}
              <input name="email" type="email" autoComplete="username" required />
            </label>
            {error ? (
              <p role="alert" className="error">
                {error}
              </p>
            ) : null}
            <button type="submit" className="primary" disabled={busy}>
              {peopleText.sendResetLink}
            </button>
          </form>
        )}
        <Link to="/sign-in">{peopleText.backToSignIn}</Link>
      </div>
    </main>
  );
}
