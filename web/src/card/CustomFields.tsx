import { ExternalLink } from 'lucide-react';
import { useId, useState } from 'react';
import type { Card, Member } from '../api.ts';
import { type CustomField, type FieldValue, valueText } from '../fields/fields.ts';
import { fieldsText as f } from '../fields/strings.ts';
import { DateTimePicker } from '../ui/DateTimePicker.tsx';
import { START_OF_DAY } from './dates.ts';

/** One change of the card's values: each field set, or cleared with null. */
export type ValueChange = { field: string; value: FieldValue | null };
/** Saves on the revision `base` (a draft's card as it was when the typing began), else on the card as the dialog knows it now. */
export type SaveValues = (values: ValueChange[], base?: Card) => Promise<boolean>;

/**
 * Every field of the board on the card, each edited in place: a choice saves as it is made, a text
 * or number when it is left or Enter is pressed. A refused text keeps the person's words.
 */
export function CustomFields(props: {
  card: Card;
  fields: CustomField[];
  members: Member[];
  people: ReadonlyMap<string, Member>;
  save: SaveValues;
  /** The card as the dialog knows it at this moment: a refused draft is saved next on it. */
  latest: () => Card;
}) {
  const ids = useId();
  if (!props.fields.length) return null;
  const values = new Map(props.card.customFields.map((one) => [one.field, one.value]));
  return (
    <section className="custom-fields" aria-labelledby={`${ids}-fields`}>
      <h3 id={`${ids}-fields`}>{f.customFields}</h3>
      <div className="field-grid">
        {props.fields.map((field) => (
          <FieldEditor
            key={field._id}
            card={props.card}
            field={field}
            value={values.get(field._id)}
            members={props.members}
            people={props.people}
            save={props.save}
            latest={props.latest}
          />
        ))}
      </div>
    </section>
  );
}

function FieldEditor(props: {
  card: Card;
  field: CustomField;
  value: FieldValue | undefined;
  members: Member[];
  people: ReadonlyMap<string, Member>;
  save: SaveValues;
  latest: () => Card;
}) {
  const { field, value } = props;
  const id = useId();
  const set = (next: FieldValue | null) => props.save([{ field: field._id, value: next }]);
  switch (field.type) {
    case 'checkbox':
      return (
        <label className="check field-check" htmlFor={id}>
          <input id={id} type="checkbox" checked={value === true} onChange={(event) => void set(event.target.checked ? true : null)} />
          {field.name}
        </label>
      );
    case 'select':
    case 'person': {
      const choices =
        field.type === 'select'
          ? field.options.map((option) => ({ id: option._id, name: option.name }))
          : props.members.map((member) => ({ id: member._id, name: member.fullName }));
      const current = typeof value === 'string' ? value : '';
      return (
        <div className="field-item">
          <label htmlFor={id}>{field.name}</label>
          <div className="field-control">
            {field.type === 'select' ? <OptionDot field={field} optionId={current} /> : null}
            <select id={id} value={current} onChange={(event) => void set(event.target.value || null)}>
              <option value="">{f.noValue}</option>
              {/* a person who left the team still shows while chosen */}
              {current && !choices.some((choice) => choice.id === current) ? <option value={current}>{valueText(field, current, props.people)}</option> : null}
              {choices.map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.name}
                </option>
              ))}
            </select>
          </div>
        </div>
      );
    }
    case 'multiselect': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <fieldset className="field-item field-multi">
          <legend>{field.name}</legend>
          <div className="chips">
            {field.options.map((option) => {
              const on = chosen.includes(option._id);
              return (
                <button
                  key={option._id}
                  type="button"
                  className="option-toggle toggle"
                  aria-pressed={on}
                  style={{ borderColor: option.color.hex }}
                  onClick={() => void set(on ? chosen.filter((one) => one !== option._id) : [...chosen, option._id])}
                >
                  <span className="option-dot" style={{ background: option.color.hex }} aria-hidden="true" />
                  {option.name}
                </button>
              );
            })}
          </div>
        </fieldset>
      );
    }
    case 'date':
      return (
        <div className="field-item">
          <DateTimePicker label={field.name} value={typeof value === 'string' ? value : null} defaultTime={START_OF_DAY} onChange={(iso) => void set(iso)} />
        </div>
      );
    default:
      return (
        <TextEditor
          card={props.card}
          field={field}
          value={value}
          save={(next, base) => props.save([{ field: field._id, value: next }], base)}
          latest={props.latest}
        />
      );
  }
}

/** A select's chosen option shown in its colour beside the control. */
function OptionDot({ field, optionId }: { field: CustomField; optionId: string }) {
  const option = field.options.find((one) => one._id === optionId);
  return option ? <span className="option-dot" style={{ background: option.color.hex }} aria-hidden="true" /> : null;
}

/**
 * Text, number and URL: the person's draft keeps the card it started from, as the dialog's other
 * texts do, so a change made meanwhile is a 412 that names it rather than a value lost; the draft is
 * kept then, and saving again goes on the card as it is now. Saved on leaving the field or Enter.
 */
function TextEditor(props: {
  card: Card;
  field: CustomField;
  value: FieldValue | undefined;
  save: (value: FieldValue | null, base: Card) => Promise<boolean>;
  latest: () => Card;
}) {
  const { field } = props;
  const id = useId();
  const stored = props.value === undefined ? '' : String(props.value);
  const [draft, setDraftState] = useState<{ text: string; base: Card } | null>(null);
  const setDraft = (text: string | null) => setDraftState(text === null ? null : { text, base: draft?.base ?? props.card });
  const [problem, setProblem] = useState<string | null>(null);
  const shown = draft?.text ?? stored;

  async function commit() {
    if (draft === null) return;
    const text = draft.text.trim();
    if (text === stored) return setDraft(null);
    let next: FieldValue | null = text === '' ? null : text;
    if (next !== null && field.type === 'number') {
      const number = Number(text.replace(',', '.'));
      if (!Number.isFinite(number)) return setProblem(f.notANumber);
      next = number;
    }
    if (next !== null && field.type === 'url' && !/^https?:\/\/\S+$/i.test(text)) return setProblem(f.notAUrl);
    setProblem(null);
    if (await props.save(next, draft.base)) setDraftState(null);
    // refused: the words stay, and the next save is on the card as the dialog knows it now (the
    // render this commit began in may predate the card the refusal read again)
    else setDraftState({ text: draft.text, base: props.latest() });
  }

  return (
    <div className="field-item">
      <label htmlFor={id}>{field.name}</label>
      <div className="field-control">
        <input
          id={id}
          type={field.type === 'number' ? 'text' : field.type === 'url' ? 'url' : 'text'}
          inputMode={field.type === 'number' ? 'decimal' : undefined}
          value={shown}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          maxLength={5000}
          onChange={(event) => {
            setDraft(event.target.value);
            setProblem(null);
          }}
          onBlur={() => void commit()}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              void commit();
            } else if (event.key === 'Escape' && draft !== null) {
              event.preventDefault();
              event.stopPropagation();
              setDraft(null);
              setProblem(null);
            }
          }}
        />
        {field.type === 'number' && field.unit ? <span className="field-unit">{field.unit}</span> : null}
        {field.type === 'url' && stored && draft === null ? (
          <a className="icon-button" href={stored} target="_blank" rel="noopener noreferrer" aria-label={f.openLink(stored)} title={f.openLink(stored)}>
            <ExternalLink size={16} aria-hidden="true" />
          </a>
        ) : null}
      </div>
      {problem ? (
        <p id={`${id}-problem`} className="error field-problem">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
