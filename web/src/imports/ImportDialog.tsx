/**
 * Import a board into a team: a file picker for Trello's "Export as JSON" file (or a board export),
 * the file's people each mapped to a member, nobody or an invitation by email (the server's
 * suggestions chosen already), then the import's progress, with the links of invitations not mailed, read from Get Import until it is done and links to the new board.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { Link } from 'react-router';
import { ApiError, client, messageOf, postForm, unwrap } from '../api.ts';
import { Modal } from '../board/dialogs.tsx';
import { formatList } from '../i18n/messages.ts';
import { t } from '../strings.ts';
import { type ImportPerson, INVITE, type MadeInvitation, MadeInvitations, PeopleMapping, personName, type TeamMember } from './PeopleMapping.tsx';

type Source = 'trello' | 'taskboard';

/** The file's people with the suggested members, and the team's members: read before the import. */
async function readPeople(source: Source, teamId: string, file: File): Promise<{ people: (ImportPerson & { user: string | null })[]; members: TeamMember[] }> {
  const form = new FormData();
  form.append('file', file, file.name || 'board.json');
  const { response, body } = await postForm(`/api/v1/imports/${source}/people?teamId=${encodeURIComponent(teamId)}`, form);
  const read = body as { importPeople?: { people: (ImportPerson & { user: string | null })[]; members: TeamMember[] } } | undefined;
  if (response.status !== 200 || !read?.importPeople) throw new ApiError(response.status, messageOf(body, `${response.status} ${response.statusText}`));
  return read.importPeople;
}

/** Starts the import: the people mapping, then the file, as a form with the session's proof. */
async function startImport(
  source: Source,
  teamId: string,
  file: File,
  people: Record<string, string | null | { invite: string }> | null,
): Promise<{ id: string; invitations: MadeInvitation[] }> {
  const form = new FormData();
  // the form's text fields come before the file
  if (people) form.append('people', JSON.stringify(people));
  form.append('file', file, file.name || 'board.json');
  const { response, body } = await postForm(`/api/v1/imports/${source}?teamId=${encodeURIComponent(teamId)}`, form);
  const started = body as { import?: { _id: string; invitations?: MadeInvitation[] } } | undefined;
  if (response.status !== 202 || !started?.import) throw new ApiError(response.status, messageOf(body, `${response.status} ${response.statusText}`));
  return { id: started.import._id, invitations: started.import.invitations ?? [] };
}

