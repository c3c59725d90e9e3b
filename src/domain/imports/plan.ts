/**
 * What an import writes, whatever it was read from (a Trello export, a Taskboard export): the
 * board, its labels and lists, and its cards in order with their parts. Things are named by keys
 * of the source (its ids); the writer (./writer.ts) gives each a new id. People are named by key
 * too, and matched to the team's members when the import starts.
 */
import { FORBIDDEN_IN_TEXT, TEXT_CAPS } from '../../schemas/common.ts';
import type { ImportSource } from '../../storage/database.ts';
import { ValidationError } from '../shared/errors.ts';

/** Someone the source names: matched to a member of the team by full name or username. */
export interface PlannedPerson {
  key: string;
  fullName: string;
  /** Trello's username; a Taskboard export has none (its ids are tried first). */
  username: string | null;
  /** The email the source gives, when it gives one (Trello's export does for some members). */
  email?: string | null;
}

export interface PlannedItem {
  key: string;
  name: string;
  complete: boolean;
  due: string | null;
  members: string[];
}

export interface PlannedPost {
  key: string;
  /** The person who wrote it (null: unknown to the source). */
  author: string | null;
  content: string;
  createdAt: string;
}

export interface PlannedComment extends PlannedPost {
  discussions: PlannedPost[];
}

export interface PlannedAttachment {
  key: string;
  name: string;
  url: string;
  creator: string | null;
  createdAt: string | null;
  /** The checklist item it was attached to, if any. */
  item: string | null;
}

export type CheeredKind = 'card' | 'comment' | 'discussion' | 'attachment';

export interface PlannedCheer {
  giver: string;
  receiver: string;
  content: string;
  on: { type: CheeredKind; key: string };
  createdAt: string;
}

/** A custom field of the board: select options named by key, each with a colour as labels have. */
export interface PlannedField {
  key: string;
  name: string;
  /** One of the field types (src/domain/fields/values.ts). */
  type: string;
  unit: string;
  showOnCard: boolean;
  options: { key: string; name: string; color: { name: string; hex: string } }[];
}

/**
 * A card's value of a field, as Set Card Field Values takes it, except that a select's options are
 * named by the source's option keys and a person by the source's person key.
 */
export interface PlannedFieldValue {
  field: string;
  value: string | number | boolean | string[];
}

/** A relation between two cards of the file ("from blocks to"). */
export interface PlannedRelation {
  from: string;
  kind: 'blocks' | 'relates' | 'duplicates';
  to: string;
  /** When it was made, when the source says. */
  createdAt?: string | null;
}

export interface PlannedCard {
  key: string;
  list: string;
  name: string;
  description: string;
  start: string | null;
  due: string | null;
  complete: boolean;
  archived: boolean;
  /** A template card of the board (Trello's `isTemplate`). */
  template?: boolean;
  /** Who made it, when the source says (a Taskboard export); else, and when unmatched, the importer. */
  creator?: string | null;
  labels: string[];
  members: string[];
  checklists: { key: string; name: string; items: PlannedItem[] }[];
  comments: PlannedComment[];
  attachments: PlannedAttachment[];
  cheers: PlannedCheer[];
  fields?: PlannedFieldValue[];
}

/** What the source held that has no place here, by kind: counted in the report, never silently dropped. */
export type LeftOut = Record<string, number>;

export interface ImportPlan {
  source: ImportSource;
  board: { name: string; description: string; archived: boolean };
  /** `color`: a colour by name and hex; the writer takes the palette's colour of that name, else the nearest. */
  labels: { key: string; name: string; color: { name: string; hex: string } }[];
  lists: { key: string; name: string; archived: boolean }[];
  /** The board's custom fields in order, names unique. */
  fields: PlannedField[];
  /** List by list, each list's cards in order. */
  cards: PlannedCard[];
  relations: PlannedRelation[];
  people: Map<string, PlannedPerson>;
  leftOut: LeftOut;
  notes: string[];
}

/** Things a plan holds, for the report and the progress. */
export function planCounts(plan: ImportPlan) {
  let checklists = 0;
  let checklistItems = 0;
  let comments = 0;
  let discussions = 0;
  let attachments = 0;
  let cheers = 0;
  let fieldValues = 0;
  for (const card of plan.cards) {
    fieldValues += card.fields?.length ?? 0;
    checklists += card.checklists.length;
    for (const checklist of card.checklists) checklistItems += checklist.items.length;
    comments += card.comments.length;
    for (const comment of card.comments) discussions += comment.discussions.length;
    attachments += card.attachments.length;
    cheers += card.cheers.length;
  }
  return {
    lists: plan.lists.length,
    labels: plan.labels.length,
    cards: plan.cards.length,
    checklists,
    checklistItems,
    comments,
    discussions,
    attachments,
    cheers,
    customFields: plan.fields.length,
    customFieldValues: fieldValues,
    relations: plan.relations.length,
  };
}

/** A field name made unique among `taken` (a board has one field of a name): "Name (2)", "Name (3)", … */
export function uniqueName(name: string, taken: Set<string>): string {
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = `${name} (${n})`;
  taken.add(unique);
  return unique;
}

