import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState } from 'react';
import { client, type Label, type Member, problem, unwrap } from '../../api.ts';
import { formatDate } from '../../i18n/messages.ts';
import { ToolDialog, ToolItems, type ToolMessage } from '../dialogs.tsx';
import { type BoardView, boardKey } from '../store.ts';
import { type BoardChoices, RuleEditor } from './RuleEditor.tsx';
import { rulesText as r } from './strings.ts';
import { type Names, type Rule, type RuleRun, ruleSentence } from './words.ts';
import './rules.css';

const rulesKey = (boardId: string) => ['rules', boardId] as const;

/**
 * The board's Rules page (the board menu): its rules read as sentences, each switched on or off,
 * edited, deleted, with its runs' history; a paused rule says why. New and edited rules are built
 * in words in the editor beside it.
 */
export default function RulesDialog(props: { boardId: string; boardName: string; labels: Label[]; members: Member[]; onClose: () => void }) {
  const { boardId } = props;
  const queryClient = useQueryClient();
  const view = queryClient.getQueryData<BoardView>(boardKey(boardId));
  const rules = useQuery({
    queryKey: rulesKey(boardId),
    queryFn: async () => unwrap(await client.GET('/api/v1/boards/{boardId}/rules', { params: { path: { boardId } } })).rules as Rule[],
  });
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const [message, setMessage] = useState<ToolMessage>(null);
  const choices: BoardChoices = useMemo(() => {
    const lists = view?.lists ?? [];
    const listNames = new Map(lists.map((list) => [list._id, list.name]));
    const labelNames = new Map(props.labels.map((label) => [label._id, label.name || label.color.name]));
    const userNames = new Map(props.members.map((member) => [member._id, member.fullName]));
    const names: Names = {
      list: (id) => listNames.get(id) ?? r.anotherList,
      label: (id) => labelNames.get(id) ?? '?',
      user: (id) => userNames.get(id) ?? r.someone,
    };
    return { lists, labels: props.labels, members: props.members, names };
  }, [view, props.labels, props.members]);
  const cardNames = useMemo(() => new Map((view?.lists ?? []).flatMap((list) => list.cards.map((card) => [card._id, card.name]))), [view]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: rulesKey(boardId) });
  const failed = (caught: unknown) => setMessage({ kind: 'error', text: r.refused(problem(caught)) });

  const switchRule = useMutation({
    mutationFn: async ({ rule, enabled }: { rule: Rule; enabled: boolean }) =>
      unwrap(await client.PATCH('/api/v1/rules/{ruleId}', { params: { path: { ruleId: rule._id } }, body: { enabled } })),
    onSettled: refresh,
    onError: failed,
  });
  const remove = useMutation({
    mutationFn: async (rule: Rule) => {
      unwrap(await client.DELETE('/api/v1/rules/{ruleId}', { params: { path: { ruleId: rule._id } } }));
      return rule;
    },
    onSuccess: async (rule) => {
      setMessage({ kind: 'info', text: r.deleted(rule.name) });
      await refresh();
    },
    onError: failed,
  });

  return (
    <ToolDialog label={r.rulesOf(props.boardName)} title={r.title} closeLabel={r.close} intro={r.intro} message={message} onClose={props.onClose}>
      <ToolItems
        editing={editing}
        editor={(edited) => (
          <RuleEditor
            key={edited === 'new' ? 'new' : edited._id}
            boardId={boardId}
            rule={edited === 'new' ? null : edited}
            choices={choices}
            onCancel={() => setEditing(null)}
            onSaved={async (rule) => {
              setEditing(null);
              setMessage({ kind: 'info', text: r.saved(rule.name) });
              await refresh();
            }}
          />
        )}
        newLabel={r.newRule}
        onNew={() => {
          setMessage(null);
          setEditing('new');
        }}
        items={rules}
        words={{ title: r.title, none: r.none, loading: r.loading, refused: (error) => r.refused(problem(error)) }}
        row={(rule) => (
          <RuleRow
            key={rule._id}
            rule={rule}
            names={choices.names}
            cardNames={cardNames}
            onSwitch={(enabled, undo) => switchRule.mutate({ rule, enabled }, { onError: undo })}
            onEdit={() => {
              setMessage(null);
              setEditing(rule);
            }}
            onDelete={() => {
              if (window.confirm(r.confirmDelete(rule.name))) remove.mutate(rule);
            }}
          />
        )}
      />
    </ToolDialog>
  );
}

