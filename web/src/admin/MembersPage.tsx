/** Members (roles, removal), their two-step sign-in and single sign-on (owners) and invitations (invite by email with a role, pending ones, revoke) of a company. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { type Company, client, unwrap } from '../api.ts';
import { Outcome, Part, when } from '../parts.tsx';
import { InvitationLink, InviteFields, useCompanyInvitations } from '../people/invitations.tsx';
import { useMe } from '../session.ts';
import { t } from '../strings.ts';
import { ADMIN_STALE_TIME, type CompanyMember, Refused, ROLES, type Role, refused } from './parts.tsx';
import { SecondFactorsPart } from './SecondFactorsPart.tsx';
import { SignInPolicyPart } from './SignInPolicyPart.tsx';

export function useCompanyMembers(companyId: string) {
  return useQuery({
    queryKey: ['admin', companyId, 'members'],
    staleTime: ADMIN_STALE_TIME,
    queryFn: async () => unwrap(await client.GET('/api/v1/companies/{companyId}/members', { params: { path: { companyId } } })).members,
  });
}

export function useCompanyTeams(companyId: string) {
  return useQuery({
    queryKey: ['admin', companyId, 'teams'],
    staleTime: ADMIN_STALE_TIME,
    queryFn: async () => unwrap(await client.GET('/api/v1/companies/{companyId}/teams', { params: { path: { companyId } } })).teams,
  });
}

export function MembersPage({ company }: { company: Company }) {
  const members = useCompanyMembers(company._id);
  if (refused(members.error)) return <Refused />;
  return (
    <>
      <Members company={company} members={members.data} error={members.error} />
      {company.role === 'owner' ? <SecondFactorsPart company={company} /> : null}
      {company.role === 'owner' ? <SignInPolicyPart company={company} /> : null}
      <Invitations company={company} />
    </>
  );
}

/** What the caller may do to a member, by the API's rules: owners anything; admins members only (and no owners made). */
function mayChange(callerRole: Role, member: CompanyMember): Role[] {
  if (callerRole === 'owner') return [...ROLES];
  return member.role === 'member' ? ['admin', 'member'] : [];
}

function Members({ company, members, error }: { company: Company; members: CompanyMember[] | undefined; error: unknown }) {
  const queryClient = useQueryClient();
  const me = useMe();
  const [done, setDone] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', company._id] });
  const change = useMutation({
    mutationFn: async ({ member, role }: { member: CompanyMember; role: Role }) =>
      unwrap(
        await client.PATCH('/api/v1/companies/{companyId}/members/{userId}', {
          params: { path: { companyId: company._id, userId: member._id } },
          body: { role },
        }),
      ),
    onSuccess: (answer) => setDone(t.roleChanged(answer.member.fullName, t.roleNames[answer.member.role] ?? answer.member.role)),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: async (member: CompanyMember) =>
      unwrap(await client.DELETE('/api/v1/companies/{companyId}/members/{userId}', { params: { path: { companyId: company._id, userId: member._id } } })),
    onSuccess: (answer) => setDone(t.memberRemoved(answer.member.fullName)),
    onSettled: refresh,
  });
  const myId = me.data?.user._id;
  return (
    <Part title={t.members}>
      <ul className="admin-rows">
        {members?.map((member) => {
          const choices = member._id === myId ? [] : mayChange(company.role, member);
          return (
            <li key={member._id} className="admin-row">
              <span className="admin-row-text">
                <strong>{member.fullName}</strong> {member._id === myId ? <span className="muted">{t.youMark}</span> : null}
                <span className="muted"> {member.email}</span>
              </span>
              {choices.length > 0 ? (
                <RoleSelect member={member} choices={choices} pending={change.isPending} onChange={(role) => change.mutate({ member, role })} />
              ) : (
                <span className="admin-role">{t.roleNames[member.role]}</span>
              )}
              {member._id !== myId && (company.role === 'owner' || member.role !== 'owner') ? (
                <button
                  type="button"
                  aria-label={t.removeMemberNamed(member.fullName)}
                  disabled={remove.isPending}
                  onClick={() => {
                    if (window.confirm(t.confirmRemoveMember(member.fullName, member.email, company.name))) remove.mutate(member);
                  }}
                >
                  {t.removeMember}
                </button>
              ) : null}
            </li>
          );
        })}
      </ul>
      <Outcome error={change.error ?? remove.error ?? error} success={done} />
    </Part>
  );
}

/**
 * The role picker of one member: it shows the choice at once, and the member's stored role once the
 * change settled (the mutation settles after the list was read again, so a refusal shows the old role).
 */
function RoleSelect({ member, choices, pending, onChange }: { member: CompanyMember; choices: Role[]; pending: boolean; onChange: (role: Role) => void }) {
  const [picked, setPicked] = useState<Role | null>(null);
  useEffect(() => {
    if (!pending) setPicked(null);
  }, [pending]);
  const shown = picked ?? member.role;
  const options = choices.includes(member.role) ? choices : [member.role, ...choices];
  return (
    <select
      aria-label={t.roleOf(member.fullName)}
      value={shown}
      disabled={pending}
      onChange={(event) => {
        const role = event.target.value as Role;
        setPicked(role);
        onChange(role);
      }}
    >
      {options.map((role) => (
        <option key={role} value={role}>
          {t.roleNames[role]}
        </option>
      ))}
    </select>
  );
}

function Invitations({ company }: { company: Company }) {
  const formId = useId();
  const teams = useCompanyTeams(company._id);
  const { invitations, invite, revoke, submit, done, link, forgetLink } = useCompanyInvitations(company._id);
  return (
    <Part title={t.invitations}>
      <form className="admin-form" onSubmit={submit} aria-labelledby={formId}>
        <h3 id={formId}>{t.inviteTitle}</h3>
        <InviteFields callerRole={company.role} />
        {teams.data && teams.data.length > 0 ? (
          <fieldset>
            <legend>{t.inviteTeams}</legend>
            {teams.data.map((team) => (
              <label key={team._id} className="admin-check">
                {/* a company of one team: the invitee surely joins it (an empty company is a dead end) */}
                <input type="checkbox" name="teams" value={team._id} defaultChecked={teams.data?.length === 1} />
                {team.name}
              </label>
            ))}
          </fieldset>
        ) : null}
        <button type="submit" className="primary" disabled={invite.isPending}>
          {t.sendInvitation}
        </button>
      </form>
      <InvitationLink link={link} onDone={forgetLink} />
      <ul className="admin-rows" aria-label={t.invitations}>
        {invitations.data?.map((invitation) => (
          <li key={invitation._id} className="admin-row">
            <span className="admin-row-text">
              <strong>{invitation.email}</strong>
              <span className="muted"> {t.invitationDetails(t.roleNames[invitation.role] ?? invitation.role, when(invitation.expiresAt))}</span>
            </span>
            <button
              type="button"
              aria-label={t.revokeInvitationNamed(invitation.email)}
              disabled={revoke.isPending}
              onClick={() => {
                if (window.confirm(t.confirmRevokeInvitation(invitation.email))) revoke.mutate(invitation._id);
              }}
            >
              {t.revoke}
            </button>
          </li>
        ))}
      </ul>
      {invitations.data?.length === 0 ? <p className="muted">{t.noInvitations}</p> : null}
      <Outcome error={invite.error ?? revoke.error ?? invitations.error} success={done} />
    </Part>
  );
}
