/**
 * The people of an import, each with a choice of who they are here: a member of the team, or
 * nobody. Used before an import (the rules' suggestions chosen already) and after it, on the page
 * that maps the people the import left unmapped.
 */
import { useId } from 'react';
import { t } from '../strings.ts';

export interface ImportPerson {
  key: string;
  name: string;
  username: string | null;
  cardMemberships: number;
  itemMemberships: number;
  comments: number;
}

export interface TeamMember {
  _id: string;
  fullName: string;
  email: string;
}

/** A person as the file names them: the full name, the username, or both. */
export function personName(person: { name: string; username: string | null }): string {
  if (person.name && person.username) return `${person.name} (@${person.username})`;
  return person.name || (person.username ? `@${person.username}` : t.importSomeone);
}

export function PeopleMapping({
  people,
  members,
  chosen,
  onChoose,
  legend,
}: {
  people: readonly ImportPerson[];
  members: readonly TeamMember[];
  /** The member chosen for each person by key; '' for nobody. */
  chosen: Record<string, string>;
  onChoose: (key: string, user: string) => void;
  legend: string;
}) {
  const id = useId();
  return (
    <fieldset className="import-people">
      <legend>{legend}</legend>
      <ul>
        {people.map((person, index) => (
          <li key={person.key}>
            <label htmlFor={`${id}-${index}`}>
              <span className="import-person-name">{t.importWhoIs(personName(person))}</span>
              <span className="muted">{t.importPersonUses(person.cardMemberships, person.comments)}</span>
            </label>
            <select id={`${id}-${index}`} value={chosen[person.key] ?? ''} onChange={(event) => onChoose(person.key, event.target.value)}>
              <option value="">{t.importNobody}</option>
              {members.map((member) => (
                <option key={member._id} value={member._id}>
                  {member.fullName || member.email}
                </option>
              ))}
            </select>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
