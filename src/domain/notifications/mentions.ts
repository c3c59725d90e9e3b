/**
 * Mentions (docs/decisions/0250-mentions.md): `@Handle` in a comment, a reply or a card's description
 * tells that person, when they reach the card. A handle is `@` and the person's full name without its
 * spaces (`@AnaLopez`, what the web app's suggestions insert), matched without regard to case; it
 * stands alone (no letter, digit or `_` just before the `@` or just after the handle, so an email
 * address names nobody), and text in code (fenced blocks and `inline code`) names nobody. A handle
 * of someone outside the card's reach is plain text and tells nobody.
 */
import type { Transaction } from '../../storage/database.ts';
import { peopleWhoReachCard } from '../access/people.ts';
import type { Caller } from '../shared/caller.ts';
import { type NotificationAbout, notify } from './notify.ts';

/** A person's handle, without its `@`. */
export function handleOf(fullName: string): string {
  return fullName.replace(/\s+/g, '');
}

const WORD = /[\p{L}\p{N}_]/u;

/** The text outside code: fenced blocks and inline code spans become blanks. */
function prose(text: string): string {
  return text
    .replace(/```[\s\S]*?(?:```|$)/g, ' ')
    .replace(/~~~[\s\S]*?(?:~~~|$)/g, ' ')
    .replace(/`[^`\n]*`/g, ' ');
}

/** Which of `people` the text mentions. Pure. */
export function mentionedIn(text: string, people: readonly { id: string; full_name: string }[]): Set<string> {
  const found = new Set<string>();
  if (!text.includes('@')) return found;
  const body = prose(text).toLowerCase();
  for (const person of people) {
    const handle = `@${handleOf(person.full_name).toLowerCase()}`;
    if (handle.length === 1) continue;
    for (let at = body.indexOf(handle); at !== -1; at = body.indexOf(handle, at + 1)) {
      const before = at === 0 ? '' : (body[at - 1] ?? '');
      const after = body[at + handle.length] ?? '';
      if (!WORD.test(before) && !WORD.test(after)) {
        found.add(person.id);
        break;
      }
    }
  }
  return found;
}

/**
 * Tells the people the text mentions now and did not before (`before`: the text an edit replaces;
 * an edit tells only the newly mentioned), among those who reach the card; never the writer.
 * Answers whom it told, so the same change does not tell them twice. `writer` is the caller of a
 * service that passed access (the change path), named only to say who wrote.
 */
export async function notifyMentions(
  trx: Transaction,
  writer: Caller,
  text: { before?: string | undefined; after: string },
  about: NotificationAbout,
  at: string,
): Promise<Set<string>> {
  if (!text.after.includes('@')) return new Set();
  const people = await peopleWhoReachCard(trx, about.card);
  const earlier = text.before === undefined ? new Set<string>() : mentionedIn(text.before, people);
  const told = [...mentionedIn(text.after, people)].filter((id) => !earlier.has(id) && id !== writer.userId);
  await notify(trx, writer, 'card.mentioned', told, about, at);
  return new Set(told);
}
