import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { client, unwrap } from '../api.ts';
import { ShownOnce } from '../parts.tsx';
import { t } from '../strings.ts';

type Role = 'owner' | 'admin' | 'member';

/**
 * A company's invitations, as Administration and a board's Share dialog both use them: the open
 * ones, inviting (the link to copy when the server sends no mail) and revoking, with what was done.
 */
export function useCompanyInvitations(companyId: string, options: { enabled?: boolean; board?: string } = {}) {
  const queryClient = useQueryClient();
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const key = ['admin', companyId, 'invitations'];
  const invitations = useQuery({
    queryKey: key,
    staleTime: 0,
    enabled: options.enabled ?? true,
    queryFn: async () => unwrap(await client.GET('/api/v1/companies/{companyId}/invitations', { params: { path: { companyId } } })).invitations,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const invite = useMutation({
    mutationFn: async (body: { email: string; role: Role; teams?: string[] }) =>
      unwrap(
        await client.POST('/api/v1/companies/{companyId}/invitations', {
          params: { path: { companyId } },
          body: { ...body, ...(options.board ? { board: options.board } : {}) },
        }),
      ),
    onSuccess: (answer) => {
      setDone(answer.mailed ? t.invitationMailed(answer.invitation.email) : null);
      setLink(answer.mailed ? null : { email: answer.invitation.email, url: answer.url });
    },
    onSettled: refresh,
  });
  const revoke = useMutation({
    mutationFn: async (invitationId: string) =>
      unwrap(await client.DELETE('/api/v1/companies/{companyId}/invitations/{invitationId}', { params: { path: { companyId, invitationId } } })),
    onSuccess: (answer) => setDone(t.invitationRevoked(answer.invitation.email)),
    onSettled: refresh,
  });
  /** Sends the invite form (email, role, ticked teams), and empties it once the invitation is made. */
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const teams = form.getAll('teams').map(String);
    invite.mutate(
      { email: String(form.get('email')).trim(), role: String(form.get('role')) as Role, ...(teams.length ? { teams } : {}) },
      { onSuccess: () => formElement.reset() },
    );
  }
  return { invitations, invite, revoke, submit, done, link, forgetLink: () => setLink(null) };
}

/** The invite form's email and role fields: an admin invites members and admins, an owner owners too. */
export function InviteFields({ callerRole }: { callerRole: string | undefined }) {
  const roles: Role[] = callerRole === 'owner' ? ['member', 'admin', 'owner'] : ['member', 'admin'];
  return (
    <>
      <label>
        {t.inviteEmail}
        <input name="email" type="email" required maxLength={254} autoComplete="off" />
      </label>
      <label>
        {t.role}
        <select name="role" defaultValue="member">
          {roles.map((role) => (
            <option key={role} value={role}>
              {t.roleNames[role]}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}

/** The link of an invitation the server could not mail, shown once to copy. */
export function InvitationLink({ link, onDone }: { link: { email: string; url: string } | null; onDone: () => void }) {
  if (!link) return null;
  return (
    <ShownOnce
      label={t.invitationLinkFor(link.email)}
      hint={t.invitationLinkHint}
      value={link.url}
      copied={t.linkCopied}
      copyFailed={t.linkCopyFailed}
      onDone={onDone}
    />
  );
}
