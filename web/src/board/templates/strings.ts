import { catalogue, icu } from '../../i18n/messages.ts';

/** Card templates' words: the badge on a template's face, its switch in the card dialog, the composer's choice. */
export const templatesText = catalogue('templates', {
  badge: 'Template',
  isTemplate: 'Template of this board',
  hint: 'New cards can be made from it in the add-card form of any list, with its description, labels, members and checklists.',
  fromTemplate: 'From a template',
  choose: 'Template',
  create: 'Create from template',
  createNamed: icu('Create from template {name}', (name: string) => ({ name })),
});
