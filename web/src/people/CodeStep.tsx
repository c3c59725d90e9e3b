import { type FormEvent, useEffect, useState } from 'react';
import { postJson } from '../api.ts';
import { factorText } from './factor-strings.ts';
import { askPasskey } from './passkey-browser.ts';
import { RecoveryCodes, ScanCode } from './RecoveryCodes.tsx';

/** What the password step answered a person with a second factor (or who must set one up). */
export interface SecondFactorChallenge {
  challenge: string;
  enrol: boolean;
  /** `totp`, `recovery_code`, `passkey`: what may finish it (left out: the app's code). */
  methods?: string[];
}

/** The sentence for a refused code: wrong, expired (the password again), or too many tries. */
function refusal(status: number, body: unknown): { message: string; expired: boolean } {
  if (status === 429) return { message: factorText.throttled, expired: false };
  const message = (body as { message?: string } | undefined)?.message ?? '';
  if (status === 401 && /expired/i.test(message)) return { message: factorText.expired, expired: true };
  return { message: factorText.wrongCode, expired: false };
}

/**
 * The sign-in's second step: the code of the person's app, or one of their recovery codes; for a
 * person whose company requires a second factor and who has none, the app's setup first, then its
 * code, then the recovery codes, shown once.
 */
export function CodeStep({ step, onSignedIn, onStartOver }: { step: SecondFactorChallenge; onSignedIn: () => void; onStartOver: () => void }) {
  const [recovery, setRecovery] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [expired, setExpired] = useState(false);
  const [busy, setBusy] = useState(false);
  const [setup, setSetup] = useState<{ qrCode: string; secret: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);

  useEffect(() => {
    if (!step.enrol) return;
    void postJson('/api/v1/auth/sign-in/totp', { challenge: step.challenge }).then(({ response, body }) => {
      if (response.ok) setSetup(body as { qrCode: string; secret: string });
      else {
        setError(factorText.expired);
        setExpired(true);
      }
    });
  }, [step]);

  async function answerWithPasskey() {
    setError(null);
    const started = await postJson('/api/v1/auth/sign-in/passkey', { challenge: step.challenge });
    if (!started.response.ok) {
      const refused = refusal(started.response.status, started.body);
      setExpired(refused.expired);
      return setError(refused.expired ? refused.message : factorText.passkeyFailed);
    }
    const passkey = await askPasskey((started.body as { options: unknown }).options).catch(() => undefined);
    if (!passkey) return setError(factorText.passkeyFailed);
    setBusy(true);
    const { response, body } = await postJson('/api/v1/auth/sign-in/second-factor', { challenge: step.challenge, passkey });
    setBusy(false);
    if (!response.ok) {
      const refused = refusal(response.status, body);
      setExpired(refused.expired);
      return setError(response.status === 401 && !refused.expired ? factorText.passkeyFailed : refused.message);
    }
    onSignedIn();
  }
  const methods = step.methods ?? ['totp', 'recovery_code'];
  const appOrCodes = methods.includes('totp');

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get('code') ?? '').trim();
    setBusy(true);
    setError(null);
    const { response, body } = await postJson('/api/v1/auth/sign-in/second-factor', {
      challenge: step.challenge,
      ...(recovery ? { recoveryCode: value } : { code: value.replace(/\s/g, '') }),
    });
    setBusy(false);
    if (!response.ok) {
      const refused = refusal(response.status, body);
      setExpired(refused.expired);
      return setError(refused.message);
    }
    const made = (body as { recoveryCodes?: string[] }).recoveryCodes;
    if (made) setCodes(made);
    else onSignedIn();
  }

  if (codes) {
    return (
      <div className="auth-form invitation">
        <h1>{factorText.turnedOn}</h1>
        <RecoveryCodes codes={codes} onDone={onSignedIn} doneLabel={factorText.continue} />
      </div>
    );
  }
  const title = step.enrol ? factorText.enrolTitle : recovery ? factorText.recoveryCode : appOrCodes ? factorText.codeStepTitle : factorText.passkeyStepTitle;
  const typed = step.enrol || appOrCodes;
  return (
    <form className={step.enrol ? 'auth-form invitation' : 'auth-form'} onSubmit={submit} aria-labelledby="code-step-title">
      <h1 id="code-step-title">{title}</h1>
      {step.enrol ? (
        <p>{factorText.enrolIntro}</p>
      ) : (
        <p className="muted">{!typed ? factorText.passkeyStepIntro : recovery ? factorText.recoveryIntro : factorText.codeStepIntro}</p>
      )}
      {step.enrol && setup ? <ScanCode qrCode={setup.qrCode} secret={setup.secret} /> : null}
      {expired || !typed ? null : (
        <label>
          {recovery ? factorText.recoveryCode : factorText.code}
          <input
            key={recovery ? 'recovery' : 'code'}
            name="code"
            {...(recovery
              ? { autoComplete: 'off', autoCapitalize: 'none', spellCheck: false, maxLength: 40 }
              : { className: 'code-input', inputMode: 'numeric' as const, autoComplete: 'one-time-code', pattern: '[0-9 ]{6,7}', maxLength: 7 })}
            required
            // the page's one field, reached right after the password
            autoFocus
          />
        </label>
      )}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      {expired ? (
        <button type="button" className="primary" onClick={onStartOver}>
          {factorText.startOver}
        </button>
      ) : typed ? (
        <button type="submit" className="primary" disabled={busy || (step.enrol && !setup)}>
          {step.enrol ? factorText.turnOn : factorText.verify}
        </button>
      ) : null}
      {!step.enrol && !expired && methods.includes('passkey') ? (
        <button type="button" className={typed ? undefined : 'primary'} disabled={busy} onClick={() => void answerWithPasskey()}>
          {factorText.usePasskey}
        </button>
      ) : null}
      {step.enrol || expired || !appOrCodes ? null : (
        <button
          type="button"
          className="auth-link-button"
          onClick={() => {
            setRecovery(!recovery);
            setError(null);
          }}
        >
          {recovery ? factorText.useApp : factorText.useRecovery}
        </button>
      )}
      {expired ? null : (
        <button type="button" className="auth-link-button" onClick={onStartOver}>
          {factorText.startOver}
        </button>
      )}
    </form>
  );
}
