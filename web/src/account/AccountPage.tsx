/**
 * The account page: the person's name and photo, email notifications, password, two-step sign-in,
 * passkeys, sessions and API keys. Loaded only when opened, so the board page's first load does not carry it.
 */
import { parseDate, today } from '@internationalized/date';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { type FormEvent, useId, useState } from 'react';
import { client, problem, unwrap } from '../api.ts';
import { CalendarFeeds } from '../calendar/CalendarFeeds.tsx';
import { followAccount, followTimeZone } from '../i18n/language.ts';
import { browserTimeZone, currentTimeZone, formatDate, formatList, isLanguage, LANGUAGE_NAMES, LANGUAGES, type Language } from '../i18n/messages.ts';
import { Outcome, Part, ShownOnce, when } from '../parts.tsx';
import { useMe } from '../session.ts';
import { t } from '../strings.ts';
import { browserOf } from '../ui/browserName.ts';
import { dateText } from '../ui/dateStrings.ts';
import { keyText } from './key-strings.ts';
import { Passkeys } from './Passkeys.tsx';
import { SecondFactor } from './SecondFactor.tsx';
import './account.css';

type ApiKey = components['schemas']['ApiKey'];

/** A photo is shown only from an address an image can come from (the API keeps any text). */
const showablePhoto = (url: string) => /^(https?:\/\/|\/|data:image\/)/i.test(url);

export default function AccountPage() {
  const me = useMe();
  if (!me.data) return <p className="page-pad">{t.loading}</p>;
  return (
    <div className="account page-pad">
      <h1>{t.account}</h1>
      <Profile fullName={me.data.user.fullName} photoUrl={me.data.user.photoUrl} />
      <LanguagePicker locale={me.data.user.locale} />
      <TimeZonePicker timeZone={me.data.user.timeZone} />
      <EmailNotifications enabled={me.data.user.emailNotifications} cadence={me.data.user.emailCadence} timeZone={me.data.user.timeZone} />
      <PasswordChange />
      <SecondFactor />
      <Passkeys />
      <Sessions />
      <ApiKeys />
      <CalendarFeeds />
    </div>
  );
}

function useUpdateMe() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: {
      fullName?: string;
      photoUrl?: string;
      emailNotifications?: boolean;
      locale?: Language | null;
      emailCadence?: 'minute' | 'daily';
      timeZone?: string | null;
    }) => unwrap(await client.PATCH('/api/v1/me', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['me'] }),
  });
}

function Profile({ fullName, photoUrl }: { fullName: string; photoUrl: string }) {
  const update = useUpdateMe();
  const hintId = useId();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    update.mutate({ fullName: String(form.get('fullName')).trim(), photoUrl: String(form.get('photoUrl')).trim() });
  }
  return (
    <Part title={t.profile}>
      {photoUrl && showablePhoto(photoUrl) ? <img className="account-photo" src={photoUrl} alt={t.yourPhoto} width={64} height={64} /> : null}
      <form className="account-form" onSubmit={submit}>
        <label>
          {t.fullName}
          <input name="fullName" defaultValue={fullName} autoComplete="name" required />
        </label>
        <label>
          {t.photoUrl}
          <input name="photoUrl" type="url" defaultValue={photoUrl} aria-describedby={hintId} />
        </label>
        <p id={hintId} className="muted">
          {t.photoHint}
        </p>
        <button type="submit" className="primary" disabled={update.isPending}>
          {t.saveProfile}
        </button>
        <Outcome error={update.error} success={update.isSuccess ? t.profileSaved : null} />
      </form>
    </Part>
  );
}

