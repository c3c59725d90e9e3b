import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Users } from 'lucide-react';
import { lazy, Suspense, useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { administers, type Board, type BoardTemplate, client, problem, unwrap } from '../api.ts';
import { boardTemplatesText as bt } from '../board/templates/strings.ts';
import { useMe } from '../session.ts';
import { t } from '../strings.ts';
import { showToast } from '../ui/toasts.ts';

// A team's archived boards, on the boards page: their own chunk with the board settings.
const ArchivedBoards = lazy(() => import('../board/settings/ArchivedBoards.tsx'));
// Importing a board is rare: its dialog loads when opened.
const ImportDialog = lazy(() => import('../imports/ImportDialog.tsx'));

function TeamBoards({ teamId, teamName, canDelete }: { teamId: string; teamName: string; canDelete: boolean }) {
  const queryClient = useQueryClient();
  const boards = useQuery({
    queryKey: ['boards', teamId],
    queryFn: async () => unwrap(await client.GET('/api/v1/boards', { params: { query: { teamId } } })).boards,
  });
  const navigate = useNavigate();
  const templates = useQuery({
    queryKey: ['board-templates', teamId],
    queryFn: async () => unwrap(await client.GET('/api/v1/teams/{teamId}/board-templates', { params: { path: { teamId } } })).templates,
  });
  // A new board starts with Trello's six default labels (docs/decisions/0263), or with what its template holds; it opens.
  const create = useMutation({
    mutationFn: async ({ name, template }: { name: string; template: string }) =>
      template
        ? unwrap(await client.POST('/api/v1/board-templates/{templateId}/boards', { params: { path: { templateId: template } }, body: { name } }))
        : { ...unwrap(await client.POST('/api/v1/boards', { params: { query: { teamId } }, body: { name, defaultLabels: true } })), leftOut: { rules: [] } },
    onSuccess: async (answer) => {
      await queryClient.invalidateQueries({ queryKey: ['boards', teamId] });
      // the rules a template's board could not get are said where the board opens
      for (const rule of answer.leftOut.rules) showToast({ kind: 'info', text: bt.leftOut[rule.why](rule.name) });
      navigate(`/boards/${answer.board._id}`);
    },
  });
  const inputId = useId();
  const [importing, setImporting] = useState(false);
  const [template, setTemplate] = useState('');
  return (
    <section className="team" aria-labelledby={`${inputId}-title`}>
      <div className="team-head">
        <h2 id={`${inputId}-title`}>{teamName}</h2>
        <button type="button" onClick={() => setImporting(true)} aria-label={t.importBoardInto(teamName)}>
          {t.importBoard}
        </button>
      </div>
      {importing ? (
        <Suspense fallback={null}>
          <ImportDialog teamId={teamId} teamName={teamName} onClose={() => setImporting(false)} />
        </Suspense>
      ) : null}
      <ul className="board-tiles">
        {boards.data?.map((board) => (
          <BoardTile key={board._id} board={board} teamId={teamId} />
        ))}
        {boards.data?.length === 0 ? <li className="muted empty-boards">{t.noBoardsInTeam(teamName)}</li> : null}
      </ul>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const input = event.currentTarget.elements.namedItem('name') as HTMLInputElement;
          const name = input.value.trim();
          if (name) create.mutate({ name, template }, { onSuccess: () => (input.value = '') });
        }}
      >
        <label htmlFor={inputId} className="visually-hidden">
          {t.boardName}
        </label>
        <input id={inputId} name="name" placeholder={t.boardName} />
        {templates.data?.length ? (
          <>
            <label htmlFor={`${inputId}-template`} className="visually-hidden">
              {bt.template}
            </label>
            <select id={`${inputId}-template`} value={template} onChange={(event) => setTemplate(event.target.value)}>
              <option value="">{bt.blank}</option>
              {templates.data.map((one) => (
                <option key={one._id} value={one._id}>
                  {one.name}
                </option>
              ))}
            </select>
          </>
        ) : null}
        <button type="submit">{t.createBoard}</button>
        {create.error ? (
          <span role="alert" className="error">
            {create.error.message}
          </span>
        ) : null}
      </form>
      {templates.data?.length ? <TeamTemplates teamId={teamId} templates={templates.data} onDeleted={(id) => id === template && setTemplate('')} /> : null}
      <Suspense fallback={null}>
        <ArchivedBoards teamId={teamId} canDelete={canDelete} />
      </Suspense>
    </section>
  );
}

