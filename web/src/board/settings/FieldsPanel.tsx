import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrowDown, ArrowUp, Plus, X } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { client, ifMatch, type Label, unwrap } from '../../api.ts';
import { type CustomField, FIELD_TYPES, type FieldType, fieldsKey, fieldsQuery } from '../../fields/fields.ts';
import { fieldsText as f } from '../../fields/strings.ts';
import { boardKey } from '../store.ts';
import { settingsText as s } from './strings.ts';

type LabelColor = Label['color'];
/** An option as the form holds it: an existing one keeps its `_id`. */
type OptionDraft = { _id?: string; name: string; color: string };
type FieldDraft = { name: string; type: FieldType; unit: string; showOnCard: boolean; options: OptionDraft[] };

const hasOptions = (type: FieldType) => type === 'select' || type === 'multiselect';
const errorText = (error: unknown) => s.refused(error instanceof Error ? error.message : String(error));

/** The fields changed: they and the board's faces (which show chosen fields) are read again. */
const refreshFields = (queryClient: QueryClient, boardId: string) =>
  Promise.all([queryClient.invalidateQueries({ queryKey: fieldsKey(boardId) }), queryClient.invalidateQueries({ queryKey: boardKey(boardId) })]);

/** The board's custom fields: define, rename, reorder, change options and their colours, delete (confirmed with how many cards hold a value). */
export function FieldsPanel({ boardId, colours }: { boardId: string; colours: LabelColor[] }) {
  const queryClient = useQueryClient();
  const fields = useQuery({ ...fieldsQuery(boardId), staleTime: 0 });
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ids = useId();

  const update = useMutation({
    mutationFn: async ({ field, body }: { field: CustomField; body: Record<string, unknown> }) =>
      unwrap(
        await client.PATCH('/api/v1/custom-fields/{fieldId}', {
          params: { path: { fieldId: field._id }, header: ifMatch(field.__v) as never },
          body: body as never,
        }),
      ),
    onSuccess: () => {
      setError(null);
      return refreshFields(queryClient, boardId);
    },
    onError: (caught) => {
      setError(errorText(caught));
      return refreshFields(queryClient, boardId);
    },
  });
  const remove = useMutation({
    mutationFn: async (field: CustomField) => unwrap(await client.DELETE('/api/v1/custom-fields/{fieldId}', { params: { path: { fieldId: field._id } } })),
    onSuccess: () => refreshFields(queryClient, boardId),
    onError: (caught) => setError(errorText(caught)),
  });

  const list = fields.data ?? [];
  return (
    <div className="settings-panel">
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {fields.isError ? <p className="error">{errorText(fields.error)}</p> : null}
      {fields.data?.length === 0 ? <p className="muted">{f.noFields}</p> : null}
      {!fields.data && !fields.isError ? <p className="muted">{s.loading}</p> : null}
      <ul className="label-rows" aria-label={f.customFields}>
        {list.map((field, index) =>
          editing === field._id ? (
            <li key={field._id}>
              <FieldForm
                title={f.editField(field.name)}
                colours={colours}
                initial={{
                  name: field.name,
                  type: field.type,
                  unit: field.unit,
                  showOnCard: field.showOnCard,
                  options: field.options.map((option) => ({ _id: option._id, name: option.name, color: option.color._id })),
                }}
                submitLabel={s.save}
                pending={update.isPending}
                onError={setError}
                onCancel={() => setEditing(null)}
                onSubmit={(draft) => {
                  const body: Record<string, unknown> = {};
                  if (draft.name !== field.name) body.name = draft.name;
                  if (draft.type !== field.type) body.type = draft.type;
                  if (draft.type === 'number' && draft.unit !== field.unit) body.unit = draft.unit;
                  if (draft.showOnCard !== field.showOnCard) body.showOnCard = draft.showOnCard;
                  if (hasOptions(draft.type)) body.options = draft.options;
                  if (!Object.keys(body).length) return setEditing(null);
                  update.mutate({ field, body }, { onSuccess: () => setEditing(null) });
                }}
              />
            </li>
          ) : (
            <li key={field._id} className="label-row field-row">
              <span className="field-summary">
                <strong>{field.name}</strong>
                <span className="muted">
                  {f.types[field.type]}
                  {field.unit ? ` (${field.unit})` : ''}
                  {field.showOnCard ? ` · ${f.shownOnCard}` : ''}
                </span>
                <span className="muted">{f.cardsWithValue(field.cardsWithValue)}</span>
              </span>
              {hasOptions(field.type) && field.options.length ? (
                <span className="field-options">
                  {field.options.map((option) => (
                    <span key={option._id} className="option-chip">
                      <span className="swatch" style={{ background: option.color.hex }} aria-hidden="true" />
                      {option.name}
                    </span>
                  ))}
                </span>
              ) : null}
              <span className="spacer" />
              <span className="row-actions">
                <button
                  type="button"
                  className="icon-button"
                  disabled={index === 0 || update.isPending}
                  aria-label={f.moveUp(field.name)}
                  title={f.moveUp(field.name)}
                  onClick={() => update.mutate({ field, body: { position: index - 1 } })}
                >
                  <ArrowUp size={16} aria-hidden="true" />
                </button>
                <button
                  type="button"
                  className="icon-button"
                  disabled={index === list.length - 1 || update.isPending}
                  aria-label={f.moveDown(field.name)}
                  title={f.moveDown(field.name)}
                  onClick={() => update.mutate({ field, body: { position: index + 1 } })}
                >
                  <ArrowDown size={16} aria-hidden="true" />
                </button>
                <button type="button" onClick={() => setEditing(field._id)} aria-label={f.editField(field.name)}>
                  {s.edit}
                </button>
                <button
                  type="button"
                  aria-label={f.deleteField(field.name)}
                  onClick={async () => {
                    // the count is read afresh: another person may have set values since the list was read
                    const now = await queryClient.fetchQuery({ ...fieldsQuery(boardId), staleTime: 0 }).catch(() => undefined);
                    const count = now?.find((one) => one._id === field._id)?.cardsWithValue ?? field.cardsWithValue;
                    if (window.confirm(f.confirmDelete(field.name, count))) remove.mutate(field);
                  }}
                >
                  {s.delete}
                </button>
              </span>
            </li>
          ),
        )}
      </ul>
      <NewField boardId={boardId} colours={colours} onError={setError} key={`${ids}-${list.length}`} />
    </div>
  );
}

