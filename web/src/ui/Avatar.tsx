import './ui.css';
import { initials } from '../board/filters.ts';

/**
 * Avatar colours: one stable colour per person (from their id), each dark enough for white initials
 * to meet WCAG AA (4.5:1) in both themes.
 */
const AVATAR_COLOURS = ['#1f6f43', '#0b5cd5', '#8a3ffc', '#b3261e', '#805b00', '#00687a', '#a3206b', '#4d5a6b'] as const;

export function avatarColour(id: string): string {
  let hash = 0;
  for (let index = 0; index < id.length; index++) hash = (hash * 31 + id.charCodeAt(index)) >>> 0;
  return AVATAR_COLOURS[hash % AVATAR_COLOURS.length] ?? AVATAR_COLOURS[0];
}

export interface Person {
  _id: string;
  fullName: string;
  photoUrl?: string | null;
}

/**
 * A person's face: their photo, else their initials on their colour. Named for screen readers unless
 * `decorative` (when the name is written beside it).
 */
export function Avatar({ person, size = 'small', decorative = false }: { person: Person; size?: 'small' | 'medium'; decorative?: boolean }) {
  const className = `avatar avatar-${size}`;
  if (person.photoUrl)
    return <img className={className} src={person.photoUrl} alt={decorative ? '' : person.fullName} title={person.fullName} loading="lazy" />;
  return (
    <span className={className} style={{ background: avatarColour(person._id) }} title={person.fullName}>
      <span aria-hidden="true">{initials(person.fullName)}</span>
      {decorative ? null : <span className="visually-hidden">{person.fullName} </span>}
    </span>
  );
}

/**
 * Several faces overlapping, the rest counted: a board's members, a card's, who views a board now
 * (`className` "viewers": ringed in green, `title` said beside each name).
 */
export function AvatarStack({
  people,
  max = 5,
  label,
  className,
  title,
}: {
  people: Person[];
  max?: number;
  label: string;
  className?: string;
  title?: string;
}) {
  const shown = people.slice(0, max);
  const rest = people.length - shown.length;
  return (
    <span className={className ? `avatar-stack ${className}` : 'avatar-stack'} role="group" aria-label={label} title={title}>
      {shown.map((person) => (
        <Avatar key={person._id} person={person} />
      ))}
      {rest > 0 ? (
        <span
          className="avatar avatar-small avatar-more"
          title={people
            .slice(max)
            .map((person) => person.fullName)
            .join(', ')}
        >
          +{rest}
        </span>
      ) : null}
    </span>
  );
}
