import { type Ref, useState } from 'react';
import type { Member } from '../api.ts';
import { t } from '../strings.ts';

/**
 * A name edited in place: Enter saves (a blank name is not sent), Escape gives up without closing
 * the dialog around it. The caller closes it when `onSave` answers true.
 */
export function RenameInput(props: { label: string; initial: string; onSave: (name: string) => Promise<unknown>; onCancel: () => void }) {
  const [value, setValue] = useState(props.initial);
  return (
    <input
      aria-label={props.label}
      value={value}
      autoFocus
      onChange={(event) => setValue(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          event.stopPropagation();
          props.onCancel();
        } else if (event.key === 'Enter') {
          event.preventDefault();
          const name = value.trim();
          if (name) void props.onSave(name);
        }
      }}
    />
  );
}

/** A button that opens the file picker (several files at once) and hands over what was picked. */
export function FileButton(props: { label: string; onFiles: (files: File[]) => void }) {
  return (
    <label className="file-button">
      {props.label}
      <input
        type="file"
        multiple
        className="visually-hidden"
        onChange={(event) => {
          props.onFiles([...(event.target.files ?? [])]);
          event.target.value = '';
        }}
      />
    </label>
  );
}

/** The team's members as toggles (pressed: on the card or item); one toggle request each. */
export function MemberToggles(props: {
  members: Member[];
  chosen: { _id: string }[];
  meId?: string | undefined;
  onToggle: (memberId: string) => void;
  fieldsetRef?: Ref<HTMLFieldSetElement>;
}) {
  return (
    <fieldset ref={props.fieldsetRef} className="chips">
      <legend>{t.members}</legend>
      {props.members.map((member) => (
        <button
          key={member._id}
          type="button"
          className="member-chip toggle"
          aria-pressed={props.chosen.some((one) => one._id === member._id)}
          onClick={() => props.onToggle(member._id)}
        >
          {member.fullName}
          {member._id === props.meId ? t.me : ''}
        </button>
      ))}
    </fieldset>
  );
}
