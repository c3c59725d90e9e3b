/**
 * Who the source's people are here: each is matched to one member of the team, by id (a Taskboard
 * export of this deployment), else by full name, else by username (a Trello username is matched to
 * the local part of a member's email). A name two members share matches neither.
 */
import type { PlannedPerson } from './plan.ts';

export interface TeamPerson {
  id: string;
  full_name: string;
  email: string;
}

export interface MatchedPeople {
  /** The member each matched person is, by the source's key. */
  users: Map<string, string>;
  matched: { name: string; username: string | null; user: string }[];
  unmatched: { name: string; username: string | null }[];
}

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

export function matchPeople(people: Iterable<PlannedPerson>, members: readonly TeamPerson[], matchIds: boolean): MatchedPeople {
  const ids = new Set(members.map((member) => member.id));
  const byName = uniqueBy(members, (member) => fold(member.full_name));
  const byUsername = uniqueBy(members, (member) => fold(member.email.split('@')[0] ?? ''));
  const result: MatchedPeople = { users: new Map(), matched: [], unmatched: [] };
  for (const person of people) {
    const user =
      (matchIds && ids.has(person.key) ? person.key : undefined) ??
      (person.fullName ? byName.get(fold(person.fullName)) : undefined) ??
      (person.username ? byUsername.get(fold(person.username)) : undefined);
    if (user) {
      result.users.set(person.key, user);
      result.matched.push({ name: person.fullName, username: person.username, user });
    } else {
      result.unmatched.push({ name: person.fullName, username: person.username });
    }
  }
  return result;
}
