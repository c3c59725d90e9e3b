import { catalogue, icu } from '../../i18n/messages.ts';

/** Card templates' words: the badge on a template's face, its switch in the card dialog, the composer's choice. */
export const templatesText = catalogue('templates', {
  badge: 'Template',
  isTemplate: 'Template of this board',
  hint: 'New cards can be made from it in the add-card form of any list of the team’s boards, with its description, labels, members and checklists (on another board, the labels of the same name and colour there).',
  fromTemplate: 'From a template',
  thisBoard: 'This board',
  choose: 'Template',
  create: 'Create from template',
  createNamed: icu('Create from template {name}', (name: string) => ({ name })),
});

/** Board templates' words: the board menu's "Make a template", its dialog, and the boards page's choice of template. */
export const boardTemplatesText = catalogue('boardTemplates', {
  menu: 'Make a template from this board',
  title: 'Make a board template',
  dialogLabel: icu('Make a template from {board}', (board: string) => ({ board })),
  intro:
    "A template keeps this board's lists, labels, custom fields and rules, not its cards. Everyone in the team can create boards from it where boards are created.",
  name: 'Template name',
  description: 'Description (optional)',
  save: 'Save template',
  saving: 'Saving…',
  close: 'Close',
  saved: icu('Template “{name}” saved.', (name: string) => ({ name })),
  holds: 'It holds',
  lists: 'Lists',
  labels: 'Labels',
  fields: 'Custom fields',
  rules: 'Rules',
  leftOut: {
    list: icu('The rule “{name}” was left out: it names an archived list.', (name: string) => ({ name })),
    label: icu('The rule “{name}” was left out: it names a label the board no longer has.', (name: string) => ({ name })),
    unreached: icu('The rule “{name}” was left out: it creates cards in a list you do not reach.', (name: string) => ({ name })),
  },
  refused: icu('That did not work: {problem}', (problem: string) => ({ problem })),
  template: 'Template',
  blank: 'Blank board',
  teamTemplates: icu('Board templates ({count})', (count: number) => ({ count })),
  summary: icu('Lists: {lists} · Labels: {labels} · Fields: {fields} · Rules: {rules}', (lists: number, labels: number, fields: number, rules: number) => ({
    lists,
    labels,
    fields,
    rules,
  })),
  deleteNamed: icu('Delete template {name}', (name: string) => ({ name })),
  delete: 'Delete',
  confirmDelete: icu('Delete the template “{name}”? Boards made from it stay as they are.', (name: string) => ({ name })),
  createFrom: icu('Create board from template {name}', (name: string) => ({ name })),
});