function NewField({ boardId, colours, onError }: { boardId: string; colours: LabelColor[]; onError: (text: string) => void }) {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: async (draft: FieldDraft) =>
      unwrap(
        await client.POST('/api/v1/boards/{boardId}/custom-fields', {
          params: { path: { boardId } },
          body: {
            name: draft.name,
            type: draft.type,
            showOnCard: draft.showOnCard,
            ...(draft.type === 'number' && draft.unit ? { unit: draft.unit } : {}),
            ...(hasOptions(draft.type) ? { options: draft.options } : {}),
          },
        }),
      ),
    onSuccess: () => refreshFields(queryClient, boardId),
    onError: (caught) => onError(errorText(caught)),
  });
  return (
    <FieldForm
      title={f.newField}
      colours={colours}
      initial={{ name: '', type: 'text', unit: '', showOnCard: false, options: [] }}
      submitLabel={f.createField}
      pending={create.isPending}
      onError={onError}
      onSubmit={(draft) => create.mutate(draft)}
    />
  );
}

/** A field's form: name, type, unit of a number, whether card fronts show it, and a select's options with their colours. */
function FieldForm(props: {
  title: string;
  colours: LabelColor[];
  initial: FieldDraft;
  submitLabel: string;
  pending: boolean;
  onSubmit: (draft: FieldDraft) => void;
  onError: (text: string) => void;
  onCancel?: () => void;
}) {
  const [draft, setDraft] = useState<FieldDraft>(props.initial);
  const ids = useId();
  const firstColour = props.colours[0]?._id ?? '';
  const change = (patch: Partial<FieldDraft>) => setDraft((known) => ({ ...known, ...patch }));
  const changeOption = (index: number, patch: Partial<OptionDraft>) =>
    change({ options: draft.options.map((option, at) => (at === index ? { ...option, ...patch } : option)) });

  function submit(event: FormEvent) {
    event.preventDefault();
    const name = draft.name.trim();
    if (!name) return props.onError(s.nameEmpty);
    const options = draft.options.map((option) => ({ ...option, name: option.name.trim() })).filter((option) => option.name);
    if (hasOptions(draft.type) && !options.length) return props.onError(f.optionsNeeded);
    props.onSubmit({ ...draft, name, unit: draft.unit.trim(), options });
  }

  return (
    <form
      className="label-form field-form"
      aria-labelledby={`${ids}-title`}
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && props.onCancel) {
          event.preventDefault();
          event.stopPropagation();
          props.onCancel();
        }
      }}
    >
      <h3 id={`${ids}-title`}>{props.title}</h3>
      <div className="field-form-row">
        <label>
          {f.fieldName}
          <input value={draft.name} onChange={(event) => change({ name: event.target.value })} maxLength={512} autoFocus={Boolean(props.onCancel)} />
        </label>
        <label>
          {f.type}
          <select
            value={draft.type}
            onChange={(event) => {
              const type = event.target.value as FieldType;
              // a select starts with one option to name
              change({ type, options: hasOptions(type) && !draft.options.length ? [{ name: '', color: firstColour }] : draft.options });
            }}
          >
            {FIELD_TYPES.map((type) => (
              <option key={type} value={type}>
                {f.types[type]}
              </option>
            ))}
          </select>
        </label>
        {draft.type === 'number' ? (
          <label>
            {f.unit}
            <input value={draft.unit} onChange={(event) => change({ unit: event.target.value })} maxLength={20} aria-describedby={`${ids}-unit`} />
            <span id={`${ids}-unit`} className="field-note">
              {f.unitHint}
            </span>
          </label>
        ) : null}
      </div>
      {hasOptions(draft.type) ? (
        <fieldset className="field-options-editor">
          <legend>{f.options}</legend>
          {draft.options.map((option, index) => (
            <div key={option._id ?? `new-${index}`} className="option-editor">
              <span className="swatch" style={{ background: props.colours.find((colour) => colour._id === option.color)?.hex }} aria-hidden="true" />
              <input
                aria-label={f.optionName(index + 1)}
                value={option.name}
                maxLength={512}
                onChange={(event) => changeOption(index, { name: event.target.value })}
              />
              <select aria-label={f.optionColour(index + 1)} value={option.color} onChange={(event) => changeOption(index, { color: event.target.value })}>
                {props.colours.map((colour) => (
                  <option key={colour._id} value={colour._id}>
                    {colour.name}
                  </option>
                ))}
              </select>
              <button
                type="button"
                className="icon-button"
                aria-label={f.removeOption(option.name || f.optionName(index + 1))}
                title={f.removeOption(option.name || f.optionName(index + 1))}
                onClick={() => change({ options: draft.options.filter((_, at) => at !== index) })}
              >
                <X size={16} aria-hidden="true" />
              </button>
            </div>
          ))}
          <button
            type="button"
            onClick={() =>
              change({
                options: [...draft.options, { name: '', color: props.colours[draft.options.length % Math.max(props.colours.length, 1)]?._id ?? firstColour }],
              })
            }
          >
            <Plus size={16} aria-hidden="true" /> {f.addOption}
          </button>
        </fieldset>
      ) : null}
      <label className="check">
        <input type="checkbox" checked={draft.showOnCard} onChange={(event) => change({ showOnCard: event.target.checked })} />
        {f.showOnCard}
      </label>
      <div className="composer-actions">
        <button type="submit" className="primary" disabled={props.pending || !draft.name.trim()}>
          {props.submitLabel}
        </button>
        {props.onCancel ? (
          <button type="button" onClick={props.onCancel}>
            {s.cancel}
          </button>
        ) : null}
      </div>
    </form>
  );
}
