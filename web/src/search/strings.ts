import { catalogue, icu } from '../i18n/messages.ts';

/** The search box's words (kept beside it; a namespace of its own in the catalogues). */
export const searchText = catalogue('search', {
  label: 'Search',
  placeholder: 'Search cards, comments, boards…  ( / )',
  results: 'Search results',
  searching: 'Searching…',
  none: icu('Nothing found for "{q}".', (q: string) => ({ q })),
  count: icu(
    '{more, select, yes {{n, number}+ results} other {{n, plural, one {# result} other {# results}}}}. Arrow keys to choose, Enter to open.',
    (n: number, more: boolean) => ({ n, more: more ? 'yes' : 'no' }),
  ),
  types: {
    card: 'Cards',
    comment: 'Comments',
    discussion: 'Discussions',
    checklistItem: 'Checklist items',
    attachment: 'Attachments',
    board: 'Boards',
    list: 'Lists',
  },
  where: icu('{parts}', (parts: string[]) => ({ parts: parts.filter(Boolean).join(' › ') })),
  archived: 'archived',
});
