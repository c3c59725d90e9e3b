/**
 * The search query language (docs/decisions/0101-search-query-language.md): words (all must match,
 * in any order, each also as the start or any part of a longer word), "quoted phrases", `-word` or
 * `-"phrase"` to leave out, and operators `name:value` (a value may be quoted). A hand-written
 * tokenizer, so that a malformed query is a 400 saying exactly what is wrong.
 */
import { ValidationError } from '../shared/errors.ts';

export type DueFilter = 'overdue' | 'day' | 'week' | 'month' | 'none';

export interface SearchQuery {
  /** Words and phrases every hit contains (folded: lower case, accents off). */
  terms: string[];
  /** Words and phrases no hit contains. */
  excluded: string[];
  labels: string[];
  /** `me`: the caller; else an email or a full name. */
  members: string[];
  due?: DueFilter | undefined;
  archived: boolean;
  complete?: boolean | undefined;
  boards: string[];
  lists: string[];
  hasAttachments: boolean;
  /** Created within the last N days. */
  createdDays?: number | undefined;
  /** Custom field filters (`Estimate>3`, `Priority:high`, `Reviewer:empty`), by the field's name. */
  fields: FieldFilter[];
}

/** A filter on a custom field of the hit's board, named as the board names it (any case). */
export interface FieldFilter {
  name: string;
  /** `:` matches (text contains, number equals, option or person named, checkbox true); `empty` has no value. */
  op: ':' | '>' | '>=' | '<' | '<=' | 'empty';
  value: string;
}

const DUE: readonly DueFilter[] = ['overdue', 'day', 'week', 'month', 'none'];
const IS = ['archived', 'complete', 'incomplete'] as const;
const OPERATORS = ['label', 'member', 'due', 'is', 'board', 'list', 'has', 'created'] as const;
const MAX_TERMS = 20;
const MAX_CREATED_DAYS = 36500;

/**
 * Case- and accent-insensitive form of text, as the index compares it: only the combining accents of
 * Latin, Greek and Cyrillic letters come off (a kana's voicing mark is part of the letter).
 */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/gu, '')
    .normalize('NFC')
    .toLowerCase();
}

function invalid(message: string): ValidationError {
  return new ValidationError(`Invalid search query: ${message}`, [{ field: 'querystring.q', message }]);
}

interface Token {
  negated: boolean;
  operator?: string | undefined;
  /** A custom field's filter: the field's name and the comparison. */
  field?: { name: string; op: ':' | '>' | '>=' | '<' | '<=' } | undefined;
  value: string;
  quoted: boolean;
}

function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const readQuoted = (): string => {
    const start = i;
    const end = q.indexOf('"', i + 1);
    if (end < 0) throw invalid(`the quote at character ${start + 1} is never closed`);
    i = end + 1;
    return q.slice(start + 1, end);
  };
  while (i < q.length) {
    if (/\s/u.test(q[i]!)) {
      i++;
      continue;
    }
    const negated = q[i] === '-' && i + 1 < q.length && !/\s/u.test(q[i + 1]!);
    if (negated) i++;
    if (q[i] === '"') {
      tokens.push({ negated, value: readQuoted(), quoted: true });
      continue;
    }
    const start = i;
    while (i < q.length && !/\s/u.test(q[i]!) && q[i] !== '"') i++;
    const word = q.slice(start, i);
    const comparison = /^([\p{L}\p{N}_]+)(>=|<=|>|<)(.+)$/u.exec(word);
    if (comparison) {
      tokens.push({ negated, field: { name: comparison[1]!, op: comparison[2] as '>' }, value: comparison[3]!, quoted: false });
      continue;
    }
    const colon = word.indexOf(':');
    const name = colon > 0 ? word.slice(0, colon) : '';
    if (colon > 0 && /^[\p{L}\p{N}_]+$/u.test(name)) {
      const operator = name.toLowerCase();
      // any other name is a custom field's (docs/search.md)
      const field = (OPERATORS as readonly string[]).includes(operator) ? undefined : { name, op: ':' as const };
      let value = word.slice(colon + 1);
      let quoted = false;
      if (value === '' && q[i] === '"') {
        value = readQuoted();
        quoted = true;
      }
      if (value.trim() === '') throw invalid(`"${name}:" needs a value`);
      tokens.push(field ? { negated, field, value, quoted } : { negated, operator, value, quoted });
      continue;
    }
    if (q[i] === '"') throw invalid(`a quote inside "${word}"; quote whole phrases`);
    tokens.push({ negated, value: word, quoted: false });
  }
  return tokens;
}

