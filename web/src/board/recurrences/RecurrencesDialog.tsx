import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { type FormEvent, type ReactNode, useEffect, useId, useMemo, useState } from 'react';
import { client, type Label, type Member, problem, unwrap } from '../../api.ts';
import { ToolDialog, ToolItems, type ToolMessage } from '../dialogs.tsx';
import { type BoardView, boardKey } from '../store.ts';
import type { LikeCard } from './like.ts';
import {
  browserZone,
  draftFor,
  type Frequency,
  fromRrule,
  knownZones,
  NTHS,
  type Nth,
  occurrenceWords,
  type ScheduleDraft,
  scheduleWords,
  toRrule,
  WEEKDAYS,
  type Weekday,
  weekdayName,
} from './schedule.ts';
import { recurrencesText as s } from './strings.ts';
import '../rules/rules.css';
import './recurrences.css';

type Recurrence = components['schemas']['Recurrence'];
const recurrencesKey = (boardId: string) => ['recurrences', boardId] as const;

/**
 * The board's recurring cards (the board menu, or a list's menu with that list chosen): each said
 * as its schedule in words with its next occurrences, paused and resumed by its switch, edited or
 * deleted; the editor shows the next three occurrences before saving.
 */
export default function RecurrencesDialog(props: {
  boardId: string;
  boardName: string;
  labels: Label[];
  members: Member[];
  /** A list whose menu opened the dialog: the editor opens for a new recurring card there. */
  forList: string | null;
  /** A card whose dialog opened this one: the new recurrence makes cards like it. */
  likeCard?: LikeCard | null;
  onClose: () => void;
}) {
  const { boardId } = props;
  const queryClient = useQueryClient();
  const view = queryClient.getQueryData<BoardView>(boardKey(boardId));
  const lists = useMemo(() => (view?.lists ?? []).map((list) => ({ _id: list._id, name: list.name })), [view]);
  const recurrences = useQuery({
    queryKey: recurrencesKey(boardId),
    queryFn: async () => unwrap(await client.GET('/api/v1/boards/{boardId}/recurrences', { params: { path: { boardId } } })).recurrences as Recurrence[],
  });
  const [editing, setEditing] = useState<Recurrence | 'new' | null>(props.forList || props.likeCard ? 'new' : null);
  const [message, setMessage] = useState<ToolMessage>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: recurrencesKey(boardId) });
  const failed = (caught: unknown) => setMessage({ kind: 'error', text: s.refused(problem(caught)) });
  const listName = (id: string) => lists.find((list) => list._id === id)?.name ?? '?';

  const switchOne = useMutation({
    mutationFn: async ({ recurrence, enabled }: { recurrence: Recurrence; enabled: boolean }) =>
      unwrap(await client.PATCH('/api/v1/recurrences/{recurrenceId}', { params: { path: { recurrenceId: recurrence._id } }, body: { enabled } })),
    onSettled: refresh,
    onError: failed,
  });
  const remove = useMutation({
    mutationFn: async (recurrence: Recurrence) => {
      unwrap(await client.DELETE('/api/v1/recurrences/{recurrenceId}', { params: { path: { recurrenceId: recurrence._id } } }));
      return recurrence;
    },
    onSuccess: async (recurrence) => {
      setMessage({ kind: 'info', text: s.deleted(recurrence.name) });
      await refresh();
    },
    onError: failed,
  });

  return (
    <ToolDialog label={s.recurrencesOf(props.boardName)} title={s.title} closeLabel={s.close} intro={s.intro} message={message} onClose={props.onClose}>
      <ToolItems
        editing={editing}
        editor={(edited) => (
          <RecurrenceEditor
            key={edited === 'new' ? 'new' : edited._id}
            boardId={boardId}
            recurrence={edited === 'new' ? null : edited}
            lists={lists}
            firstList={props.forList ?? lists[0]?._id ?? ''}
            like={edited === 'new' ? (props.likeCard ?? null) : null}
            labels={props.labels}
            members={props.members}
            onCancel={() => setEditing(null)}
            onSaved={async (saved) => {
              setEditing(null);
              setMessage({ kind: 'info', text: s.saved(saved.name) });
              await refresh();
            }}
          />
        )}
        newLabel={s.newRecurrence}
        onNew={() => {
          setMessage(null);
          setEditing('new');
        }}
        items={recurrences}
        words={{ title: s.title, none: s.none, loading: s.loading, refused: (error) => s.refused(problem(error)) }}
        row={(recurrence) => (
          <RecurrenceRow
            key={recurrence._id}
            recurrence={recurrence}
            listName={listName(recurrence.list)}
            onSwitch={(enabled, undo) => switchOne.mutate({ recurrence, enabled }, { onError: undo })}
            onEdit={() => {
              setMessage(null);
              setEditing(recurrence);
            }}
            onDelete={() => {
              if (window.confirm(s.confirmDelete(recurrence.name))) remove.mutate(recurrence);
            }}
          />
        )}
      />
    </ToolDialog>
  );
}

