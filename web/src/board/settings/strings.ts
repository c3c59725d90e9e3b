/** The board settings' words (kept beside them, as the search box keeps its own, so the catalogue of web/src/strings.ts stays one object to translate). */
const cards = (n: number) => `${n} card${n === 1 ? '' : 's'}`;
const lists = (n: number) => `${n} list${n === 1 ? '' : 's'}`;

export const settingsText = {
  menu: 'Board menu',
  labels: 'Labels',
  archived: 'Archived items',
  settings: 'Settings',
  deleteBoard: 'Delete board',
  labelsOf: (board: string) => `Labels of ${board}`,
  archivedOf: (board: string) => `Archived items of ${board}`,
  settingsOf: (board: string) => `Settings of ${board}`,
  noLabels: 'This board has no labels yet.',
  labelName: 'Label name',
  colour: 'Colour',
  createLabel: 'Create label',
  newLabel: 'New label',
  editLabel: (name: string) => `Edit label ${name}`,
  deleteLabel: (name: string) => `Delete label ${name}`,
  edit: 'Edit',
  delete: 'Delete',
  restore: 'Restore',
  save: 'Save',
  cancel: 'Cancel',
  close: 'Close',
  loading: 'Loading…',
  nameEmpty: 'The name must not be empty.',
  cardsCarrying: (n: number) => `on ${cards(n)}`,
  confirmDeleteLabel: (name: string, n: number) =>
    n ? `Delete the label "${name}"? It is taken off the ${cards(n)} that carry it.` : `Delete the label "${name}"? No card carries it.`,
  archivedCards: 'Archived cards',
  archivedLists: 'Archived lists',
  noArchivedCards: 'No archived cards.',
  noArchivedLists: 'No archived lists.',
  inList: (list: string, listArchived: boolean) => `in ${list}${listArchived ? ' (an archived list)' : ''}`,
  restoreCard: (name: string) => `Restore card ${name}`,
  deleteCard: (name: string) => `Delete card ${name}`,
  restoreList: (name: string) => `Restore list ${name}`,
  listCards: cards,
  confirmDeleteCard: (name: string, comments: number, attachments: number) => {
    const parts = [
      comments ? `${comments} comment${comments === 1 ? '' : 's'}` : '',
      attachments ? `${attachments} attachment${attachments === 1 ? '' : 's'}` : '',
    ].filter(Boolean);
    return `Delete the card "${name}"${parts.length ? ` with its ${parts.join(' and ')}` : ''}? This cannot be undone.`;
  },
  cardRestored: (name: string) => `${name} is back on the board.`,
  listRestored: (name: string) => `${name} is back on the board.`,
  cardDeleted: (name: string) => `${name} deleted.`,
  boardName: 'Board name',
  description: 'Description',
  saved: 'Saved.',
  dangerZone: 'Delete this board',
  deleteBoardHint: 'Deleting removes the board with its lists, cards and labels for everyone. It cannot be undone.',
  confirmDeleteBoard: (name: string, listCount: number, cardCount: number) =>
    `Delete the board "${name}" and its ${lists(listCount)} and ${cards(cardCount)}? This cannot be undone.`,
  refused: (message: string) => `That did not work: ${message}`,
  archivedBoards: (n: number) => `Archived boards (${n})`,
  noArchivedBoards: 'No archived boards.',
  restoreBoard: (name: string) => `Restore board ${name}`,
  deleteBoardNamed: (name: string) => `Delete board ${name}`,
  boardRestored: (name: string) => `${name} is back among the boards.`,
} as const;
