import { useMutation } from '@tanstack/react-query';
import { Plus, X } from 'lucide-react';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { client, type Label, type Member, problem, unwrap } from '../../api.ts';
import {
  ACTION_KINDS,
  type ActionKind,
  actionKind,
  CONDITION_KINDS,
  type ConditionKind,
  complete,
  conditionKind,
  type Defaults,
  fromLocalInput,
  oneEach,
  TRIGGER_KINDS,
  type TriggerKind,
  toLocalInput,
  triggerKind,
} from './model.ts';
import { rulesText as r } from './strings.ts';
import { changeWords, type DryRunChange, type Names, type Rule, type RuleAction, type RuleCondition, type RuleTrigger, ruleSentence } from './words.ts';

export interface BoardChoices {
  lists: { _id: string; name: string }[];
  labels: Label[];
  members: Member[];
  names: Names;
}

const MAX_PARTS = 10;

/** The actions as the API takes them: a checklist's items without the blank lines typed between them. */
const cleaned = (actions: RuleAction[]): RuleAction[] =>
  actions.map((action) =>
    action.type === 'checklist.add'
      ? {
          ...action,
          items: action.items
            .map((item) => item.trim())
            .filter(Boolean)
            .slice(0, 50),
        }
      : action,
  );

interface DryRun {
  cards: { card: string; name: string; changes: DryRunChange[] }[];
  unchanged: number;
}