/** The account's language: the app switches to it as soon as the server has it, and mails follow it. */
function LanguagePicker({ locale }: { locale: Language | null }) {
  const update = useUpdateMe();
  const hintId = useId();
  const shown = update.isPending && update.variables.locale !== undefined ? update.variables.locale : locale;
  return (
    <Part title={t.language}>
      <label>
        {t.language}
        <select
          value={shown ?? ''}
          aria-describedby={hintId}
          disabled={update.isPending}
          onChange={(event) => {
            const chosen = isLanguage(event.target.value) ? event.target.value : null;
            update.mutate({ locale: chosen }, { onSuccess: () => followAccount(chosen) });
          }}
        >
          <option value="">{t.languageBrowser}</option>
          {LANGUAGES.map((language) => (
            <option key={language} value={language} lang={language}>
              {LANGUAGE_NAMES[language]}
            </option>
          ))}
        </select>
      </label>
      <p id={hintId} className="muted">
        {t.languageHint}
      </p>
      <Outcome error={update.error} success={null} />
    </Part>
  );
}

/** Every time zone the browser knows, by region ("Europe"), each named by its place and its offset now ("Berlin (GMT+1)"). */
function timeZonesByRegion(): [string, { zone: string; name: string }[]][] {
  const regions = new Map<string, { zone: string; name: string }[]>();
  const now = new Date();
  for (const zone of Intl.supportedValuesOf('timeZone')) {
    const [region = zone, ...place] = zone.split('/');
    const offset = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'shortOffset' })
      .formatToParts(now)
      .find((part) => part.type === 'timeZoneName')?.value;
    const name = `${(place.length ? place.join(' / ') : zone).replaceAll('_', ' ')} (${offset})`;
    regions.set(region, [...(regions.get(region) ?? []), { zone, name }]);
  }
  return [...regions];
}

