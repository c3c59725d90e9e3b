import { CJK_CLASS } from '../../storage/migrations/0031_search_words.ts';
import { foldText } from './query.ts';

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const CJK = new RegExp(`[${CJK_CLASS}]`, 'u');

/** A short piece of a hit's text, and where in it the words searched for are (never markup). */
export interface Snippet {
  text: string;
  /** Offsets and lengths in UTF-16 code units of `text`, in order, not overlapping. */
  highlights: { start: number; length: number }[];
}

const WIDTH = 160;
const BEFORE = 40;

/** `text` folded as the index folds it, with, for each folded code unit, the offset it came from. */
function foldWithOffsets(text: string): { folded: string; origin: number[] } {
  let folded = '';
  const origin: number[] = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) as number;
    const char = String.fromCodePoint(cp);
    const part = foldText(char);
    for (let k = 0; k < part.length; k++) origin.push(i);
    folded += part;
    i += char.length;
  }
  origin.push(text.length);
  return { folded, origin };
}

/**
 * The snippet of `text` for `terms` (folded): a window of about WIDTH characters from a little before
 * the first match, with every match inside it marked. Without matches (a hit found by operators
 * only), the text's start.
 */
export function snippetOf(text: string, terms: readonly string[]): Snippet {
  const flat = text.replace(/\s+/gu, ' ').trim();
  const { folded, origin } = foldWithOffsets(flat);
  const matches: { start: number; end: number }[] = [];
  for (const term of terms) {
    if (term === '') continue;
    // words are found by their start (docs/decisions/0103-search-by-words.md); CJK text anywhere
    const anywhere = CJK.test(term) || !WORD_CHAR.test(term[0] as string);
    for (let at = folded.indexOf(term); at >= 0; at = folded.indexOf(term, at + term.length)) {
      if (!anywhere && at > 0 && WORD_CHAR.test(folded[at - 1] as string)) continue;
      matches.push({ start: origin[at] as number, end: origin[at + term.length] as number });
    }
  }
  matches.sort((a, b) => a.start - b.start || b.end - a.end);
  const first = matches[0]?.start ?? 0;
  let from = Math.max(0, first - BEFORE);
  if (from > 0) {
    const space = flat.lastIndexOf(' ', from);
    from = space >= 0 && first - space <= BEFORE * 2 ? space + 1 : from;
  }
  let to = Math.min(flat.length, from + WIDTH);
  if (to < flat.length) {
    const space = flat.lastIndexOf(' ', to);
    if (space > first) to = space;
  }
  const prefix = from > 0 ? '…' : '';
  const suffix = to < flat.length ? '…' : '';
  const highlights: Snippet['highlights'] = [];
  let covered = from;
  for (const match of matches) {
    const start = Math.max(match.start, covered);
    const end = Math.min(match.end, to);
    if (end <= start) continue;
    highlights.push({ start: start - from + prefix.length, length: end - start });
    covered = end;
  }
  return { text: `${prefix}${flat.slice(from, to)}${suffix}`, highlights };
}
