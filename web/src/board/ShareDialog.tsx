import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { client, type Member, problem, unwrap } from '../api.ts';
import { Outcome, ShownOnce, when } from '../parts.tsx';
import { t } from '../strings.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { Modal } from './dialogs.tsx';

type Role = 'owner' | 'admin' | 'member';

/**
 * Share: invite people to the board from where the work is. The invitee joins the board's team and
 * lands on the board; without mail the link is shown to copy. The team's pending invitations and its
 * members are listed beside. Only the company's owners and admins invite (the API decides).
 */
export default function ShareDialog(props: {
  boardId: string;
  boardName: string;
  teamId: string;
  companyId: string;
  role: string | undefined;
  members: Member[];
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const formId = useId();
  const invites = props.role === 'owner' || props.role === 'admin';
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const pendingKey = ['admin', props.companyId, 'invitations'];
  const pending = useQuery({
    queryKey: pendingKey,
    enabled: invites,
    queryFn: async () =>
      unwrap(await client.GET('/api/v1/companies/{companyId}/invitations', { params: { path: { companyId: props.companyId } } })).invitations,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: pendingKey });
  const invite = useMutation({
    mutationFn: async (body: { email: string; role: Role }) =>
      unwrap(
        await client.POST('/api/v1/companies/{companyId}/invitations', {
          params: { path: { companyId: props.companyId } },
          body: { ...body, board: props.boardId },
        }),
      ),
    onSuccess: (answer) => {
      if (answer.mailed) {
        setLink(null);
        setDone(t.invitationMailed(answer.invitation.email));
      } else {
        setDone(null);
        setLink({ email: answer.invitation.email, url: answer.url });
      }
    },
    onSettled: refresh,
  });
  const revoke = useMutation({
    mutationFn: async (invitationId: string) =>
      unwrap(
        await client.DELETE('/api/v1/companies/{companyId}/invitations/{invitationId}', {
          params: { path: { companyId: props.companyId, invitationId } },
        }),
      ),
    onSuccess: (answer) => setDone(t.invitationRevoked(answer.invitation.email)),
    onSettled: refresh,
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    invite.mutate({ email: String(form.get('email')).trim(), role: String(form.get('role')) as Role }, { onSuccess: () => formElement.reset() });
  }
  const roles: Role[] = props.role === 'owner' ? ['member', 'admin', 'owner'] : ['member', 'admin'];
  const teamPending = (pending.data ?? []).filter((invitation) => invitation.teams.includes(props.teamId));
  return (
    <Modal label={t.shareBoard(props.boardName)} onClose={props.onClose} className="share-dialog">
      <div className="share">
        <div className="share-head">
          <h2>{t.shareBoard(props.boardName)}</h2>
          <button type="button" onClick={props.onClose}>
            {t.close}
          </button>
        </div>
        {invites ? (
          <form className="share-form" onSubmit={submit} aria-labelledby={formId}>
            <h3 id={formId}>{t.inviteToBoard}</h3>
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
            <button type="submit" className="primary" disabled={invite.isPending}>
              {t.sendInvitation}
            </button>
          </form>
        ) : (
          <p>{t.onlyAdminsInvite}</p>
        )}
        {link ? (
          <ShownOnce
            label={t.invitationLinkFor(link.email)}
            hint={t.invitationLinkHint}
            value={link.url}
            copied={t.linkCopied}
            copyFailed={t.linkCopyFailed}
            onDone={() => setLink(null)}
          />
        ) : null}
        <Outcome error={invite.error ?? revoke.error} success={done} />
        {invites ? (
          <section aria-labelledby={`${formId}-pending`}>
            <h3 id={`${formId}-pending`}>{t.pendingInvitations}</h3>
            {pending.isError ? <p className="error">{problem(pending.error)}</p> : null}
            {teamPending.length === 0 && pending.isSuccess ? <p className="muted">{t.noPendingInvitations}</p> : null}
            <ul className="share-list" aria-label={t.pendingInvitations}>
              {teamPending.map((invitation) => (
                <li key={invitation._id}>
                  <span className="share-who">
                    {invitation.email}, {t.invitationDetails(t.roleNames[invitation.role] ?? invitation.role, when(invitation.expiresAt))}
                  </span>
                  <button type="button" onClick={() => revoke.mutate(invitation._id)} aria-label={t.revokeInvitationNamed(invitation.email)}>
                    {t.revoke}
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        <section aria-labelledby={`${formId}-members`}>
          <h3 id={`${formId}-members`}>{t.boardMembersTitle}</h3>
          <ul className="share-list" aria-label={t.boardMembersTitle}>
            {props.members.map((member) => (
              <li key={member._id}>
                <Avatar person={member} decorative />
                <span className="share-who">{member.fullName}</span>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </Modal>
  );
}
