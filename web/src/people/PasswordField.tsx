import { useId, useState } from 'react';
import { peopleText } from './strings.ts';
import './people.css';

/** A new password: its rules stated before typing (and read with the field), shown on request. */
export function NewPasswordField({ label, name = 'password' }: { label: string; name?: string }) {
  const id = useId();
  const [shown, setShown] = useState(false);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <p id={`${id}-rules`} className="field-hint">
        {peopleText.passwordRules}
      </p>
      <input
        id={id}
        name={name}
        type={shown ? 'text' : 'password'}
        autoComplete="new-password"
        minLength={12}
        maxLength={256}
        required
        aria-describedby={`${id}-rules`}
      />
      <label className="check">
        <input type="checkbox" checked={shown} onChange={(event) => setShown(event.target.checked)} />
        {peopleText.showPassword}
      </label>
    </div>
  );
}