/** Builds a rule in words: a trigger, conditions and actions chosen from phrases that read as a sentence. */
export function RuleEditor(props: { boardId: string; rule: Rule | null; choices: BoardChoices; onSaved: (rule: Rule) => void; onCancel: () => void }) {
  const { choices, rule } = props;
  const defaults: Defaults = { list: choices.lists[0]?._id ?? '', label: choices.labels[0]?._id ?? '', user: choices.members[0]?._id ?? '' };
  const [name, setName] = useState(rule?.name ?? '');
  const [trigger, setTrigger] = useState<RuleTrigger>(rule?.trigger ?? TRIGGER_KINDS.movedInto(defaults));
  const [conditions, setConditions] = useState<RuleCondition[]>(rule?.conditions ?? []);
  const [actions, setActions] = useState<RuleAction[]>(rule ? oneEach(rule.actions) : [ACTION_KINDS.complete()]);
  const [error, setError] = useState<string | null>(null);
  const [dryRun, setDryRun] = useState<DryRun | null>(null);
  const ids = useId();
  const ready = complete(trigger, conditions, actions);

  const save = useMutation({
    mutationFn: async () => {
      const body = { name: name.trim(), trigger, conditions, actions: cleaned(actions) };
      if (rule) return unwrap(await client.PATCH('/api/v1/rules/{ruleId}', { params: { path: { ruleId: rule._id } }, body })).rule as Rule;
      return unwrap(await client.POST('/api/v1/boards/{boardId}/rules', { params: { path: { boardId: props.boardId } }, body })).rule as Rule;
    },
    onSuccess: props.onSaved,
    onError: (caught) => setError(r.refused(problem(caught))),
  });
  const tryIt = useMutation({
    mutationFn: async () =>
      unwrap(
        await client.POST('/api/v1/boards/{boardId}/rules/dry-run', {
          params: { path: { boardId: props.boardId } },
          body: { trigger, conditions, actions: cleaned(actions) },
        }),
      ),
    onSuccess: (answer) => {
      setError(null);
      setDryRun({ cards: answer.cards, unchanged: answer.unchanged });
    },
    onError: (caught) => setError(r.refused(problem(caught))),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) return setError(r.nameEmpty);
    if (!ready) return setError(r.incomplete);
    save.mutate();
  }
  const edited =
    <T,>(set: (update: (parts: T[]) => T[]) => void, index: number) =>
    (part: T) => {
      setDryRun(null);
      set((parts) => parts.map((one, at) => (at === index ? part : one)));
    };

  return (
    <form className="rule-editor" aria-label={rule ? r.editRule(rule.name) : r.newRule} onSubmit={submit}>
      <label className="rule-name">
        {r.ruleName}
        <input value={name} onChange={(event) => setName(event.target.value)} maxLength={512} autoFocus />
      </label>
      <fieldset className="rule-part">
        <legend>{r.when}</legend>
        <div className="rule-row">
          <select
            aria-label={r.triggerKind}
            value={triggerKind(trigger)}
            onChange={(event) => {
              setDryRun(null);
              setTrigger(TRIGGER_KINDS[event.target.value as TriggerKind](defaults));
            }}
          >
            {Object.keys(TRIGGER_KINDS).map((kind) => (
              <option key={kind} value={kind}>
                {r.triggerChoices[kind as TriggerKind]}
              </option>
            ))}
          </select>
          <TriggerFields
            trigger={trigger}
            choices={choices}
            onChange={(next) => {
              setDryRun(null);
              setTrigger(next);
            }}
          />
        </div>
      </fieldset>
      <fieldset className="rule-part">
        <legend>{r.andIf}</legend>
        {conditions.map((condition, index) => (
          <div key={index} className="rule-row" role="group" aria-label={r.conditionKind(index + 1)}>
            <select
              aria-label={r.conditionKind(index + 1)}
              value={conditionKind(condition)}
              onChange={(event) => edited(setConditions, index)(CONDITION_KINDS[event.target.value as ConditionKind](defaults))}
            >
              {Object.keys(CONDITION_KINDS).map((kind) => (
                <option key={kind} value={kind}>
                  {r.conditionChoices[kind as ConditionKind]}
                </option>
              ))}
            </select>
            <ConditionFields condition={condition} choices={choices} onChange={edited(setConditions, index)} />
            <RemoveButton label={r.removeCondition(index + 1)} onClick={() => setConditions(conditions.filter((_, at) => at !== index))} />
          </div>
        ))}
        <button
          type="button"
          className="rule-add"
          disabled={conditions.length >= MAX_PARTS}
          onClick={() => setConditions([...conditions, CONDITION_KINDS.hasLabel(defaults)])}
        >
          <Plus size={16} aria-hidden="true" />
          {r.addCondition}
        </button>
      </fieldset>
      <fieldset className="rule-part">
        <legend>{r.thenDo}</legend>
        {actions.map((action, index) => (
          <div key={index} className="rule-row" role="group" aria-label={r.actionKind(index + 1)}>
            <select
              aria-label={r.actionKind(index + 1)}
              value={actionKind(action)}
              onChange={(event) => edited(setActions, index)(ACTION_KINDS[event.target.value as ActionKind](defaults))}
            >
              {Object.keys(ACTION_KINDS).map((kind) => (
                <option key={kind} value={kind}>
                  {r.actionChoices[kind as ActionKind]}
                </option>
              ))}
            </select>
            <ActionFields action={action} choices={choices} onChange={edited(setActions, index)} />
            {actions.length > 1 ? <RemoveButton label={r.removeAction(index + 1)} onClick={() => setActions(actions.filter((_, at) => at !== index))} /> : null}
          </div>
        ))}
        <button
          type="button"
          className="rule-add"
          disabled={actions.length >= MAX_PARTS}
          onClick={() => setActions([...actions, ACTION_KINDS.addLabel(defaults)])}
        >
          <Plus size={16} aria-hidden="true" />
          {r.addAction}
        </button>
      </fieldset>
      <section className="rule-reads" aria-labelledby={`${ids}-reads`}>
        <h3 id={`${ids}-reads`}>{r.reads}</h3>
        <p aria-live="polite">{ruleSentence({ trigger, conditions, actions }, choices.names)}</p>
      </section>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="composer-actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {r.save}
        </button>
        <button type="button" disabled={!ready || tryIt.isPending} onClick={() => tryIt.mutate()}>
          {r.tryIt}
        </button>
        <button type="button" onClick={props.onCancel}>
          {r.cancel}
        </button>
      </div>
      {dryRun ? <DryRunResult result={dryRun} names={choices.names} /> : null}
    </form>
  );
}

function RemoveButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button type="button" className="icon-button rule-remove" aria-label={label} title={label} onClick={onClick}>
      <X size={16} aria-hidden="true" />
    </button>
  );
}

