import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { type Company, client, unwrap } from '../api.ts';
import { formatList } from '../i18n/messages.ts';
import { Outcome, Part } from '../parts.tsx';
import { factorText } from '../people/factor-strings.ts';
import { ADMIN_STALE_TIME } from './parts.tsx';

/** A second factor's kind in words; one this page does not know yet shows as the API names it. */
const methodName = (method: string): string => (factorText.methodNames as Record<string, string>)[method] ?? method;

/**
 * Two-step sign-in of a company's members, for its owners: require it of everyone (those without
 * set it up at their next sign-in), see who has set it up, and reset a member's (a lost phone).
 */
export function SecondFactorsPart({ company }: { company: Company }) {
  const queryClient = useQueryClient();
  const hintId = useId();
  const [done, setDone] = useState<string | null>(null);
  const path = { params: { path: { companyId: company._id } } };
  const key = ['admin', company._id, 'second-factors'];
  const factors = useQuery({
    queryKey: key,
    staleTime: ADMIN_STALE_TIME,
    queryFn: async () => unwrap(await client.GET('/api/v1/companies/{companyId}/second-factors', path)),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const require = useMutation({
    mutationFn: async (required: boolean) => unwrap(await client.PATCH('/api/v1/companies/{companyId}/second-factors', { ...path, body: { required } })),
    onSuccess: (answer) => setDone(answer.required ? factorText.requiredOn : factorText.requiredOff),
    onSettled: refresh,
  });
  const reset = useMutation({
    mutationFn: async (member: { user: string; fullName: string }) => {
      unwrap(
        await client.DELETE('/api/v1/companies/{companyId}/members/{userId}/second-factors', {
          params: { path: { companyId: company._id, userId: member.user } },
        }),
      );
      return member.fullName;
    },
    onSuccess: (name) => setDone(factorText.resetDone(name)),
    onSettled: refresh,
  });
  const data = factors.data;
  const required = require.isPending ? require.variables : data?.required;
  const enrolled = data?.members.filter((member) => member.methods.length > 0).length ?? 0;
  return (
    <Part title={factorText.title}>
      <label className="account-check">
        <input
          type="checkbox"
          checked={required ?? false}
          disabled={!data || require.isPending}
          aria-describedby={hintId}
          onChange={(event) => require.mutate(event.target.checked)}
        />
        {factorText.companyRequire}
      </label>
      <p id={hintId} className="muted">
        {factorText.companyRequireHint}
      </p>
      {data ? <p>{factorText.companyCount(enrolled, data.members.length)}</p> : null}
      <ul className="admin-rows">
        {data?.members.map((member) => (
          <li key={member.user} className="admin-row">
            <span className="admin-row-text">
              <strong>{member.fullName}</strong>
              <span className="muted"> {member.email}</span>
            </span>
            <span className={member.methods.length ? 'factor-state on' : 'factor-state'}>
              {member.methods.length ? factorText.memberOn(formatList(member.methods.map((method) => methodName(method)))) : factorText.memberOff}
            </span>
            {member.methods.length ? (
              <button
                type="button"
                aria-label={factorText.resetNamed(member.fullName)}
                disabled={reset.isPending}
                onClick={() => {
                  if (window.confirm(factorText.confirmReset(member.fullName))) reset.mutate(member);
                }}
              >
                {factorText.reset}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <Outcome error={require.error ?? reset.error ?? factors.error} success={done} />
    </Part>
  );
}
