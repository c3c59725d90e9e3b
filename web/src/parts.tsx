/** Small pieces the account and administration pages share: a titled region, an outcome line, a value shown once to copy. */

import { type ReactNode, useId, useState } from 'react';
import { problem } from './api.ts';
import { t } from './strings.ts';
import './parts.css';
import { formatDate } from './i18n/messages.ts';

export const when = (iso: string) =>
  formatDate(iso, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });

/** A titled part of a page: a region named by its heading. */
export function Part({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className="page-part" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** The outcome of the last action: the server's refusal as it words it, or what was done. */
export function Outcome({ error, success }: { error: unknown; success: string | null }) {
  if (error) {
    return (
      <p role="alert" className="error">
        {problem(error)}
      </p>
    );
  }
  return (
    <p role="status" className="muted">
      {success}
    </p>
  );
}

/** A value shown this once (a link, a secret): a read-only field, a Copy button and Done, which forgets it. */
export function ShownOnce({
  label,
  hint,
  value,
  copied,
  copyFailed,
  onDone,
}: {
  label: string;
  hint: string;
  value: string;
  copied: string;
  copyFailed: string;
  onDone: () => void;
}) {
  const id = useId();
  const [copy, setCopy] = useState<string | null>(null);
  return (
    <div className="shown-once" role="group" aria-labelledby={id}>
      <label id={id} htmlFor={`${id}-value`}>
        {label}
      </label>
      <p className="muted">{hint}</p>
      <div className="inline-form">
        <input id={`${id}-value`} readOnly value={value} onFocus={(event) => event.currentTarget.select()} />
        <button
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(value).then(
              () => setCopy(copied),
              () => setCopy(copyFailed),
            )
          }
        >
          {t.copy}
        </button>
        <button type="button" onClick={onDone}>
          {t.done}
        </button>
      </div>
      <p role="status" className="muted">
        {copy}
      </p>
    </div>
  );
}

/** A one-field form that names a new thing (an API key, a passkey): the name is trimmed, and the box empties once `made` is called. */
export function NameForm(props: { label: string; submit: string; busy: boolean; describedBy?: string; onName: (name: string, made: () => void) => void }) {
  const inputId = useId();
  return (
    <form
      className="inline-form"
      onSubmit={(event) => {
        event.preventDefault();
        const input = event.currentTarget.elements.namedItem('name') as HTMLInputElement;
        const name = input.value.trim();
        if (name) props.onName(name, () => (input.value = ''));
      }}
    >
      <label htmlFor={inputId}>{props.label}</label>
      <input id={inputId} name="name" required maxLength={100} aria-describedby={props.describedBy} />
      <button type="submit" disabled={props.busy}>
        {props.submit}
      </button>
    </form>
  );
}