function RuleRow(props: {
  rule: Rule;
  names: Names;
  cardNames: ReadonlyMap<string, string>;
  onSwitch: (enabled: boolean, undo: () => void) => void;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const { rule } = props;
  const [history, setHistory] = useState(false);
  // the switch moves at once; the rule as read follows (a read that started before the click cannot put it back)
  const [enabled, setEnabled] = useState(rule.enabled);
  useEffect(() => setEnabled(rule.enabled), [rule.enabled]);
  const ids = useId();
  return (
    <li className={`rule-card${enabled ? '' : ' off'}`} aria-labelledby={`${ids}-name`}>
      <div className="rule-head">
        <h3 id={`${ids}-name`}>{rule.name}</h3>
        <label className="rule-switch">
          <input
            type="checkbox"
            role="switch"
            aria-checked={enabled}
            checked={enabled}
            aria-label={r.enabledNamed(rule.name)}
            onChange={(event) => {
              setEnabled(event.target.checked);
              props.onSwitch(event.target.checked, () => setEnabled(rule.enabled));
            }}
          />
          <span aria-hidden="true">{r.on}</span>
        </label>
      </div>
      <p className="rule-sentence">{ruleSentence(rule, props.names)}</p>
      {rule.pausedReason && !enabled ? <p className="notice notice-warn rule-paused">{r.paused(rule.pausedReason.replace(/^Paused:\s*/, ''))}</p> : null}
      <div className="rule-buttons">
        <button type="button" onClick={props.onEdit} aria-label={r.editRule(rule.name)}>
          {r.edit}
        </button>
        <button type="button" aria-expanded={history} aria-controls={`${ids}-runs`} onClick={() => setHistory(!history)} aria-label={r.historyOf(rule.name)}>
          {r.history}
        </button>
        <button type="button" className="danger-button" onClick={props.onDelete} aria-label={r.deleteRule(rule.name)}>
          {r.delete}
        </button>
      </div>
      <div id={`${ids}-runs`}>{history ? <RunHistory rule={rule} cardNames={props.cardNames} /> : null}</div>
    </li>
  );
}

const RUNS_SHOWN = 20;

function RunHistory({ rule, cardNames }: { rule: Rule; cardNames: ReadonlyMap<string, string> }) {
  const runs = useQuery({
    queryKey: [...rulesKey(rule.board), rule._id, 'runs'],
    queryFn: async () =>
      unwrap(await client.GET('/api/v1/rules/{ruleId}/runs', { params: { path: { ruleId: rule._id }, query: { limit: RUNS_SHOWN } } })).runs as RuleRun[],
  });
  const ids = useId();
  if (runs.isError) return <p className="error">{r.refused(problem(runs.error))}</p>;
  if (!runs.data) return <p className="muted">{r.loading}</p>;
  return (
    <section className="rule-runs" aria-labelledby={`${ids}-runs`}>
      <h4 id={`${ids}-runs`}>{r.runs}</h4>
      {runs.data.length ? (
        <ol aria-labelledby={`${ids}-runs`}>
          {runs.data.map((run) => (
            <li key={run._id} className="rule-run">
              <span className={`run-status run-${run.status}`}>{r.status[run.status]}</span>
              <span>{run.card ? r.runOn(cardNames.get(run.card) ?? r.goneCard) : r.dueRun}</span>
              <time dateTime={run.createdAt} className="muted">
                {formatDate(run.createdAt, { dateStyle: 'medium', timeStyle: 'short' })}
              </time>
              {run.status === 'done' ? <span className="muted">{r.actionsTaken(run.actionsTaken)}</span> : null}
              {run.depth > 1 ? <span className="muted">{r.chained(run.depth)}</span> : null}
              {run.reason ? <span className="rule-run-reason">{run.reason}</span> : null}
            </li>
          ))}
        </ol>
      ) : (
        <p className="muted">{r.noRuns}</p>
      )}
    </section>
  );
}
