/** The search box's words (kept beside it so the catalogue of web/src/strings.ts stays one object to translate). */
export const searchText = {
  label: 'Search',
  placeholder: 'Search cards, comments, boards…  ( / )',
  results: 'Search results',
  searching: 'Searching…',
  none: (q: string) => `Nothing found for "${q}".`,
  count: (n: number, more: boolean) => `${n}${more ? '+' : ''} result${n === 1 && !more ? '' : 's'}. Arrow keys to choose, Enter to open.`,
  types: {
    card: 'Cards',
    comment: 'Comments',
    discussion: 'Discussions',
    checklistItem: 'Checklist items',
    attachment: 'Attachments',
    board: 'Boards',
    list: 'Lists',
  },
  where: (parts: string[]) => parts.filter(Boolean).join(' › '),
  archived: 'archived',
} as const;
