import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { getJson, messageOf, postJson } from '../api.ts';
import { t } from '../strings.ts';
import {
  afterSignIn,
  currentPerson,
  forgetToken,
  goneReason,
  refusedForSingleSignOn,
  type SignedInPerson,
  signOut,
  tokenOfLink,
  useSignInProviders,
} from './links.ts';
import { NewPasswordField } from './PasswordField.tsx';
import { peopleText } from './strings.ts';
import './people.css';
import { formatDate } from '../i18n/messages.ts';

interface Invitation {
  companyName: string;
  inviterName: string | null;
  email: string;
  role: string;
  expiresAt: string;
  teams: { _id: string; name: string }[];
  board: { _id: string; name: string } | null;
  hasPassword: boolean;
}

type InvitationLink =
  | { state: 'live'; invitation: Invitation }
  | { state: 'gone'; reason: string; companyName: string; inviterName: string | null }
  | { state: 'invalid' };

/** Where the invitee lands: the board they were invited from, else their boards. */
const landingOf = (invitation: Invitation) => (invitation.board ? `/boards/${invitation.board._id}` : '/boards');

/**
 * An invitation link (`/invitations#token`, mailed or copied): who invites to what, then the one
 * step that fits the browser: a new account, a sign-in to an existing one, one click for the person
 * already signed in with the invited email, or signing out of another account first.
 */
export default function InvitationPage() {
  const [token] = useState(tokenOfLink);
  const link = useQuery({
    queryKey: ['invitation', token],
    enabled: token !== '',
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async (): Promise<InvitationLink> => {
      const { response, body } = await getJson(`/api/v1/invitations/${encodeURIComponent(token)}`);
      if (response.ok) return { state: 'live', invitation: body as Invitation };
      if (response.status !== 404) throw new Error(messageOf(body, peopleText.somethingFailed));
      const gone = goneReason(body);
      if (!gone?.companyName) return { state: 'invalid' };
      return { state: 'gone', reason: gone.reason, companyName: gone.companyName, inviterName: gone.inviterName ?? null };
    },
  });
  const person = useQuery({ queryKey: ['invitation-person'], queryFn: currentPerson, retry: false, staleTime: 0 });
  const data = token === '' ? ({ state: 'invalid' } as const) : link.data;
  return (
    <main className="auth-page">
      <div className="auth-form invitation">
        {data?.state === 'live' ? (
          <LiveInvitation token={token} invitation={data.invitation} person={person.data} ready={!person.isPending} />
        ) : data?.state === 'gone' ? (
          <>
            <h1>{peopleText.invitationTitle(data.companyName)}</h1>
            <p role="alert">{peopleText.invitationGone[data.reason] ?? peopleText.invitationGone.expired}</p>
            <p>{peopleText.askInviter(data.inviterName, data.companyName)}</p>
            <p>
              {peopleText.alreadyMember} <Link to="/sign-in">{peopleText.goToSignIn}</Link>
            </p>
          </>
        ) : data?.state === 'invalid' ? (
          <>
            <h1>{t.product}</h1>
            <p role="alert">{peopleText.invitationInvalid}</p>
            <Link to="/sign-in">{peopleText.goToSignIn}</Link>
          </>
        ) : link.isError ? (
          <>
            <h1>{t.product}</h1>
            <p role="alert" className="error">
              {link.error.message}
            </p>
          </>
        ) : (
          <p role="status">{peopleText.checking}</p>
        )}
      </div>
    </main>
  );
}