function DryRunResult({ result, names }: { result: DryRun; names: Names }) {
  const ids = useId();
  return (
    <section className="rule-dry-run" aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>{r.dryRun}</h3>
      <p role="status">{r.dryRunCards(result.cards.length)}</p>
      {result.cards.length ? (
        <ul>
          {result.cards.map((card) => (
            <li key={card.card}>
              <strong>{card.name}</strong>: {card.changes.length ? card.changes.map((change) => changeWords(change, names)).join('; ') : r.nothingToChange}
            </li>
          ))}
        </ul>
      ) : null}
      {result.unchanged ? <p className="muted">{r.dryRunOthers(result.unchanged)}</p> : null}
    </section>
  );
}

/** A choice among the board's lists, labels or members; `any` adds a first choice meaning "whichever". */
function Choice(props: {
  label: string;
  value: string | undefined;
  options: { id: string; name: string }[];
  any?: string;
  onChange: (id: string | undefined) => void;
}) {
  return (
    <select aria-label={props.label} value={props.value ?? ''} onChange={(event) => props.onChange(event.target.value || undefined)}>
      {props.any !== undefined ? <option value="">{props.any}</option> : null}
      {props.options.map((option) => (
        <option key={option.id} value={option.id}>
          {option.name}
        </option>
      ))}
    </select>
  );
}

const listOptions = (choices: BoardChoices) => choices.lists.map((list) => ({ id: list._id, name: list.name }));
const labelOptions = (choices: BoardChoices) => choices.labels.map((label) => ({ id: label._id, name: label.name || label.color.name }));
const memberOptions = (choices: BoardChoices) => choices.members.map((member) => ({ id: member._id, name: member.fullName }));

/** A number of hours or days. */
function Span(props: { amount: number; unit: 'hours' | 'days'; onChange: (amount: number, unit: 'hours' | 'days') => void; after?: ReactNode }) {
  return (
    <>
      <input
        type="number"
        className="rule-amount"
        aria-label={r.amount}
        min={1}
        max={1000}
        value={props.amount}
        onChange={(event) => props.onChange(Math.max(1, Math.min(1000, Number(event.target.value) || 1)), props.unit)}
      />
      <select aria-label={r.unit} value={props.unit} onChange={(event) => props.onChange(props.amount, event.target.value as 'hours' | 'days')}>
        <option value="hours">{r.hours}</option>
        <option value="days">{r.days}</option>
      </select>
      {props.after}
    </>
  );
}

function DateField({ value, onChange }: { value: string; onChange: (iso: string) => void }) {
  return (
    <input
      type="datetime-local"
      aria-label={r.date}
      value={toLocalInput(value)}
      onChange={(event) => {
        if (event.target.value) onChange(fromLocalInput(event.target.value));
      }}
    />
  );
}

function TriggerFields({ trigger, choices, onChange }: { trigger: RuleTrigger; choices: BoardChoices; onChange: (trigger: RuleTrigger) => void }) {
  switch (trigger.type) {
    case 'card.created':
      return (
        <Choice
          label={r.listChoice}
          value={trigger.list}
          any={r.anyList}
          options={listOptions(choices)}
          onChange={(list) => onChange(list ? { ...trigger, list } : { type: trigger.type })}
        />
      );
    case 'card.moved.into':
    case 'card.moved.out':
      return (
        <Choice label={r.listChoice} value={trigger.list} options={listOptions(choices)} onChange={(list) => onChange({ ...trigger, list: list ?? '' })} />
      );
    case 'label.added':
    case 'label.removed':
      return (
        <Choice
          label={r.labelChoice}
          value={trigger.label}
          any={r.anyLabel}
          options={labelOptions(choices)}
          onChange={(label) => onChange(label ? { ...trigger, label } : { type: trigger.type })}
        />
      );
    case 'member.added':
    case 'member.removed':
      return (
        <Choice
          label={r.memberChoice}
          value={trigger.user}
          any={r.anyMember}
          options={memberOptions(choices)}
          onChange={(user) => onChange(user ? { ...trigger, user } : { type: trigger.type })}
        />
      );
    case 'due.soon':
      return (
        <Span amount={trigger.amount} unit={trigger.unit} onChange={(amount, unit) => onChange({ ...trigger, amount, unit })} after={<span>{r.away}</span>} />
      );
    case 'comment.contains':
      return <input aria-label={r.text} value={trigger.text} maxLength={200} onChange={(event) => onChange({ ...trigger, text: event.target.value })} />;
    default:
      return null;
  }
}

