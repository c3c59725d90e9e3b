import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { client, unwrap } from '../api.ts';
import { NameForm, Outcome, Part, when } from '../parts.tsx';
import { factorText } from '../people/factor-strings.ts';
import { createPasskey } from '../people/passkey-browser.ts';

/** The person's passkeys on the account page: add one under a name (the browser's own dialog), remove one. */
export function Passkeys() {
  const queryClient = useQueryClient();
  const hintId = useId();
  const [done, setDone] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['passkeys'] });
  const passkeys = useQuery({ queryKey: ['passkeys'], queryFn: async () => unwrap(await client.GET('/api/v1/me/passkeys')).passkeys });
  const add = useMutation({
    mutationFn: async (name: string) => {
      const { options } = unwrap(await client.POST('/api/v1/me/passkeys/options', {}));
      const response = await createPasskey(options).catch(() => {
        throw new Error(factorText.passkeyFailed);
      });
      return unwrap(await client.POST('/api/v1/me/passkeys', { body: { name, response: response as Record<string, never> } })).passkey;
    },
    onSuccess: (passkey) => setDone(factorText.passkeyAdded(passkey.name)),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: async (passkeyId: string) => unwrap(await client.DELETE('/api/v1/me/passkeys/{passkeyId}', { params: { path: { passkeyId } } })).passkey,
    onSuccess: (passkey) => setDone(factorText.passkeyRemoved(passkey.name)),
    onSettled: refresh,
  });
  return (
    <Part title={factorText.passkeysTitle}>
      <p className="muted">{factorText.passkeysIntro}</p>
      <ul className="account-rows">
        {passkeys.data?.map((passkey) => (
          <li key={passkey._id} className="account-row">
            <span className="account-row-text">
              <strong>{passkey.name}</strong>
              <span className="muted"> {factorText.passkeyDetails(when(passkey.createdAt), passkey.lastUsedAt ? when(passkey.lastUsedAt) : null)}</span>
            </span>
            <button
              type="button"
              aria-label={factorText.removePasskeyNamed(passkey.name)}
              disabled={remove.isPending}
              onClick={() => {
                if (window.confirm(factorText.confirmRemovePasskey(passkey.name))) remove.mutate(passkey._id);
              }}
            >
              {factorText.removePasskey}
            </button>
          </li>
        ))}
      </ul>
      {passkeys.data?.length === 0 ? <p className="muted">{factorText.noPasskeys}</p> : null}
      <NameForm
        label={factorText.passkeyName}
        submit={factorText.addPasskey}
        busy={add.isPending}
        describedBy={hintId}
        onName={(name, made) => add.mutate(name, { onSuccess: made })}
      />
      <p id={hintId} className="muted">
        {factorText.passkeyNameHint}
      </p>
      <Outcome error={add.error ?? remove.error ?? passkeys.error} success={done} />
    </Part>
  );
}