export default function ImportDialog({ teamId, teamName, onClose }: { teamId: string; teamName: string; onClose: () => void }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [source, setSource] = useState<Source>('trello');
  const [file, setFile] = useState<File | null>(null);
  const [importId, setImportId] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [people, setPeople] = useState<{ people: ImportPerson[]; members: TeamMember[] } | null>(null);
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [emails, setEmails] = useState<Record<string, string>>({});
  const [invitations, setInvitations] = useState<MadeInvitation[]>([]);
  // the file's people are read as soon as a file is chosen (and again when the source changes)
  useEffect(() => {
    setPeople(null);
    setChosen({});
    if (!file) return;
    let current = true;
    readPeople(source, teamId, file).then(
      (read) => {
        if (!current) return;
        setPeople(read);
        setChosen(Object.fromEntries(read.people.map((person) => [person.key, person.user ?? ''])));
        setEmails(Object.fromEntries(read.people.map((person) => [person.key, person.email ?? ''])));
        setProblem(null);
      },
      (error: unknown) => {
        if (current) setProblem(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      current = false;
    };
  }, [file, source, teamId]);
  const progress = useQuery({
    queryKey: ['import', importId],
    enabled: importId !== null,
    queryFn: async () => unwrap(await client.GET('/api/v1/imports/{importId}', { params: { path: { importId: importId as string } } })).import,
    refetchInterval: (query) => (query.state.data?.status === 'running' || !query.state.data ? 500 : false),
  });
  const record = progress.data;
  const ended = record && record.status !== 'running';
  useEffect(() => {
    if (record?.status === 'done') void queryClient.invalidateQueries({ queryKey: ['boards', teamId] });
  }, [record?.status, queryClient, teamId]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!file) return setProblem(t.importChooseFile);
    setProblem(null);
    setStarting(true);
    try {
      const mapping = people
        ? Object.fromEntries(
            people.people.map((person) => [
              person.key,
              chosen[person.key] === INVITE ? { invite: (emails[person.key] ?? '').trim() } : chosen[person.key] || null,
            ]),
          )
        : null;
      const started = await startImport(source, teamId, file, mapping);
      setInvitations(started.invitations);
      setImportId(started.id);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setStarting(false);
    }
  }

  // unmatched people are said once, with the link that maps them
  const leftOut = record
    ? Object.entries(record.report.leftOut).filter(([kind, count]) => count > 0 && kind !== 'unmatchedCardMembers' && kind !== 'unmatchedItemMembers')
    : [];
  const brought = record?.report.brought;
  return (
    <Modal label={t.importBoardInto(teamName)} onClose={onClose} className="import-dialog">
      <h2>{t.importBoardInto(teamName)}</h2>
      {importId === null ? (
        <form className="import-form" onSubmit={submit}>
          <label htmlFor={`${id}-source`}>{t.importFrom}</label>
          <select id={`${id}-source`} value={source} onChange={(event) => setSource(event.target.value as Source)}>
            <option value="trello">{t.importTrello}</option>
            <option value="taskboard">{t.importTaskboard}</option>
          </select>
          <label htmlFor={`${id}-file`}>{t.importFile}</label>
          <input id={`${id}-file`} type="file" accept="application/json,.json" onChange={(event) => setFile(event.target.files?.[0] ?? null)} />
          <p className="muted">{source === 'trello' ? t.importTrelloHint : t.importTaskboardHint}</p>
          {people && people.people.length > 0 ? (
            <PeopleMapping
              legend={t.importPeople}
              people={people.people}
              members={people.members}
              chosen={chosen}
              onChoose={(key, user) => setChosen((current) => ({ ...current, [key]: user }))}
              emails={emails}
              onEmail={(key, email) => setEmails((current) => ({ ...current, [key]: email }))}
            />
          ) : null}
          {problem ? (
            <p role="alert" className="error">
              {problem}
            </p>
          ) : null}
          <div className="composer-actions">
            <button type="submit" className="primary" disabled={starting}>
              {t.importStart}
            </button>
            <button type="button" onClick={onClose}>
              {t.cancel}
            </button>
          </div>
        </form>
      ) : (
        <div className="import-progress">
          {!ended ? (
            <>
              <label htmlFor={`${id}-progress`}>{t.importProgress(record?.progress.cardsDone ?? 0, record?.progress.cards ?? 0)}</label>
              <progress id={`${id}-progress`} max={record?.progress.cards || 1} value={record?.progress.cardsDone ?? 0} />
            </>
          ) : null}
          <p role="status">
            {!record
              ? t.importStarting
              : record.status === 'running'
                ? t.importRunning(record.boardName)
                : record.status === 'done'
                  ? t.importDone(record.boardName)
                  : ''}
          </p>
          <MadeInvitations invitations={invitations} onDone={(key) => setInvitations((current) => current.filter((made) => made.key !== key))} />
          {record?.status === 'failed' ? (
            <p role="alert" className="error">
              {t.importFailed(record.error ?? '')}
            </p>
          ) : null}
          {record?.status === 'done' && record.board ? (
            <>
              <p>
                <Link to={`/boards/${record.board}`}>{t.importOpen(record.boardName)}</Link>
              </p>
              <dl className="import-report">
                <dt>{t.importBrought}</dt>
                <dd>{t.importBroughtCounts(record.report.brought.lists, record.report.brought.cards, record.report.brought.comments)}</dd>
                {brought?.customFields || brought?.relations ? (
                  <dd>{t.importBroughtFields(brought.customFields ?? 0, brought.customFieldValues ?? 0, brought.relations ?? 0)}</dd>
                ) : null}
                {record.report.members.unmatched.length ? (
                  <>
                    <dt>{t.importUnmatched}</dt>
                    <dd>
                      {formatList(
                        record.report.members.unmatched.map((person) =>
                          person.invited ? t.importInvitedPerson(personName(person), person.invited) : personName(person),
                        ),
                        'unit',
                        'short',
                      )}
                    </dd>
                    <dd>
                      {t.importUnmatchedPlaces(
                        record.report.members.unmatched.reduce((sum, person) => sum + (person.cardMemberships ?? 0), 0),
                        record.report.members.unmatched.reduce((sum, person) => sum + (person.itemMemberships ?? 0), 0),
                      )}{' '}
                      <Link to={`/imports/${record._id}/people`} onClick={onClose}>
                        {t.importMapNow}
                      </Link>
                    </dd>
                  </>
                ) : null}
                {leftOut.length ? (
                  <>
                    <dt>{t.importLeftOut}</dt>
                    {leftOut.map(([kind, count]) => (
                      <dd key={kind}>{t.importLeftOutKinds[kind]?.(count) ?? t.importLeftOutOther(kind, count)}</dd>
                    ))}
                  </>
                ) : null}
                {record.report.notes.map((note) => (
                  <dd key={note}>{note}</dd>
                ))}
              </dl>
            </>
          ) : null}
          {progress.error ? (
            <p role="alert" className="error">
              {progress.error.message}
            </p>
          ) : null}
          <div className="composer-actions">
            <button type="button" onClick={onClose}>
              {t.close}
            </button>
          </div>
        </div>
      )}
    </Modal>
  );
}