function RecurrenceRow(props: {
  recurrence: Recurrence;
  listName: string;
  onSwitch: (enabled: boolean, undo: () => void) => void;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const { recurrence } = props;
  const ids = useId();
  // the switch moves at once; the recurrence as read follows
  const [enabled, setEnabled] = useState(recurrence.enabled);
  useEffect(() => setEnabled(recurrence.enabled), [recurrence.enabled]);
  return (
    <li className={`rule-card${enabled ? '' : ' off'}`} aria-labelledby={`${ids}-name`}>
      <div className="rule-head">
        <h3 id={`${ids}-name`}>{recurrence.name}</h3>
        <label className="rule-switch">
          <input
            type="checkbox"
            role="switch"
            aria-checked={enabled}
            checked={enabled}
            aria-label={s.enabledNamed(recurrence.name)}
            onChange={(event) => {
              setEnabled(event.target.checked);
              props.onSwitch(event.target.checked, () => setEnabled(recurrence.enabled));
            }}
          />
          <span aria-hidden="true">{s.on}</span>
        </label>
      </div>
      <p className="rule-sentence">
        {scheduleWords(recurrence.rule, recurrence.startsAt, recurrence.timeZone)} · {s.inList(props.listName)}
      </p>
      {recurrence.pausedReason && !enabled ? (
        <p className="notice notice-warn rule-paused">{s.paused(recurrence.pausedReason.replace(/^Paused:\s*/, ''))}</p>
      ) : null}
      {enabled && recurrence.nextOccurrences.length ? (
        <div className="recurrence-next">
          <span className="muted" id={`${ids}-next`}>
            {s.next}
          </span>
          <ol aria-labelledby={`${ids}-next`}>
            {recurrence.nextOccurrences.map((at) => (
              <li key={at}>
                <time dateTime={at}>{occurrenceWords(at, recurrence.timeZone)}</time>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      <p className="muted recurrence-made">
        {s.made(recurrence.made)} · {s.missedShown(recurrence.missed)}
      </p>
      <div className="rule-buttons">
        <button type="button" onClick={props.onEdit} aria-label={s.editNamed(recurrence.name)}>
          {s.edit}
        </button>
        <button type="button" className="danger-button" onClick={props.onDelete} aria-label={s.deleteNamed(recurrence.name)}>
          {s.delete}
        </button>
      </div>
    </li>
  );
}

/** Tomorrow at 09:00 on the browser's clock, as a local date-time. */
function tomorrowAtNine(): string {
  const date = new Date(Date.now() + 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T09:00`;
}

type DueKind = 'none' | 'hours' | 'days';

/** A labelled control: the label names the control alone (a select wrapped in its label would be named by its choice too). */
function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}

function RecurrenceEditor(props: {
  boardId: string;
  recurrence: Recurrence | null;
  lists: { _id: string; name: string }[];
  firstList: string;
  like: LikeCard | null;
  labels: Label[];
  members: Member[];
  onSaved: (recurrence: Recurrence) => void;
  onCancel: () => void;
}) {
  const { recurrence } = props;
  const card = recurrence?.card ?? props.like ?? undefined;
  const [name, setName] = useState(card?.name ?? '');
  const [description, setDescription] = useState(card?.description ?? '');
  const [list, setList] = useState(recurrence?.list ?? props.firstList);
  const [position, setPosition] = useState<'top' | 'bottom'>(recurrence?.position ?? 'bottom');
  const [labels, setLabels] = useState<string[]>(card?.labels ?? []);
  const [members, setMembers] = useState<string[]>(card?.members ?? []);
  const [dueKind, setDueKind] = useState<DueKind>(card?.dueOffset?.unit ?? 'none');
  const [dueAmount, setDueAmount] = useState(card?.dueOffset?.amount ?? 1);
  const [startsAt, setStartsAt] = useState(recurrence?.startsAt ?? tomorrowAtNine());
  const [timeZone, setTimeZone] = useState(recurrence?.timeZone ?? browserZone());
  // a rule the editor did not make (through the API) is kept as it is until the schedule is changed here
  const [draft, setDraft] = useState<ScheduleDraft>(() => (recurrence && fromRrule(recurrence.rule, recurrence.startsAt)) || draftFor(startsAt));
  const [scheduleTouched, setScheduleTouched] = useState(false);
  const [missed, setMissed] = useState<'create' | 'skip'>(recurrence?.missed ?? 'create');
  const [error, setError] = useState<string | null>(null);
  const ids = useId();
  const zones = useMemo(() => {
    const known = knownZones();
    return known.includes(timeZone) ? known : [timeZone, ...known];
  }, [timeZone]);

  const rule = scheduleTouched || !recurrence ? toRrule(draft) : recurrence.rule;
  const scheduleReady = draft.frequency !== 'WEEKLY' || draft.days.length > 0;
  const preview = useQuery({
    queryKey: ['recurrence-preview', props.boardId, rule, startsAt, timeZone],
    enabled: scheduleReady && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(startsAt),
    queryFn: async () =>
      unwrap(
        await client.POST('/api/v1/boards/{boardId}/recurrences/preview', {
          params: { path: { boardId: props.boardId } },
          body: { rule, startsAt, timeZone },
        }),
      ).occurrences,
    retry: false,
  });

  const schedule = (change: Partial<ScheduleDraft>) => {
    setScheduleTouched(true);
    setDraft({ ...draft, ...change });
  };
  const toggle = (ids: string[], id: string) => (ids.includes(id) ? ids.filter((one) => one !== id) : [...ids, id]);

  const save = useMutation({
    mutationFn: async () => {
      const body = {
        name: name.trim(),
        card: {
          name: name.trim(),
          ...(description.trim() ? { description } : {}),
          labels,
          members,
          ...(dueKind === 'none' ? {} : { dueOffset: { amount: dueAmount, unit: dueKind } }),
        },
        list,
        position,
        rule,
        startsAt,
        timeZone,
        missed,
      };
      if (recurrence)
        return unwrap(await client.PATCH('/api/v1/recurrences/{recurrenceId}', { params: { path: { recurrenceId: recurrence._id } }, body }))
          .recurrence as Recurrence;
      return unwrap(await client.POST('/api/v1/boards/{boardId}/recurrences', { params: { path: { boardId: props.boardId } }, body })).recurrence as Recurrence;
    },
    onSuccess: props.onSaved,
    onError: (caught) => setError(s.refused(problem(caught))),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) return setError(s.nameEmpty);
    if (!scheduleReady) return setError(s.noDays);
    save.mutate();
  }

  return (
    <form className="rule-editor recurrence-editor" aria-label={recurrence ? s.editNamed(recurrence.name) : s.newRecurrence} onSubmit={submit}>
      <label className="rule-name">
        {s.cardName}
        <input value={name} onChange={(event) => setName(event.target.value)} maxLength={512} autoFocus />
      </label>
      <label className="rule-name">
        {s.description}
        <textarea value={description} rows={2} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <div className="recurrence-pair">
        <Field label={s.list}>
          {(id) => (
            <select id={id} value={list} onChange={(event) => setList(event.target.value)}>
              {props.lists.map((one) => (
                <option key={one._id} value={one._id}>
                  {one.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={s.position}>
          {(id) => (
            <select id={id} value={position} onChange={(event) => setPosition(event.target.value as 'top' | 'bottom')}>
              <option value="top">{s.top}</option>
              <option value="bottom">{s.bottom}</option>
            </select>
          )}
        </Field>
      </div>
      {props.labels.length ? (
        <fieldset className="recurrence-checks">
          <legend>{s.labels}</legend>
          {props.labels.map((label) => (
            <label key={label._id} className="check">
              <input type="checkbox" checked={labels.includes(label._id)} onChange={() => setLabels(toggle(labels, label._id))} />
              <span className="swatch" style={{ background: label.color.hex }} aria-hidden="true" />
              {label.name || label.color.name}
            </label>
          ))}
        </fieldset>
      ) : null}
      {props.members.length ? (
        <fieldset className="recurrence-checks">
          <legend>{s.members}</legend>
          {props.members.map((member) => (
            <label key={member._id} className="check">
              <input type="checkbox" checked={members.includes(member._id)} onChange={() => setMembers(toggle(members, member._id))} />
              {member.fullName}
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="recurrence-pair">
        <Field label={s.due}>
          {(id) => (
            <select id={id} value={dueKind} onChange={(event) => setDueKind(event.target.value as DueKind)}>
              <option value="none">{s.noDue}</option>
              <option value="hours">{s.hoursAfter}</option>
              <option value="days">{s.daysAfter}</option>
            </select>
          )}
        </Field>
        {dueKind !== 'none' ? (
          <label>
            {s.dueAmount}
            <input
              type="number"
              min={0}
              max={1000}
              value={dueAmount}
              onChange={(event) => setDueAmount(Math.max(0, Math.min(1000, Number(event.target.value) || 0)))}
            />
          </label>
        ) : null}
      </div>

      <fieldset className="rule-part">
        <legend>{s.schedule}</legend>
        <div className="recurrence-pair">
          <Field label={s.repeats}>
            {(id) => (
              <select id={id} value={draft.frequency} onChange={(event) => schedule({ frequency: event.target.value as Frequency })}>
                <option value="DAILY">{s.daily}</option>
                <option value="WEEKLY">{s.weekly}</option>
                <option value="MONTHLY">{s.monthly}</option>
                <option value="YEARLY">{s.yearly}</option>
              </select>
            )}
          </Field>
          <label>
            {s.startsAt}
            <input
              type="datetime-local"
              value={startsAt}
              required
              onChange={(event) => {
                if (!event.target.value) return;
                setStartsAt(event.target.value);
                // a new schedule not chosen yet follows its first day (weekly on that weekday, monthly on that day)
                if (!recurrence && !scheduleTouched) setDraft({ ...draftFor(event.target.value), frequency: draft.frequency });
              }}
            />
          </label>
          <Field label={s.timeZone}>
            {(id) => (
              <select id={id} value={timeZone} onChange={(event) => setTimeZone(event.target.value)}>
                {zones.map((zone) => (
                  <option key={zone} value={zone}>
                    {zone}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        {draft.frequency === 'WEEKLY' ? (
          <fieldset className="recurrence-checks">
            <legend>{s.onDays}</legend>
            {WEEKDAYS.map((day) => (
              <label key={day} className="check">
                <input type="checkbox" checked={draft.days.includes(day)} onChange={() => schedule({ days: toggle(draft.days, day) as Weekday[] })} />
                {weekdayName(day)}
              </label>
            ))}
          </fieldset>
        ) : null}
        {draft.frequency === 'MONTHLY' ? (
          <fieldset className="recurrence-checks">
            <legend>{s.monthlyOn}</legend>
            <label className="check">
              <input type="radio" name={`${ids}-monthly`} checked={draft.monthly === 'day'} onChange={() => schedule({ monthly: 'day' })} />
              {s.onDayOfMonth}
            </label>
            <label className="check">
              <input type="radio" name={`${ids}-monthly`} checked={draft.monthly === 'weekday'} onChange={() => schedule({ monthly: 'weekday' })} />
              {s.onWeekdayOfMonth}
            </label>
            <div className="recurrence-pair">
              {draft.monthly === 'day' ? (
                <label>
                  {s.dayOfMonth}
                  <input
                    type="number"
                    min={1}
                    max={31}
                    value={draft.dayOfMonth}
                    onChange={(event) => schedule({ dayOfMonth: Math.max(1, Math.min(31, Number(event.target.value) || 1)) })}
                  />
                </label>
              ) : (
                <>
                  <Field label={s.which}>
                    {(id) => (
                      <select id={id} value={draft.nth} onChange={(event) => schedule({ nth: event.target.value as Nth })}>
                        {NTHS.map((nth) => (
                          <option key={nth} value={nth}>
                            {s.nth[nth]}
                          </option>
                        ))}
                      </select>
                    )}
                  </Field>
                  <Field label={s.weekday}>
                    {(id) => (
                      <select id={id} value={draft.weekday} onChange={(event) => schedule({ weekday: event.target.value as Weekday })}>
                        {WEEKDAYS.map((day) => (
                          <option key={day} value={day}>
                            {weekdayName(day)}
                          </option>
                        ))}
                      </select>
                    )}
                  </Field>
                </>
              )}
            </div>
          </fieldset>
        ) : null}
        <div className="recurrence-pair">
          <Field label={s.ends}>
            {(id) => (
              <select id={id} value={draft.ends} onChange={(event) => schedule({ ends: event.target.value as ScheduleDraft['ends'] })}>
                <option value="never">{s.never}</option>
                <option value="until">{s.untilDate}</option>
                <option value="count">{s.afterCount}</option>
              </select>
            )}
          </Field>
          {draft.ends === 'until' ? (
            <label>
              {s.endDate}
              <input type="date" value={draft.until} onChange={(event) => schedule({ until: event.target.value })} />
            </label>
          ) : null}
          {draft.ends === 'count' ? (
            <label>
              {s.count}
              <input
                type="number"
                min={1}
                max={1000}
                value={draft.count}
                onChange={(event) => schedule({ count: Math.max(1, Math.min(1000, Number(event.target.value) || 1)) })}
              />
            </label>
          ) : null}
        </div>
        <Field label={s.missed}>
          {(id) => (
            <select id={id} value={missed} onChange={(event) => setMissed(event.target.value as 'create' | 'skip')}>
              <option value="create">{s.missedCreate}</option>
              <option value="skip">{s.missedSkip}</option>
            </select>
          )}
        </Field>
      </fieldset>

      <section className="rule-reads" aria-labelledby={`${ids}-next`}>
        <h3 id={`${ids}-next`}>{s.next}</h3>
        <p>{scheduleWords(rule, startsAt, timeZone)}</p>
        {preview.isError ? <p className="error">{s.refused(problem(preview.error))}</p> : null}
        {preview.data ? (
          preview.data.length ? (
            <ol aria-labelledby={`${ids}-next`} aria-live="polite">
              {preview.data.map((at) => (
                <li key={at}>
                  <time dateTime={at}>{occurrenceWords(at, timeZone)}</time>
                </li>
              ))}
            </ol>
          ) : (
            <p>{s.nextNone}</p>
          )
        ) : null}
      </section>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="composer-actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {s.save}
        </button>
        <button type="button" onClick={props.onCancel}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}