function LiveInvitation({
  token,
  invitation,
  person,
  ready,
}: {
  token: string;
  invitation: Invitation;
  person: SignedInPerson | null | undefined;
  ready: boolean;
}) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const providers = useSignInProviders();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const landing = landingOf(invitation);

  /** Runs one step of joining; on success the person lands where they were invited. */
  async function attempt(step: () => Promise<{ response: Response; body: unknown }>) {
    setBusy(true);
    setError(null);
    const { response, body } = await step().catch(() => ({ response: undefined, body: undefined }));
    if (!response?.ok) {
      setBusy(false);
      return setError(refusedForSingleSignOn(body) ? peopleText.invitationSingleSignOnOnly : messageOf(body, peopleText.somethingFailed));
    }
    return body;
  }
  async function accept(body: object) {
    if ((await attempt(() => postJson(`/api/v1/invitations/${encodeURIComponent(token)}/accept`, body))) === undefined) return;
    forgetToken('/invitations');
    await afterSignIn(queryClient);
    navigate(landing, { replace: true });
  }
  async function createAccount(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    await accept({ fullName: String(form.get('fullName') ?? '').trim(), password: String(form.get('password') ?? '') });
  }
  async function signInAndJoin(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('password') ?? '');
    const signedIn = await attempt(() => postJson('/api/v1/auth/sign-in', { email: invitation.email, password }));
    if (signedIn === undefined) return;
    await accept({});
  }
  async function switchAccount() {
    setBusy(true);
    // the invitation stays on screen; nobody is signed in any more
    await signOut(queryClient, ['invitation', 'invitation-person', 'sign-in-providers']);
    queryClient.setQueryData(['invitation-person'], null);
    setBusy(false);
  }

  const sameEmail = person && person.email.toLowerCase() === invitation.email.toLowerCase();
  let step: ReactNode;
  if (!ready) step = <p role="status">{peopleText.checking}</p>;
  else if (sameEmail)
    step = (
      <>
        <p>{peopleText.signedInAs(person.fullName, person.email)}</p>
        <ErrorLine error={error} />
        <button type="button" className="primary" disabled={busy} onClick={() => accept({})}>
          {peopleText.join(invitation.companyName)}
        </button>
      </>
    );
  else if (person)
    step = (
      <>
        <p role="alert">{peopleText.otherAccount(person.email, invitation.email)}</p>
        <button type="button" className="primary" disabled={busy} onClick={switchAccount}>
          {peopleText.signOutAndContinue}
        </button>
      </>
    );
  else if (invitation.hasPassword)
    step = (
      <form className="auth-fields" onSubmit={signInAndJoin} aria-label={peopleText.signInAndJoin}>
        <p>{peopleText.existingAccount(invitation.email)}</p>
        <input type="email" name="email" autoComplete="username" value={invitation.email} readOnly hidden />
        <label>
          {t.password}
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <ErrorLine error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {peopleText.signInAndJoin}
        </button>
        <Link to="/forgot-password">{peopleText.forgotPassword}</Link>
      </form>
    );
  else
    step = (
      <form className="auth-fields" onSubmit={createAccount} aria-label={peopleText.newAccountIntro}>
        <p>{peopleText.newAccountIntro}</p>
        <label>
          {t.email}
          <input type="email" name="email" autoComplete="username" value={invitation.email} readOnly />
        </label>
        <label>
          {t.fullName}
          <input name="fullName" autoComplete="name" required maxLength={200} />
        </label>
        <NewPasswordField label={t.password} />
        <ErrorLine error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {peopleText.join(invitation.companyName)}
        </button>
      </form>
    );

  return (
    <>
      <h1>{peopleText.invitationTitle(invitation.companyName)}</h1>
      <p>{peopleText.invitedBy(invitation.inviterName, invitation.companyName, peopleText.roles[invitation.role] ?? invitation.role)}</p>
      {invitation.teams.length > 0 || invitation.board ? (
        <div className="invitation-joins">
          <h2>{peopleText.youWillJoin}</h2>
          <ul>
            {invitation.board ? <li>{peopleText.boardNamed(invitation.board.name)}</li> : null}
            {invitation.teams.map((team) => (
              <li key={team._id}>{peopleText.teamNamed(team.name)}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <p className="muted">
        {peopleText.expiresOn(
          formatDate(invitation.expiresAt, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }),
        )}
      </p>
      {step}
      {providers?.singleSignOn && !sameEmail && !person ? (
        <>
          <p className="auth-or">{t.orSignInWith}</p>
          {/* a full navigation: the provider's pages are not this app's; single sign-on accepts the email's invitations */}
          <button type="button" onClick={() => window.location.assign(`/api/v1/auth/oidc/start?next=${encodeURIComponent(landing)}`)}>
            {peopleText.joinWithSso}
          </button>
        </>
      ) : null}
    </>
  );
}

function ErrorLine({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}
