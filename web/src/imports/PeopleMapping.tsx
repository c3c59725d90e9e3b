/**
 * The people of an import, each with a choice of who they are here: a member of the team, nobody,
 * or someone to invite by email (the invitation's acceptance puts them on their cards). Used before
 * an import (the rules' suggestions chosen already) and after it, on the page that maps the people
 * the import left unmapped.
 */
import { useId } from 'react';
import { InvitationLink } from '../people/invitations.tsx';
import { t } from '../strings.ts';

export interface ImportPerson {
  key: string;
  name: string;
  username: string | null;
  cardMemberships: number;
  itemMemberships: number;
  comments: number;
  /** The email the file gives, which an invitation starts from. */
  email?: string | null;
  /** The email of an open invitation made for the person. */
  invited?: string | null;
}

/** The choice that invites a person by email rather than naming a member (no member id looks like it). */
export const INVITE = 'invite';

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
  emails,
  onEmail,
  legend,
}: {
  people: readonly ImportPerson[];
  members: readonly TeamMember[];
  /** The member chosen for each person by key; '' for nobody, INVITE to invite by email. */
  chosen: Record<string, string>;
  onChoose: (key: string, user: string) => void;
  /** The email to invite each person by, when INVITE is chosen. */
  emails: Record<string, string>;
  onEmail: (key: string, email: string) => void;
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
              {person.invited ? <span className="muted">{t.importInvitedAs(person.invited)}</span> : null}
            </label>
            <select id={`${id}-${index}`} value={chosen[person.key] ?? ''} onChange={(event) => onChoose(person.key, event.target.value)}>
              <option value="">{t.importNobody}</option>
              {members.map((member) => (
                <option key={member._id} value={member._id}>
                  {member.fullName || member.email}
                </option>
              ))}
              <option value={INVITE}>{t.importInvite}</option>
            </select>
            {chosen[person.key] === INVITE ? (
              <input
                type="email"
                required
                aria-label={t.importInviteEmail(personName(person))}
                value={emails[person.key] ?? ''}
                onChange={(event) => onEmail(person.key, event.target.value)}
              />
            ) : null}
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

/** An invitation the import made for a person of the file, as its answer gives it (the link only this once). */
export interface MadeInvitation {
  key: string;
  email: string;
  url: string;
  mailed: boolean;
}

/** The invitations a request made for people of an import: "mailed", or the link to copy (shown this once). */
export function MadeInvitations({ invitations, onDone }: { invitations: readonly MadeInvitation[]; onDone: (key: string) => void }) {
  return (
    <>
      {invitations.map((made) =>
        made.mailed ? (
          <p key={made.key} role="status">
            {t.invitationMailed(made.email)}
          </p>
        ) : (
          <InvitationLink key={made.key} link={made} onDone={() => onDone(made.key)} />
        ),
      )}
    </>
  );
}
