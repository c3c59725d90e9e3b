import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { type Company, client, unwrap } from '../api.ts';
import { Outcome, Part } from '../parts.tsx';
import { ADMIN_STALE_TIME } from './parts.tsx';
import { signInPolicyText } from './sign-in-policy-strings.ts';

/**
 * A company's sign-in policy, for its owners: whether its members sign in with single sign-on only.
 * The switch is off and explained when the server has no single sign-on to send them to.
 */
export function SignInPolicyPart({ company }: { company: Company }) {
  const queryClient = useQueryClient();
  const hintId = useId();
  const [done, setDone] = useState<string | null>(null);
  const path = { params: { path: { companyId: company._id } } };
  const key = ['admin', company._id, 'sign-in-policy'];
  const policy = useQuery({
    queryKey: key,
    staleTime: ADMIN_STALE_TIME,
    queryFn: async () => unwrap(await client.GET('/api/v1/companies/{companyId}/sign-in-policy', path)),
  });
  const change = useMutation({
    mutationFn: async (singleSignOnOnly: boolean) =>
      unwrap(await client.PATCH('/api/v1/companies/{companyId}/sign-in-policy', { ...path, body: { singleSignOnOnly } })),
    onSuccess: (answer) => {
      queryClient.setQueryData(key, answer);
      setDone(answer.singleSignOnOnly ? signInPolicyText.turnedOn : signInPolicyText.turnedOff);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const data = policy.data;
  const on = change.isPending ? change.variables : data?.singleSignOnOnly;
  // one that is on stays switchable off, whatever the server has now
  const unavailable = data !== undefined && !data.singleSignOnAvailable && !data.singleSignOnOnly;
  return (
    <Part title={signInPolicyText.title}>
      <label className="account-check">
        <input
          type="checkbox"
          checked={on ?? false}
          disabled={!data || change.isPending || unavailable}
          aria-describedby={hintId}
          onChange={(event) => change.mutate(event.target.checked)}
        />
        {signInPolicyText.only}
      </label>
      <p id={hintId} className="muted">
        {unavailable ? signInPolicyText.unavailable : signInPolicyText.onlyHint}
      </p>
      <Outcome error={change.error ?? policy.error} success={done} />
    </Part>
  );
}
