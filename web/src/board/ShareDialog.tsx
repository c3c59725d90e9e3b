import { useId } from 'react';
import { type Member, problem } from '../api.ts';
import { Outcome, when } from '../parts.tsx';
import { InvitationLink, InviteFields, useCompanyInvitations } from '../people/invitations.tsx';
import { t } from '../strings.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { Modal } from './dialogs.tsx';

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
  const formId = useId();
  const invites = props.role === 'owner' || props.role === 'admin';
  const {
    invitations: pending,
    invite,
    revoke,
    submit,
    done,
    link,
    forgetLink,
  } = useCompanyInvitations(props.companyId, {
    enabled: invites,
    board: props.boardId,
  });
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
            <InviteFields callerRole={props.role} />
            <button type="submit" className="primary" disabled={invite.isPending}>
              {t.sendInvitation}
            </button>
          </form>
        ) : (
          <p>{t.onlyAdminsInvite}</p>
        )}
        <InvitationLink link={link} onDone={forgetLink} />
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
                  <button
                    type="button"
                    disabled={revoke.isPending}
                    onClick={() => {
                      if (window.confirm(t.confirmRevokeInvitation(invitation.email))) revoke.mutate(invitation._id);
                    }}
                    aria-label={t.revokeInvitationNamed(invitation.email)}
                  >
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