/** The account's time zone: dates show and are picked in it; none follows the browser's. */
function TimeZonePicker({ timeZone }: { timeZone: string | null }) {
  const update = useUpdateMe();
  const hintId = useId();
  const [regions] = useState(timeZonesByRegion);
  const shown = update.isPending && update.variables.timeZone !== undefined ? update.variables.timeZone : timeZone;
  const listed = regions.some(([, zones]) => zones.some((one) => one.zone === shown));
  return (
    <Part title={dateText.timeZone}>
      <label>
        {dateText.timeZone}
        <select
          value={shown ?? ''}
          aria-describedby={hintId}
          disabled={update.isPending}
          onChange={(event) => {
            const chosen = event.target.value || null;
            update.mutate({ timeZone: chosen }, { onSuccess: () => followTimeZone(chosen) });
          }}
        >
          <option value="">{dateText.browserZone(browserTimeZone())}</option>
          {shown && !listed ? <option value={shown}>{shown}</option> : null}
          {regions.map(([region, zones]) => (
            <optgroup key={region} label={region}>
              {zones.map(({ zone, name }) => (
                <option key={zone} value={zone}>
                  {name}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </label>
      <p id={hintId} className="muted">
        {dateText.timeZoneHint} {dateText.timeZoneNow(formatDate(new Date(), { weekday: 'short', hour: 'numeric', minute: '2-digit' }))}
      </p>
      <Outcome error={update.error} success={null} />
    </Part>
  );
}

function EmailNotifications({ enabled, cadence, timeZone }: { enabled: boolean; cadence: 'minute' | 'daily'; timeZone: string | null }) {
  const update = useUpdateMe();
  const hintId = useId();
  // the choice shows at once (the mutation's own state comes a tick later, and the account's after
  // the server answers); the account's value takes over when it changes, or the write is refused
  const [asked, setAsked] = useState<boolean | null>(null);
  const [seen, setSeen] = useState(enabled);
  if (seen !== enabled) {
    setSeen(enabled);
    setAsked(null);
  }
  const shown = asked ?? enabled;
  return (
    <Part title={t.emailNotificationsTitle}>
      <label className="account-check">
        <input
          type="checkbox"
          checked={shown}
          aria-describedby={hintId}
          disabled={update.isPending}
          onChange={(event) => {
            setAsked(event.target.checked);
            update.mutate({ emailNotifications: event.target.checked }, { onError: () => setAsked(null) });
          }}
        />
        {t.emailNotifications}
      </label>
      <p id={hintId} className="muted">
        {t.emailNotificationsHint}
      </p>
      {enabled ? <EmailCadence cadence={cadence} timeZone={timeZone} /> : null}
      <Outcome error={update.error} success={update.isSuccess ? (enabled ? t.emailNotificationsOn : t.emailNotificationsOff) : null} />
    </Part>
  );
}

/**
 * Each notification a minute after the first, or one summary each morning. Choosing the summary
 * while the account follows the browser's zone (none chosen) gives it that zone, so 8:00 is the person's.
 */
function EmailCadence({ cadence, timeZone }: { cadence: 'minute' | 'daily'; timeZone: string | null }) {
  const update = useUpdateMe();
  const hintId = useId();
  const shown = update.isPending && update.variables.emailCadence !== undefined ? update.variables.emailCadence : cadence;
  const choose = (next: 'minute' | 'daily') => {
    const zone = browserTimeZone();
    update.mutate(next === 'daily' && timeZone === null && zone ? { emailCadence: next, timeZone: zone } : { emailCadence: next });
  };
  return (
    <fieldset className="account-choice" aria-describedby={shown === 'daily' ? hintId : undefined} disabled={update.isPending}>
      <legend>{t.emailCadence}</legend>
      <label className="account-check">
        <input type="radio" name="emailCadence" checked={shown === 'minute'} onChange={() => choose('minute')} />
        {t.emailCadenceMinute}
      </label>
      <label className="account-check">
        <input type="radio" name="emailCadence" checked={shown === 'daily'} onChange={() => choose('daily')} />
        {t.emailCadenceDaily}
      </label>
      {shown === 'daily' ? (
        <p id={hintId} className="muted">
          {t.emailCadenceDailyHint(timeZone ?? browserTimeZone())}
        </p>
      ) : null}
      <Outcome error={update.error} success={null} />
    </fieldset>
  );
}

function PasswordChange() {
  const queryClient = useQueryClient();
  const hintId = useId();
  const change = useMutation({
    mutationFn: async (body: { currentPassword: string; newPassword: string }) => unwrap(await client.PATCH('/api/v1/me/password', { body })),
    // the server ends the other sessions: the list shows it
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sessions'] }),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    change.mutate(
      { currentPassword: String(form.get('currentPassword')), newPassword: String(form.get('newPassword')) },
      { onSuccess: () => formElement.reset() },
    );
  }
  return (
    <Part title={t.changePasswordTitle}>
      <form className="account-form" onSubmit={submit}>
        <label>
          {t.currentPassword}
          <input name="currentPassword" type="password" autoComplete="current-password" required />
        </label>
        <label>
          {t.newPassword}
          <input name="newPassword" type="password" autoComplete="new-password" minLength={12} maxLength={256} aria-describedby={hintId} required />
        </label>
        <p id={hintId} className="muted">
          {t.newPasswordHint}
        </p>
        <button type="submit" className="primary" disabled={change.isPending}>
          {t.changePassword}
        </button>
        <Outcome error={change.error} success={change.isSuccess ? t.passwordChanged : null} />
      </form>
    </Part>
  );
}

function Sessions() {
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: ['sessions'],
    queryFn: async () => unwrap(await client.GET('/api/v1/auth/sessions')).sessions,
  });
  // There is no route ending several sessions at once: each ends by its own request.
  const end = useMutation({
    mutationFn: async (sessionIds: string[]) => {
      for (const sessionId of sessionIds) {
        const result = await client.DELETE('/api/v1/auth/sessions/{sessionId}', { params: { path: { sessionId } } });
        if (!result.response.ok) unwrap(result);
      }
      return sessionIds.length;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['sessions'] }),
  });
  const others = sessions.data?.filter((session) => !session.current) ?? [];
  return (
    <Part title={t.sessions}>
      {sessions.error ? (
        <p role="alert" className="error">
          {problem(sessions.error)}
        </p>
      ) : null}
      <ul className="account-rows">
        {sessions.data?.map((session) => {
          const agent = browserOf(session.userAgent);
          const ip = session.ip ?? t.unknownAddress;
          return (
            <li key={session._id} className="account-row">
              <span className="account-row-text" title={session.userAgent ?? undefined}>
                <strong>{t.sessionSummary(agent, ip)}</strong>
                <span className="muted"> {session.current ? t.thisSession : t.lastSeen(when(session.lastSeenAt))}</span>
              </span>
              {session.current ? null : (
                <button
                  type="button"
                  aria-label={t.endSessionNamed(agent, ip)}
                  disabled={end.isPending}
                  onClick={() => {
                    if (window.confirm(t.confirmEndSession(agent))) end.mutate([session._id]);
                  }}
                >
                  {t.endSession}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {sessions.data && others.length === 0 ? <p className="muted">{t.noOtherSessions}</p> : null}
      {others.length > 0 ? (
        <button
          type="button"
          disabled={end.isPending}
          onClick={() => {
            if (window.confirm(t.confirmEndOtherSessions(others.length))) end.mutate(others.map((session) => session._id));
          }}
        >
          {t.endOtherSessions}
        </button>
      ) : null}
      <Outcome error={end.error} success={end.isSuccess ? t.sessionsEnded(end.data) : null} />
    </Part>
  );
}

/** What a key is limited to, in words: its access, its teams (by name where the person is in them) and its expiry. */
function keyScope(key: ApiKey, teamNames: Map<string, string>, now: number): string {
  const access = key.access === 'read-only' ? keyText.scopeReadOnly : keyText.scopeReadWrite;
  const teams = key.teams === null ? keyText.everyTeam : keyText.someTeams(formatList(key.teams.map((id) => teamNames.get(id) ?? keyText.unknownTeam)));
  const expiry = key.expiresAt === null ? keyText.neverExpires : (Date.parse(key.expiresAt) <= now ? keyText.expired : keyText.expires)(when(key.expiresAt));
  return [access, teams, expiry].join(' · ');
}

/** The instant a day (`YYYY-MM-DD`) ends in the person's time zone: a key "expires after" that day. */
function endOfDay(day: string): string {
  return new Date(parseDate(day).add({ days: 1 }).toDate(currentTimeZone()).getTime() - 1000).toISOString();
}

function ApiKeys() {
  const queryClient = useQueryClient();
  const me = useMe();
  const [fresh, setFresh] = useState<{ name: string; token: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['api-keys'] });
  const keys = useQuery({
    queryKey: ['api-keys'],
    queryFn: async () => unwrap(await client.GET('/api/v1/api-keys')).apiKeys,
  });
  const create = useMutation({
    mutationFn: async (body: { name: string; access: ApiKey['access']; teams?: string[]; expiresAt?: string }) =>
      unwrap(await client.POST('/api/v1/api-keys', { body })),
    onSuccess: (answer) => setFresh({ name: answer.apiKey.name, token: answer.token }),
    onSettled: refresh,
  });
  const rotate = useMutation({
    mutationFn: async (keyId: string) => unwrap(await client.POST('/api/v1/api-keys/{keyId}/rotate', { params: { path: { keyId } } })),
    onSuccess: (answer) => setFresh({ name: answer.apiKey.name, token: answer.token }),
    onSettled: refresh,
  });
  const revoke = useMutation({
    mutationFn: async (key: ApiKey) => unwrap(await client.DELETE('/api/v1/api-keys/{keyId}', { params: { path: { keyId: key._id } } })),
    onSuccess: (answer) => setDone(t.keyRevoked(answer.apiKey.name)),
    onSettled: refresh,
  });
  const busy = create.isPending || rotate.isPending || revoke.isPending;
  const error = create.error ?? rotate.error ?? revoke.error ?? keys.error;
  const myTeams = me.data?.teams ?? [];
  const teamNames = new Map(myTeams.map((team) => [team._id, team.name]));
  const now = Date.now();
  return (
    <Part title={t.apiKeys}>
      <p className="muted">{t.apiKeysIntro}</p>
      {fresh ? (
        <ShownOnce
          label={t.newToken(fresh.name)}
          hint={t.newTokenHint}
          value={fresh.token}
          copied={t.tokenCopied}
          copyFailed={t.copyFailed}
          onDone={() => setFresh(null)}
        />
      ) : null}
      <ul className="account-rows">
        {keys.data?.map((key) => (
          <li key={key._id} className="account-row">
            <span className="account-row-text">
              <strong>{key.name}</strong>
              {key.expiresAt !== null && Date.parse(key.expiresAt) <= now ? <span className="key-badge">{keyText.expiredBadge}</span> : null}
              <span className="muted"> {keyText.created(key.prefix, when(key.createdAt))}</span>
              <span className="account-row-line">{keyScope(key, teamNames, now)}</span>
              <span className="account-row-line muted">
                {key.lastUsedAt ? keyText.lastUsed(when(key.lastUsedAt), key.lastUsedIp ?? t.unknownAddress) : keyText.neverUsed}
              </span>
            </span>
            <span className="account-row-actions">
              <button
                type="button"
                aria-label={t.rotateNamed(key.name)}
                disabled={busy}
                onClick={() => {
                  if (window.confirm(t.confirmRotate(key.name))) rotate.mutate(key._id);
                }}
              >
                {t.rotate}
              </button>
              <button
                type="button"
                aria-label={t.revokeNamed(key.name)}
                disabled={busy}
                onClick={() => {
                  if (window.confirm(t.confirmRevoke(key.name))) revoke.mutate(key);
                }}
              >
                {t.revoke}
              </button>
            </span>
          </li>
        ))}
      </ul>
      {keys.data?.length === 0 ? <p className="muted">{t.noApiKeys}</p> : null}
      <NewKeyForm teams={myTeams} busy={busy} onCreate={(body, made) => create.mutate(body, { onSuccess: made })} />
      <Outcome error={error} success={revoke.isSuccess ? done : null} />
    </Part>
  );
}

/** A new key: its name, read-only or read-write, optionally some of the person's teams and a last day. */
function NewKeyForm({
  teams,
  busy,
  onCreate,
}: {
  teams: { _id: string; name: string }[];
  busy: boolean;
  onCreate: (body: { name: string; access: ApiKey['access']; teams?: string[]; expiresAt?: string }, made: () => void) => void;
}) {
  const titleId = useId();
  const teamsHintId = useId();
  const expiryHintId = useId();
  const accessHintId = useId();
  const [firstDay] = useState(() => today(currentTimeZone()).toString());
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const name = String(form.get('name')).trim();
    if (!name) return;
    const chosenTeams = form.getAll('teams').map(String);
    const expiry = String(form.get('expiry') ?? '');
    onCreate(
      {
        name,
        access: form.get('access') === 'read-only' ? 'read-only' : 'read-write',
        ...(chosenTeams.length ? { teams: chosenTeams } : {}),
        ...(expiry ? { expiresAt: endOfDay(expiry) } : {}),
      },
      () => formElement.reset(),
    );
  }
  return (
    <form className="account-form key-form" onSubmit={submit} aria-labelledby={titleId}>
      <h3 id={titleId}>{keyText.newKey}</h3>
      <label>
        {t.apiKeyName}
        <input name="name" required maxLength={100} />
      </label>
      <fieldset className="account-choice" aria-describedby={accessHintId}>
        <legend>{keyText.access}</legend>
        <label className="account-check">
          <input type="radio" name="access" value="read-write" defaultChecked />
          {keyText.readWrite}
        </label>
        <label className="account-check">
          <input type="radio" name="access" value="read-only" />
          {keyText.readOnly}
        </label>
        <p id={accessHintId} className="muted">
          {keyText.readOnlyHint}
        </p>
      </fieldset>
      {teams.length > 0 ? (
        <fieldset className="account-choice" aria-describedby={teamsHintId}>
          <legend>{keyText.teams}</legend>
          {teams.map((team) => (
            <label key={team._id} className="account-check">
              <input type="checkbox" name="teams" value={team._id} />
              {team.name}
            </label>
          ))}
          <p id={teamsHintId} className="muted">
            {keyText.teamsHint}
          </p>
        </fieldset>
      ) : null}
      <label>
        {keyText.expiry}
        <input type="date" name="expiry" min={firstDay} aria-describedby={expiryHintId} />
      </label>
      <p id={expiryHintId} className="muted">
        {keyText.expiryHint}
      </p>
      <button type="submit" className="primary" disabled={busy}>
        {t.createApiKey}
      </button>
    </form>
  );
}
