import { Lock, SearchX } from 'lucide-react';
import { Link } from 'react-router';
import { ApiError } from '../api.ts';
import { t } from '../strings.ts';
import { Avatar } from '../ui/Avatar.tsx';

/** Whom a "not shared" answer names: the company's owners and admins (docs/decisions/0261). */
interface AskPerson {
  _id: string;
  fullName: string;
  role: string;
}

/** The `not-shared` detail of a 404 for a board of the caller's company, if that is what it is. */
export function notShared(error: unknown): { teamName: string; companyName: string; askPeople: AskPerson[] } | undefined {
  if (!(error instanceof ApiError) || error.status !== 404) return undefined;
  const detail = error.details.find((one) => one.reason === 'not-shared');
  if (!detail) return undefined;
  return {
    teamName: String(detail.teamName ?? ''),
    companyName: String(detail.companyName ?? ''),
    askPeople: Array.isArray(detail.askPeople) ? (detail.askPeople as AskPerson[]) : [],
  };
}

/**
 * What the board's address shows when the board cannot be read: a board of a team the person is
 * not in says so and whom to ask; one that does not exist (or is another company's) says not found.
 */
export function BoardUnavailable({ error }: { error: Error }) {
  const shared = notShared(error);
  if (shared)
    return (
      <div className="page-pad unavailable">
        <Lock size={40} aria-hidden="true" className="unavailable-icon" />
        <h1>{t.notSharedTitle}</h1>
        <p>{t.notSharedText(shared.teamName, shared.companyName)}</p>
        {shared.askPeople.length ? (
          <ul className="ask-people" aria-label={t.notSharedAsk}>
            {shared.askPeople.map((person) => (
              <li key={person._id}>
                <Avatar person={person} size="medium" decorative />
                <span>{person.fullName}</span>
                <span className="muted">{t.roleNames[person.role] ?? person.role}</span>
              </li>
            ))}
          </ul>
        ) : null}
        <p>
          <Link to="/boards">{t.backToBoards}</Link>
        </p>
      </div>
    );
  if (error instanceof ApiError && error.status === 404)
    return (
      <div className="page-pad unavailable">
        <SearchX size={40} aria-hidden="true" className="unavailable-icon" />
        <h1>{t.boardNotFoundTitle}</h1>
        <p>{t.boardNotFoundText}</p>
        <p>
          <Link to="/boards">{t.backToBoards}</Link>
        </p>
      </div>
    );
  return (
    <p className="page-pad" role="alert">
      {error.message}
    </p>
  );
}
