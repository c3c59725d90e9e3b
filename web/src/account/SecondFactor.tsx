import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { client, unwrap } from '../api.ts';
import { Outcome, Part, when } from '../parts.tsx';
import { factorText } from '../people/factor-strings.ts';
import { RecoveryCodes, ScanCode } from '../people/RecoveryCodes.tsx';

/**
 * Two-step sign-in on the account page: set up an authenticator app (scan, then a code turns it on
 * and the recovery codes are shown once), or turn it off with the password and a code.
 */
export function SecondFactor() {
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: ['second-factors'],
    queryFn: async () => unwrap(await client.GET('/api/v1/me/second-factors')),
  });
  const [codes, setCodes] = useState<string[] | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['second-factors'] });
  const start = useMutation({ mutationFn: async () => unwrap(await client.POST('/api/v1/me/second-factors/totp', {})) });
  const confirm = useMutation({
    mutationFn: async (code: string) => unwrap(await client.POST('/api/v1/me/second-factors/totp/confirm', { body: { code } })),
    onSuccess: (answer) => {
      setCodes(answer.recoveryCodes);
      start.reset();
    },
    onSettled: refresh,
  });
  const turnOff = useMutation({
    mutationFn: async (body: { password: string; code: string }) => unwrap(await client.POST('/api/v1/me/second-factors/totp/disable', { body })),
    onSettled: refresh,
  });

  function submitCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    confirm.mutate(String(new FormData(event.currentTarget).get('code')).replace(/\s/g, ''));
  }
  function submitOff(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    turnOff.mutate({ password: String(form.get('password')), code: String(form.get('code')).trim() });
  }

  const totp = status.data?.totp;
  return (
    <Part title={factorText.title}>
      <p className="muted">{factorText.intro}</p>
      {totp ? (
        <p>{totp.enabled && totp.confirmedAt ? factorText.statusOn(when(totp.confirmedAt), status.data?.recoveryCodesLeft ?? 0) : factorText.statusOff}</p>
      ) : null}
      {codes ? <RecoveryCodes codes={codes} onDone={() => setCodes(null)} /> : null}
      {totp && !totp.enabled && !start.data ? (
        <button type="button" className="primary" disabled={start.isPending} onClick={() => start.mutate()}>
          {factorText.setUp}
        </button>
      ) : null}
      {start.data && !totp?.enabled ? (
        <form className="account-form account-factor-setup" onSubmit={submitCode}>
          <ScanCode qrCode={start.data.qrCode} secret={start.data.secret} />
          <label>
            {factorText.code}
            <input name="code" className="code-input" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]{6,7}" maxLength={7} required />
          </label>
          <div className="inline-form">
            <button type="submit" className="primary" disabled={confirm.isPending}>
              {factorText.turnOn}
            </button>
            <button
              type="button"
              onClick={() => {
                start.reset();
                confirm.reset();
              }}
            >
              {factorText.cancel}
            </button>
          </div>
          <Outcome error={confirm.error} success={null} />
        </form>
      ) : null}
      {totp?.enabled && !codes ? (
        <form className="account-form" onSubmit={submitOff} aria-label={factorText.turnOffTitle}>
          <p className="muted">{factorText.turnOffHint}</p>
          <label>
            {factorText.password}
            <input name="password" type="password" autoComplete="current-password" required />
          </label>
          <label>
            {factorText.codeOrRecovery}
            <input name="code" autoComplete="one-time-code" autoCapitalize="none" spellCheck={false} required maxLength={40} />
          </label>
          <button type="submit" disabled={turnOff.isPending}>
            {factorText.turnOff}
          </button>
        </form>
      ) : null}
      <Outcome
        error={start.error ?? turnOff.error ?? status.error}
        success={turnOff.isSuccess ? factorText.turnedOff : confirm.isSuccess ? factorText.turnedOn : null}
      />
    </Part>
  );
}