/** Parses `q`; a query that says nothing to look for, or says it wrongly, is a ValidationError (400). */
export function parseSearchQuery(q: string): SearchQuery {
  const query: SearchQuery = { terms: [], excluded: [], labels: [], members: [], archived: false, boards: [], lists: [], hasAttachments: false, fields: [] };
  let operators = 0;
  for (const token of tokenize(q)) {
    if (token.field !== undefined) {
      if (token.negated) throw invalid(`"-${token.field.name}${token.field.op}" cannot be negated; only words and phrases can`);
      operators++;
      const value = token.value.trim();
      const empty = token.field.op === ':' && !token.quoted && value.toLowerCase() === 'empty';
      if (token.field.op !== ':' && value === '') throw invalid(`"${token.field.name}${token.field.op}" needs a value`);
      query.fields.push({ name: token.field.name, op: empty ? 'empty' : token.field.op, value: empty ? '' : value });
      continue;
    }
    if (token.operator === undefined) {
      const text = foldText(token.value).replace(/\s+/gu, ' ').trim();
      if (text === '') continue;
      (token.negated ? query.excluded : query.terms).push(text);
      continue;
    }
    if (token.negated) throw invalid(`"-${token.operator}:" cannot be negated; only words and phrases can`);
    operators++;
    const value = token.value.trim();
    const lower = value.toLowerCase();
    switch (token.operator) {
      case 'label':
        query.labels.push(value);
        break;
      case 'member':
        query.members.push(lower === 'me' && !token.quoted ? 'me' : value);
        break;
      case 'board':
        query.boards.push(value);
        break;
      case 'list':
        query.lists.push(value);
        break;
      case 'due':
        if (!(DUE as readonly string[]).includes(lower)) throw invalid(`"due:${value}" is not one of due:${DUE.join(', due:')}`);
        if (query.due !== undefined && query.due !== lower) throw invalid('only one "due:" per query');
        query.due = lower as DueFilter;
        break;
      case 'is':
        if (!(IS as readonly string[]).includes(lower)) throw invalid(`"is:${value}" is not one of is:${IS.join(', is:')}`);
        if (lower === 'archived') query.archived = true;
        else {
          const complete = lower === 'complete';
          if (query.complete !== undefined && query.complete !== complete) throw invalid('"is:complete" and "is:incomplete" exclude each other');
          query.complete = complete;
        }
        break;
      case 'has':
        if (lower !== 'attachments') throw invalid(`"has:${value}" is not has:attachments`);
        query.hasAttachments = true;
        break;
      case 'created': {
        const days = /^\d{1,6}$/u.test(value) ? Number(value) : Number.NaN;
        if (!(days >= 1 && days <= MAX_CREATED_DAYS)) throw invalid(`"created:${value}" needs a number of days from 1 to ${MAX_CREATED_DAYS}`);
        query.createdDays = days;
        break;
      }
    }
  }
  if (query.terms.length + query.excluded.length > MAX_TERMS) throw invalid(`at most ${MAX_TERMS} words and phrases`);
  if (query.terms.length === 0 && operators === 0) {
    throw invalid(query.excluded.length > 0 ? 'a query of exclusions only finds nothing to start from; add a word or an operator' : 'nothing to search for');
  }
  return query;
}
