import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { getJson, messageOf, postJson } from '../api.ts';
import { t } from '../strings.ts';
import { afterSignIn, forgetToken, goneReason, tokenOfLink } from './links.ts';
import { NewPasswordField } from './PasswordField.tsx';
import { peopleText } from './strings.ts';
import './people.css';

type ResetLink = { state: 'live'; email: string } | { state: 'gone'; why: string };

/** A reset link (`/reset#token`, mailed or handed over by an admin): a new password, and signed in. */
export default function ResetPasswordPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [token] = useState(tokenOfLink);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const link = useQuery({
    queryKey: ['password-reset', token],
    enabled: token !== '',
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async (): Promise<ResetLink> => {
      const { response, body } = await getJson(`/api/v1/auth/password-reset/${encodeURIComponent(token)}`);
      if (response.ok) return { state: 'live', email: (body as { email: string }).email };
      if (response.status === 404) return { state: 'gone', why: peopleText.resetGone[goneReason(body)?.reason ?? ''] ?? peopleText.resetInvalid };
      throw new Error(messageOf(body, peopleText.somethingFailed));
    },
  });
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('password') ?? '');
    setBusy(true);
    setError(null);
    const { response, body } = await postJson(`/api/v1/auth/password-reset/${encodeURIComponent(token)}`, { password });
    setBusy(false);
    if (!response.ok) return setError(messageOf(body, peopleText.somethingFailed));
    forgetToken('/reset');
    const secondFactor = (body as { secondFactor?: { challenge: string; enrol: boolean } }).secondFactor;
    // the new password is set; the sign-in page asks for the second factor
    if (secondFactor)
      return navigate(`/sign-in#challenge=${encodeURIComponent(secondFactor.challenge)}${secondFactor.enrol ? '&enrol=1' : ''}`, { replace: true });
    await afterSignIn(queryClient);
    navigate('/', { replace: true });
  }
  const gone = token === '' ? peopleText.resetInvalid : link.data?.state === 'gone' ? link.data.why : null;
  return (
    <main className="auth-page">
      <div className="auth-form">
        <h1>{peopleText.resetTitle}</h1>
        {gone ? (
          <>
            <p role="alert">{gone}</p>
            <Link className="button primary" to="/forgot-password">
              {peopleText.askNewReset}
            </Link>
          </>
        ) : link.isError ? (
          <p role="alert" className="error">
            {link.error.message}
          </p>
        ) : link.data?.state === 'live' ? (
          <form className="auth-fields" onSubmit={submit} aria-label={peopleText.resetTitle}>
            <p>{peopleText.resetFor(link.data.email)}</p>
            {/* the account's email, for password managers to file the new password under */}
            <input type="email" name="email" autoComplete="username" value={link.data.email} readOnly hidden />
            <NewPasswordField label={t.newPassword} />
            {error ? (
              <p role="alert" className="error">
                {error}
              </p>
            ) : null}
            <button type="submit" className="primary" disabled={busy}>
              {peopleText.resetSubmit}
            </button>
          </form>
        ) : (
          <p role="status">{peopleText.checking}</p>
        )}
        <Link to="/sign-in">{peopleText.backToSignIn}</Link>
      </div>
    </main>
  );
}