/** The team's board templates, what each holds, and Delete (they are made from a board's menu). */
function TeamTemplates({ teamId, templates, onDeleted }: { teamId: string; templates: BoardTemplate[]; onDeleted: (id: string) => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: async (template: BoardTemplate) =>
      unwrap(await client.DELETE('/api/v1/board-templates/{templateId}', { params: { path: { templateId: template._id } } })),
    onSuccess: async ({ template }) => {
      onDeleted(template._id);
      await queryClient.invalidateQueries({ queryKey: ['board-templates', teamId] });
    },
  });
  return (
    <details className="archived-boards team-templates">
      <summary>{bt.teamTemplates(templates.length)}</summary>
      {remove.error ? (
        <p role="alert" className="error">
          {bt.refused(problem(remove.error))}
        </p>
      ) : null}
      <ul className="archived-rows">
        {templates.map((template) => (
          <li key={template._id} className="archived-row">
            <span className="template-name">
              <span className="archived-name">{template.name}</span>
              {template.description ? <span className="muted">{template.description}</span> : null}
              <span className="muted template-summary">
                {bt.summary(template.content.lists.length, template.content.labels.length, template.content.customFields.length, template.content.rules.length)}
              </span>
            </span>
            <span className="spacer" />
            <button
              type="button"
              className="danger-button"
              aria-label={bt.deleteNamed(template.name)}
              onClick={() => {
                if (window.confirm(bt.confirmDelete(template.name))) remove.mutate(template);
              }}
            >
              {bt.delete}
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}

function BoardTile({ board, teamId }: { board: Board; teamId: string }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['boards', teamId] });
  const rename = useMutation({
    mutationFn: async (name: string) => unwrap(await client.PATCH('/api/v1/boards/{boardId}', { params: { path: { boardId: board._id } }, body: { name } })),
    onSuccess: refresh,
  });
  const archive = useMutation({
    mutationFn: async () => unwrap(await client.PATCH('/api/v1/boards/{boardId}/archive', { params: { path: { boardId: board._id } } })),
    onSuccess: refresh,
  });
  return (
    <li className="board-tile">
      {editing ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const name = (event.currentTarget.elements.namedItem('name') as HTMLInputElement).value.trim();
            if (name) rename.mutate(name);
            setEditing(false);
          }}
        >
          <input name="name" defaultValue={board.name} aria-label={t.boardName} autoFocus onBlur={() => setEditing(false)} />
        </form>
      ) : (
        <Link to={`/boards/${board._id}`}>{board.name}</Link>
      )}
      <span className="tile-actions">
        <button type="button" onClick={() => setEditing(true)} aria-label={t.renameNamed(board.name)}>
          {t.rename}
        </button>
        <button type="button" onClick={() => archive.mutate()} aria-label={t.archiveNamed(board.name)}>
          {t.archive}
        </button>
      </span>
    </li>
  );
}

/**
 * A company where the person is in no team, so shows no boards: an owner or admin is led to make a
 * team and invite people; a member is told whom to ask.
 */
function NoTeam({ companyId, companyName, administers }: { companyId: string; companyName: string; administers: boolean }) {
  return (
    <div className="empty-state">
      <Users size={40} aria-hidden="true" className="empty-state-icon" />
      <h3>{t.noTeamTitle}</h3>
      {administers ? (
        <>
          <p>{t.noTeamAdmin(companyName)}</p>
          <p className="empty-state-actions">
            <Link className="button primary" to={`/admin/${companyId}/teams`}>
              {t.createTeam}
            </Link>
            <Link className="button" to={`/admin/${companyId}/members`}>
              {t.invitePeople}
            </Link>
          </p>
        </>
      ) : (
        <p>{t.noTeamMember(companyName)}</p>
      )}
    </div>
  );
}

/** `/boards`: the boards of every team the person is in, by company. */
export function HomePage() {
  const me = useMe();
  if (!me.data) return <p className="page-pad">{t.loading}</p>;
  return (
    <div className="home page-pad">
      <h1>{t.boards}</h1>
      {me.data.companies.length === 0 ? <p className="empty-state">{t.noCompany}</p> : null}
      {me.data.companies.map((company) => {
        const teams = me.data.teams.filter((team) => team.company === company._id);
        return (
          <section key={company._id} className="company" aria-label={`${t.company} ${company.name}`}>
            <h2 className="company-name">{company.name}</h2>
            {teams.length === 0 ? <NoTeam companyId={company._id} companyName={company.name} administers={administers(company.role)} /> : null}
            {teams.map((team) => (
              <TeamBoards key={team._id} teamId={team._id} teamName={team.name} canDelete={administers(company.role)} />
            ))}
          </section>
        );
      })}
    </div>
  );
}
