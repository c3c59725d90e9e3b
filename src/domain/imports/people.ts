/**
 * Who the source's people are here (docs/decisions/0155-import-people-mapping.md): each is matched to
 * one member of the team, by id (a Taskboard export of this deployment), else by email (when the
 * file gives one), else by full name, else by username (a Trello username is matched to the local
 * part of a member's email). A name two members share matches neither. A mapping the importer chose
 * overrides the match, person by person, and may say "nobody".
 */
import { ValidationError } from '../shared/errors.ts';
import type { PlannedPerson } from './plan.ts';

export interface TeamPerson {
  id: string;
  full_name: string;
  email: string;
}

/** How a person was matched: the importer's choice, or the rule that found the member. */
export type MatchedBy = 'chosen' | 'id' | 'email' | 'name' | 'username';

export interface MatchedPerson {
  key: string;
  name: string;
  username: string | null;
  user: string;
  by: MatchedBy;
}

export interface UnmatchedPerson {
  key: string;
  name: string;
  username: string | null;
}

export interface MatchedPeople {
  /** The member each matched person is, by the source's key. */
  users: Map<string, string>;
  matched: MatchedPerson[];
  unmatched: UnmatchedPerson[];
}

/** The importer's mapping: a person's key → a member's id, or null for nobody. */
export type ChosenPeople = Record<string, string | null>;

const fold = (text: string) => text.normalize('NFC').trim().toLowerCase();

/** A map of folded keys to members, a key two members share left out. */
function uniqueBy(members: readonly TeamPerson[], key: (member: TeamPerson) => string): Map<string, string> {
  const found = new Map<string, string | null>();
  for (const member of members) {
    const k = key(member);
    if (!k) continue;
    found.set(k, found.has(k) ? null : member.id);
  }
  return new Map([...found].filter((entry): entry is [string, string] => entry[1] !== null));
}

/** The member the rules find for a person, and by which rule. */
function suggest(
  person: PlannedPerson,
  index: { ids: Set<string>; byEmail: Map<string, string>; byName: Map<string, string>; byUsername: Map<string, string> },
  matchIds: boolean,
): { user: string; by: MatchedBy } | undefined {
  if (matchIds && index.ids.has(person.key)) return { user: person.key, by: 'id' };
  const email = person.email ? index.byEmail.get(fold(person.email)) : undefined;
  if (email) return { user: email, by: 'email' };
  const name = person.fullName ? index.byName.get(fold(person.fullName)) : undefined;
  if (name) return { user: name, by: 'name' };
  const username = person.username ? index.byUsername.get(fold(person.username)) : undefined;
  return username ? { user: username, by: 'username' } : undefined;
}

/**
 * Matches the people of a file to the team's members. `chosen` (the importer's mapping) comes first;
 * it may name only people of the file and members of the team (a 400 naming the place otherwise).
 */
export function matchPeople(people: Iterable<PlannedPerson>, members: readonly TeamPerson[], matchIds: boolean, chosen: ChosenPeople = {}): MatchedPeople {
  const all = [...people];
  const ids = new Set(members.map((member) => member.id));
  const keys = new Set(all.map((person) => person.key));
  const problems = Object.entries(chosen).flatMap(([key, user]) =>
    !keys.has(key)
      ? [{ field: `body.people.${key}`, message: 'names no person of the file' }]
      : user !== null && !ids.has(user)
        ? [{ field: `body.people.${key}`, message: `user ${user} is not a member of the team` }]
        : [],
  );
  const [first] = problems;
  if (first) throw new ValidationError(`The people mapping is not right: ${first.field} ${first.message}`, problems);
  const index = {
    ids,
    byEmail: uniqueBy(members, (member) => fold(member.email)),
    byName: uniqueBy(members, (member) => fold(member.full_name)),
    byUsername: uniqueBy(members, (member) => fold(member.email.split('@')[0] ?? '')),
  };
  const result: MatchedPeople = { users: new Map(), matched: [], unmatched: [] };
  for (const person of all) {
    const choice = Object.hasOwn(chosen, person.key) ? chosen[person.key] : undefined;
    const found = choice === null ? undefined : choice !== undefined ? { user: choice, by: 'chosen' as const } : suggest(person, index, matchIds);
    if (found) {
      result.users.set(person.key, found.user);
      result.matched.push({ key: person.key, name: person.fullName, username: person.username, user: found.user, by: found.by });
    } else {
      result.unmatched.push({ key: person.key, name: person.fullName, username: person.username });
    }
  }
  return result;
}

/** Each person of the file with the member the rules suggest (what the import dialog shows before the import). */
export function suggestPeople(people: Iterable<PlannedPerson>, members: readonly TeamPerson[], matchIds: boolean) {
  const all = [...people];
  const matched = matchPeople(all, members, matchIds);
  const byKey = new Map(matched.matched.map((person) => [person.key, person]));
  return all.map((person) => {
    const match = byKey.get(person.key);
    return { key: person.key, name: person.fullName, username: person.username, email: person.email ?? null, user: match?.user ?? null, by: match?.by ?? null };
  });
}