function ConditionFields({ condition, choices, onChange }: { condition: RuleCondition; choices: BoardChoices; onChange: (condition: RuleCondition) => void }) {
  switch (condition.type) {
    case 'label':
      return (
        <Choice
          label={r.labelChoice}
          value={condition.label}
          options={labelOptions(choices)}
          onChange={(label) => onChange({ ...condition, label: label ?? '' })}
        />
      );
    case 'member':
      return (
        <Choice
          label={r.memberChoice}
          value={condition.user}
          options={memberOptions(choices)}
          onChange={(user) => onChange({ ...condition, user: user ?? '' })}
        />
      );
    case 'list':
      return (
        <Choice label={r.listChoice} value={condition.list} options={listOptions(choices)} onChange={(list) => onChange({ ...condition, list: list ?? '' })} />
      );
    case 'due.before':
    case 'due.after':
      return <DateField value={condition.date} onChange={(date) => onChange({ ...condition, date })} />;
    default:
      return null;
  }
}

function ActionFields({ action, choices, onChange }: { action: RuleAction; choices: BoardChoices; onChange: (action: RuleAction) => void }) {
  switch (action.type) {
    case 'move':
      return (
        <>
          <select
            aria-label={r.position}
            value={action.position}
            onChange={(event) => onChange({ ...action, position: event.target.value as 'top' | 'bottom' })}
          >
            <option value="top">{r.top}</option>
            <option value="bottom">{r.bottom}</option>
          </select>
          <Choice label={r.listChoice} value={action.list} options={listOptions(choices)} onChange={(list) => onChange({ ...action, list: list ?? '' })} />
        </>
      );
    case 'labels.add':
    case 'labels.remove':
    case 'labels.toggle':
      return (
        <Choice
          label={r.labelChoice}
          value={action.labels[0]}
          options={labelOptions(choices)}
          onChange={(label) => onChange({ ...action, labels: [label ?? ''] })}
        />
      );
    case 'members.add':
    case 'members.remove':
    case 'members.toggle':
      return (
        <Choice
          label={r.memberChoice}
          value={action.users[0]}
          options={memberOptions(choices)}
          onChange={(user) => onChange({ ...action, users: [user ?? ''] })}
        />
      );
    case 'due.set':
      return action.date ? <DateField value={action.date} onChange={(date) => onChange({ ...action, date })} /> : null;
    case 'due.shift':
      return (
        <>
          <select
            aria-label={r.direction}
            value={action.direction}
            onChange={(event) => onChange({ ...action, direction: event.target.value as 'later' | 'earlier' })}
          >
            <option value="later">{r.laterBy}</option>
            <option value="earlier">{r.earlierBy}</option>
          </select>
          <Span amount={action.amount} unit={action.unit} onChange={(amount, unit) => onChange({ ...action, amount, unit })} />
        </>
      );
    case 'checklist.add':
      return (
        <>
          <input aria-label={r.checklistName} value={action.name} maxLength={512} onChange={(event) => onChange({ ...action, name: event.target.value })} />
          <textarea
            aria-label={r.checklistItems}
            placeholder={r.checklistItems}
            rows={2}
            value={action.items.join('\n')}
            onChange={(event) => onChange({ ...action, items: event.target.value.split('\n') })}
          />
        </>
      );
    case 'comment':
      return <textarea aria-label={r.comment} rows={2} value={action.text} onChange={(event) => onChange({ ...action, text: event.target.value })} />;
    case 'card.create':
      return (
        <>
          <input aria-label={r.cardName} value={action.name} maxLength={512} onChange={(event) => onChange({ ...action, name: event.target.value })} />
          <span>{r.inList}</span>
          <Choice label={r.listChoice} value={action.list} options={listOptions(choices)} onChange={(list) => onChange({ ...action, list: list ?? '' })} />
        </>
      );
    default:
      return null;
  }
}