/** Characters the API refuses in text (control characters other than tab and newline, lone surrogates), all of them. */
const FORBIDDEN = new RegExp(FORBIDDEN_IN_TEXT.source, 'gu');

/**
 * The source's text as the API would take it: forbidden characters dropped (a carriage return
 * becomes nothing, its newline stays), at most `cap` code points; `counts.truncated` grows when cut.
 */
export function cleanText(value: string, cap: number, counts: LeftOut): string {
  const clean = value.replace(FORBIDDEN, '');
  const points = [...clean];
  if (points.length <= cap) return clean;
  counts.truncatedTexts = (counts.truncatedTexts ?? 0) + 1;
  return points.slice(0, cap).join('');
}

/** A name: cleaned, trimmed, capped, and `fallback` when nothing is left. */
export function cleanName(value: unknown, fallback: string, counts: LeftOut): string {
  const name = typeof value === 'string' ? cleanText(value, TEXT_CAPS.name, counts).trim() : '';
  return name || fallback;
}

/** Where a malformed file is wrong: a 400 naming each place, before anything is written. */
export class FileProblems {
  readonly problems: { field: string; message: string }[] = [];

  add(field: string, message: string): void {
    // a broken file can be broken everywhere: the first few places say enough
    if (this.problems.length < 20) this.problems.push({ field: `file.${field}`.replace(/\.\[/g, '['), message });
  }

  /** Throws the 400 when anything was found. */
  check(what: string): void {
    const [first] = this.problems;
    if (first) throw new ValidationError(`The file is not a ${what}: ${first.field} ${first.message}`, this.problems);
  }
}

/** The file's text as JSON, or a 400 saying where it stops being JSON. */
export function parseJsonFile(text: string, what: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unreadable';
    throw new ValidationError(`The file is not a ${what}: it is not JSON (${reason})`, [{ field: 'file', message: `is not JSON: ${reason}` }]);
  }
}

/** An ISO 8601 time as records keep it (`…Z`, milliseconds), or null when absent or unreadable (`problem` told). */
export function isoOrNull(value: unknown, problem?: () => void): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') {
    const time = Date.parse(value);
    if (!Number.isNaN(time)) return new Date(time).toISOString();
  }
  problem?.();
  return null;
}

const RELATION_KINDS: readonly string[] = ['blocks', 'relates', 'duplicates'];

/**
 * The file's relations between two of its cards, each pair of a kind once: a relation naming a card
 * the file lacks, or a "blocks" that would close a cycle, is counted in `leftOut` instead.
 */
export function readRelations(
  relations: readonly { from: unknown; kind: unknown; to: unknown; createdAt?: unknown }[],
  cards: ReadonlySet<string>,
  leftOut: LeftOut,
) {
  const kept: PlannedRelation[] = [];
  const seen = new Set<string>();
  const blocks = new Map<string, string[]>();
  const reaches = (from: string, to: string): boolean => {
    const stack = [from];
    const visited = new Set<string>();
    while (stack.length) {
      const at = stack.pop() as string;
      if (at === to) return true;
      if (visited.has(at)) continue;
      visited.add(at);
      stack.push(...(blocks.get(at) ?? []));
    }
    return false;
  };
  for (const relation of relations) {
    const { from, kind, to } = relation;
    if (typeof from !== 'string' || typeof to !== 'string' || !cards.has(from) || !cards.has(to) || from === to || !RELATION_KINDS.includes(String(kind))) {
      leftOut.relationsOfNoCard = (leftOut.relationsOfNoCard ?? 0) + 1;
      continue;
    }
    const [a, b] = kind === 'relates' && to < from ? [to, from] : [from, to];
    const pair = `${a} ${String(kind)} ${b}`;
    if (seen.has(pair)) continue;
    if (kind === 'blocks' && reaches(b, a)) {
      leftOut.relationsInCycles = (leftOut.relationsInCycles ?? 0) + 1;
      continue;
    }
    seen.add(pair);
    if (kind === 'blocks') blocks.set(a, [...(blocks.get(a) ?? []), b]);
    kept.push({ from: a, kind: kind as PlannedRelation['kind'], to: b, createdAt: isoOrNull(relation.createdAt) });
  }
  return kept;
}

/** Where each person of the plan appears: card memberships, checklist item memberships, comments and replies written. */
export function personUses(plan: ImportPlan): Map<string, { cardMemberships: number; itemMemberships: number; comments: number }> {
  const uses = new Map<string, { cardMemberships: number; itemMemberships: number; comments: number }>();
  const of = (key: string) => {
    let entry = uses.get(key);
    if (!entry) uses.set(key, (entry = { cardMemberships: 0, itemMemberships: 0, comments: 0 }));
    return entry;
  };
  for (const card of plan.cards) {
    for (const key of new Set(card.members)) of(key).cardMemberships++;
    for (const checklist of card.checklists) for (const item of checklist.items) for (const key of new Set(item.members)) of(key).itemMemberships++;
    for (const comment of card.comments) {
      if (comment.author) of(comment.author).comments++;
      for (const reply of comment.discussions) if (reply.author) of(reply.author).comments++;
    }
  }
  return uses;
}
