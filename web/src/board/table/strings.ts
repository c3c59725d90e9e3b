import { catalogue, icu } from '../../i18n/messages.ts';

const name = (name: string) => ({ name });

/** The board's views and its table's words (the table is a chunk of its own). */
export const tableText = catalogue('table', {
  views: 'Views',
  board: 'Board',
  table: 'Table',
  calendar: 'Calendar',
  timeline: 'Timeline',
  cardsTable: icu('Cards of {board}', (board: string) => ({ board })),
  columns: 'Columns',
  chooseColumns: 'Choose columns',
  moveLeft: icu('Move {name} left', name),
  moveRight: icu('Move {name} right', name),
  name: 'Name',
  list: 'List',
  labels: 'Labels',
  members: 'Members',
  startDate: 'Start date',
  dueDate: 'Due date',
  checklist: 'Checklist',
  sortBy: icu('Sort by {name}', name),
  edit: icu('Edit {column} of {card}', (column: string, card: string) => ({ column, card })),
  none: '—',
  checklistDone: icu('{done, number} of {total, number}', (done: number, total: number) => ({ done, total })),
  rows: icu('{n, plural, =0 {No cards} one {# card} other {# cards}}', (n: number) => ({ n })),
  select: 'Select',
  selectAll: 'Select every card shown',
  selectCard: icu('Select {name}', name),
  selection: 'Selected cards',
  selected: icu('{n, plural, one {# card selected} other {# cards selected}}', (n: number) => ({ n })),
  targetList: 'List to move or copy to',
  moveTo: 'Move to list',
  copyTo: 'Copy to list',
  archive: 'Archive',
  clearSelection: 'Clear selection',
  bulkDone: icu(
    '{operation, select, move {{n, plural, one {# card moved to {list}.} other {# cards moved to {list}.}}} copy {{n, plural, one {# card copied to {list}.} other {# cards copied to {list}.}}} other {{n, plural, one {# card archived.} other {# cards archived.}}}}',
    (operation: string, n: number, list: string) => ({ operation, n, list }),
  ),
  keys: 'Arrow keys move between cells; Enter edits a cell or opens the card; Space selects a row in its first cell; Escape gives up an edit.',
});
