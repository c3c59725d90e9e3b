/** The company's teams: create, rename, and their members (add a company member, remove one). */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { type Company, client, type Team, unwrap } from '../api.ts';
import { Outcome, Part } from '../parts.tsx';
import { t } from '../strings.ts';
import { useCompanyMembers, useCompanyTeams } from './MembersPage.tsx';
import { type CompanyMember, Refused, refused } from './parts.tsx';

export function TeamsPage({ company }: { company: Company }) {
  const queryClient = useQueryClient();
  const teams = useCompanyTeams(company._id);
  const members = useCompanyMembers(company._id);
  const inputId = useId();
  const [done, setDone] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async (name: string) => unwrap(await client.POST('/api/v1/teams', { params: { query: { companyId: company._id } }, body: { name } })),
    onSuccess: (answer) => setDone(t.teamCreated(answer.team.name)),
    // the creator joins the team: the header's boards follow
    onSettled: () => Promise.all([queryClient.invalidateQueries({ queryKey: ['admin', company._id] }), queryClient.invalidateQueries({ queryKey: ['me'] })]),
  });
  if (refused(teams.error) || refused(members.error)) return <Refused />;
  return (
    <Part title={t.teams}>
      <p className="muted">{t.teamsCannotBeDeleted}</p>
      {teams.data?.map((team) => (
        <TeamPart key={team._id} company={company} team={team} people={members.data ?? []} />
      ))}
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const input = event.currentTarget.elements.namedItem('name') as HTMLInputElement;
          const name = input.value.trim();
          if (name) create.mutate(name, { onSuccess: () => (input.value = '') });
        }}
      >
        <label htmlFor={inputId}>{t.newTeamName}</label>
        <input id={inputId} name="name" required maxLength={512} />
        <button type="submit" disabled={create.isPending}>
          {t.createTeam}
        </button>
      </form>
      <Outcome error={create.error ?? teams.error} success={done} />
    </Part>
  );
}

function TeamPart({ company, team, people }: { company: Company; team: Team; people: CompanyMember[] }) {
  const queryClient = useQueryClient();
  const headingId = useId();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(team.name);
  const [person, setPerson] = useState('');
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: ['admin', company._id] }), queryClient.invalidateQueries({ queryKey: ['me'] })]);
  const rename = useMutation({
    mutationFn: async (next: string) => unwrap(await client.PATCH('/api/v1/teams/{teamId}', { params: { path: { teamId: team._id } }, body: { name: next } })),
    onSuccess: () => setRenaming(false),
    onSettled: refresh,
  });
  const add = useMutation({
    mutationFn: async (userId: string) =>
      unwrap(await client.POST('/api/v1/teams/{teamId}/members', { params: { path: { teamId: team._id } }, body: { userId } })),
    onSuccess: () => setPerson(''),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: async (userId: string) =>
      unwrap(await client.DELETE('/api/v1/teams/{teamId}/members/{userId}', { params: { path: { teamId: team._id, userId } } })),
    onSettled: refresh,
  });
  const inTeam = new Set(team.members.map((member) => member._id));
  const addable = people.filter((member) => !inTeam.has(member._id));
  return (
    <section className="admin-team" aria-labelledby={headingId}>
      <h3 id={headingId}>{t.teamNamed(team.name)}</h3>
      {renaming ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            const next = name.trim();
            if (next) rename.mutate(next);
          }}
        >
          <input aria-label={t.teamNameOf(team.name)} value={name} onChange={(event) => setName(event.target.value)} required maxLength={512} />
          <button type="submit" className="primary" disabled={rename.isPending}>
            {t.save}
          </button>
          <button
            type="button"
            onClick={() => {
              setName(team.name);
              setRenaming(false);
            }}
          >
            {t.cancel}
          </button>
        </form>
      ) : (
        <button
          type="button"
          aria-label={t.renameTeamNamed(team.name)}
          onClick={() => {
            setName(team.name);
            setRenaming(true);
          }}
        >
          {t.rename}
        </button>
      )}
      <ul className="admin-rows" aria-label={t.teamMembersOf(team.name)}>
        {team.members.map((member) => (
          <li key={member._id} className="admin-row">
            <span className="admin-row-text">{member.fullName}</span>
            <button
              type="button"
              aria-label={t.removeFromTeamNamed(member.fullName, team.name)}
              disabled={remove.isPending}
              onClick={() => {
                if (window.confirm(t.confirmRemoveFromTeam(member.fullName, team.name))) remove.mutate(member._id);
              }}
            >
              {t.removeMember}
            </button>
          </li>
        ))}
      </ul>
      {team.members.length === 0 ? <p className="muted">{t.noTeamMembers}</p> : null}
      {addable.length > 0 ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (person) add.mutate(person);
          }}
        >
          <select aria-label={t.addToTeam(team.name)} value={person} onChange={(event) => setPerson(event.target.value)}>
            <option value="">{t.choosePerson}</option>
            {addable.map((member) => (
              <option key={member._id} value={member._id}>
                {member.fullName} ({member.email})
              </option>
            ))}
          </select>
          <button type="submit" disabled={!person || add.isPending}>
            {t.addMember}
          </button>
        </form>
      ) : null}
      <Outcome error={rename.error ?? add.error ?? remove.error} success={null} />
    </section>
  );
}
