/**
 * `/imports/:importId/people`: the people an import mapped to nobody, each to be chosen among the
 * team's members or invited by email; saving puts the chosen members on the cards and items the
 * people were on, and makes the invitations (whose acceptance does the same).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { client, problem, unwrap } from '../api.ts';
import { t } from '../strings.ts';
import { INVITE, type MadeInvitation, MadeInvitations, PeopleMapping } from './PeopleMapping.tsx';

type Entry = { key: string; user: string } | { key: string; invite: string };

export default function ImportPeoplePage() {
  const { importId = '' } = useParams();
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [emails, setEmails] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState<number | null>(null);
  const [invitations, setInvitations] = useState<MadeInvitation[]>([]);
  const record = useQuery({
    queryKey: ['import', importId],
    queryFn: async () => unwrap(await client.GET('/api/v1/imports/{importId}', { params: { path: { importId } } })).import,
  });
  const people = useQuery({
    queryKey: ['import', importId, 'people'],
    queryFn: async () => unwrap(await client.GET('/api/v1/imports/{importId}/people', { params: { path: { importId } } })).importPeople,
  });
  const map = useMutation({
    mutationFn: async (entries: Entry[]) =>
      unwrap(await client.POST('/api/v1/imports/{importId}/people', { params: { path: { importId } }, body: { people: entries } })).import,
    onSuccess: async (answer, entries) => {
      setSaved(entries.filter((entry) => 'user' in entry).length);
      setInvitations(answer.invitations ?? []);
      setChosen({});
      setEmails({});
      await queryClient.invalidateQueries({ queryKey: ['import', importId] });
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(null);
    const entries = Object.entries(chosen).flatMap(([key, user]): Entry[] =>
      user === INVITE ? [{ key, invite: (emails[key] ?? '').trim() }] : user ? [{ key, user }] : [],
    );
    if (entries.length) map.mutate(entries);
  }

  const boardName = record.data?.boardName ?? '';
  const waiting = people.data?.people ?? [];
  return (
    <div className="page-pad import-people-page">
      <h1>{t.importMapTitle(boardName)}</h1>
      {record.error || people.error ? (
        <p role="alert" className="error">
          {problem(record.error ?? people.error)}
        </p>
      ) : null}
      {saved ? <p role="status">{t.importMapped(saved)}</p> : null}
      <MadeInvitations invitations={invitations} onDone={(key) => setInvitations((current) => current.filter((made) => made.key !== key))} />
      {!people.data ? (
        <p>{t.loading}</p>
      ) : waiting.length === 0 ? (
        <p>{t.importAllMapped}</p>
      ) : (
        <form onSubmit={submit} className="import-form">
          <p className="muted">{t.importMapHint}</p>
          <PeopleMapping
            legend={t.importPeopleToMap}
            people={waiting}
            members={people.data.members}
            chosen={chosen}
            onChoose={(key, user) => setChosen((current) => ({ ...current, [key]: user }))}
            emails={emails}
            onEmail={(key, email) => setEmails((current) => ({ ...current, [key]: email }))}
          />
          {map.error ? (
            <p role="alert" className="error">
              {problem(map.error)}
            </p>
          ) : null}
          <div className="composer-actions">
            <button type="submit" className="primary" disabled={map.isPending || !Object.values(chosen).some(Boolean)}>
              {t.importMapSave}
            </button>
          </div>
        </form>
      )}
      {record.data?.board ? (
        <p>
          <Link to={`/boards/${record.data.board}`}>{t.importOpen(boardName)}</Link>
        </p>
      ) : null}
    </div>
  );
}
