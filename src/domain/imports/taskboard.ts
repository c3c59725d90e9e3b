/**
 * Reads a board export (`BoardExport`, src/schemas/board-export.ts) back into an import plan. Its
 * ids tie the document together and name the people; on the deployment that made it, a person who
 * is a member of the target team is that member again. A link stays a link; a file's bytes are not
 * in the JSON document, so files are counted as left out.
 */
import { BOARD_EXPORT_FORMAT_VERSION } from '../../schemas/board-export.ts';
import { TEXT_CAPS } from '../../schemas/common.ts';
import { FIELD_TYPES } from '../fields/values.ts';
import {
  type CheeredKind,
  cleanName,
  cleanText,
  FileProblems,
  type ImportPlan,
  isoOrNull,
  type LeftOut,
  type PlannedCard,
  type PlannedField,
  type PlannedFieldValue,
  type PlannedPerson,
  parseJsonFile,
  readRelations,
  uniqueName,
} from './plan.ts';

const WHAT = 'Taskboard board export';
const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isKey = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const arrayOf = (value: unknown): any[] => (Array.isArray(value) ? value : []);
const byPosition = (a: { position?: unknown }, b: { position?: unknown }) => Number(a.position ?? 0) - Number(b.position ?? 0);
const CHEERED: readonly string[] = ['card', 'comment', 'discussion', 'attachment'];

export function readTaskboardExport(text: string): ImportPlan {
  const doc = parseJsonFile(text, WHAT);
  const problems = new FileProblems();
  if (!isObject(doc)) {
    problems.add('', 'must be a JSON object (a board export)');
    problems.check(WHAT);
  }
  const d = doc as Record<string, any>;
  if (d.format !== 'taskboard-board') problems.add('format', 'must be "taskboard-board"');
  else if (d.formatVersion !== BOARD_EXPORT_FORMAT_VERSION) {
    problems.add('formatVersion', `must be ${BOARD_EXPORT_FORMAT_VERSION} (this server reads no other version of the export)`);
  }
  if (!isObject(d.board) || typeof d.board.name !== 'string' || !d.board.name.trim()) problems.add('board.name', "must be the board's name");
  for (const field of ['labels', 'lists', 'cards', 'people'] as const) if (!Array.isArray(d[field])) problems.add(field, 'must be an array');
  problems.check(WHAT);

  const leftOut: LeftOut = {};
  const notes: string[] = [];
  const people = new Map<string, PlannedPerson>();
  arrayOf(d.people).forEach((person, index) => {
    if (!isObject(person) || !isKey(person._id)) return problems.add(`people[${index}]._id`, 'must be a string');
    people.set(person._id, { key: person._id, fullName: typeof person.fullName === 'string' ? person.fullName : '', username: null });
  });
  const labelKeys = new Set<string>();
  const labels = arrayOf(d.labels).flatMap((label, index) => {
    if (!isObject(label) || !isKey(label._id)) {
      problems.add(`labels[${index}]._id`, 'must be a string');
      return [];
    }
    labelKeys.add(label._id);
    return [
      {
        key: label._id,
        name: cleanName(label.name, String(label.color ?? 'label'), leftOut),
        color: { name: String(label.color ?? ''), hex: typeof label.hex === 'string' ? label.hex : '#000000' },
      },
    ];
  });
  const listOrder = new Map<string, number>();
  const lists = arrayOf(d.lists)
    .filter((list, index) => {
      if (isObject(list) && isKey(list._id)) return true;
      problems.add(`lists[${index}]._id`, 'must be a string');
      return false;
    })
    .sort(byPosition)
    .map((list, index) => {
      listOrder.set(list._id, index);
      return { key: list._id as string, name: cleanName(list.name, 'Untitled list', leftOut), archived: list.archived === true };
    });
  const fieldNames = new Set<string>();
  const fields: PlannedField[] = arrayOf(d.customFields).flatMap((field, index) => {
    if (!isObject(field) || !isKey(field._id)) {
      problems.add(`customFields[${index}]._id`, 'must be a string');
      return [];
    }
    if (!(FIELD_TYPES as readonly string[]).includes(field.type)) {
      leftOut.customFieldsOfUnknownType = (leftOut.customFieldsOfUnknownType ?? 0) + 1;
      return [];
    }
    return [
      {
        key: field._id,
        name: uniqueName(cleanName(field.name, 'Field', leftOut), fieldNames),
        type: field.type as string,
        unit: typeof field.unit === 'string' ? cleanText(field.unit, TEXT_CAPS.name, leftOut) : '',
        showOnCard: field.showOnCard === true,
        options: arrayOf(field.options)
          .filter((option) => isObject(option) && isKey(option._id))
          .map((option) => ({
            key: option._id as string,
            name: cleanName(option.name, 'Option', leftOut),
            color: { name: String(option.color ?? ''), hex: typeof option.hex === 'string' ? option.hex : '#000000' },
          })),
      },
    ];
  });
  const fieldKeys = new Set(fields.map((field) => field.key));
  const person = (key: unknown): string | null => (isKey(key) ? key : null);
  const cards: (PlannedCard & { order: [number, number] })[] = [];
  arrayOf(d.cards).forEach((card, index) => {
    const at = `cards[${index}]`;
    if (!isObject(card) || !isKey(card._id)) return problems.add(`${at}._id`, 'must be a string');
    if (!isKey(card.list) || !listOrder.has(card.list)) return problems.add(`${at}.list`, "must name a list of the document's lists");
    const time = (value: unknown, field: string) => isoOrNull(value, () => problems.add(`${at}.${field}`, 'must be a date (ISO 8601) or null'));
    const attachments = arrayOf(card.attachments).flatMap((attachment) => {
      if (!isObject(attachment)) return [];
      if (attachment.type !== 'link' || typeof attachment.url !== 'string') {
        leftOut.files = (leftOut.files ?? 0) + 1;
        return [];
      }
      return [
        {
          key: String(attachment._id),
          name: cleanName(attachment.name, attachment.url, leftOut),
          url: cleanText(attachment.url, TEXT_CAPS.url, leftOut),
          creator: person(attachment.creator),
          createdAt: isoOrNull(attachment.createdAt),
          item: isKey(attachment.checklistItem) ? attachment.checklistItem : null,
        },
      ];
    });
    const cheers = arrayOf(card.cheers).flatMap((cheer) => {
      if (!isObject(cheer) || !isObject(cheer.on) || !CHEERED.includes(cheer.on.type) || !isKey(cheer.giver) || !isKey(cheer.receiver)) return [];
      return [
        {
          giver: cheer.giver as string,
          receiver: cheer.receiver as string,
          content: String(cheer.content ?? ''),
          on: { type: cheer.on.type as CheeredKind, key: String(cheer.on._id) },
          createdAt: isoOrNull(cheer.createdAt) ?? new Date(0).toISOString(),
        },
      ];
    });
    cards.push({
      key: card._id,
      list: card.list,
      name: cleanName(card.name, 'Untitled card', leftOut),
      description: typeof card.description === 'string' ? cleanText(card.description, TEXT_CAPS.description, leftOut) : '',
      start: time(card.start, 'start'),
      due: time(card.due, 'due'),
      complete: card.complete === true,
      archived: card.archived === true,
      template: card.isTemplate === true,
      creator: person(card.creator),
      labels: arrayOf(card.labels).filter((key): key is string => isKey(key) && labelKeys.has(key)),
      members: arrayOf(card.members).filter(isKey),
      checklists: arrayOf(card.checklists)
        .filter(isObject)
        .sort(byPosition)
        .map((checklist) => ({
          key: String(checklist._id),
          name: cleanName(checklist.name, 'Checklist', leftOut),
          items: arrayOf(checklist.items)
            .filter(isObject)
            .sort(byPosition)
            .map((item) => ({
              key: String(item._id),
              name: cleanName(item.name, 'Untitled item', leftOut),
              complete: item.complete === true,
              due: isoOrNull(item.due),
              members: arrayOf(item.members).filter(isKey),
            })),
        })),
      comments: arrayOf(card.comments)
        .filter(isObject)
        .map((comment) => ({
          key: String(comment._id),
          author: person(comment.author),
          content: String(comment.content ?? ''),
          createdAt: isoOrNull(comment.createdAt) ?? new Date(0).toISOString(),
          discussions: arrayOf(comment.discussions)
            .filter(isObject)
            .map((reply) => ({
              key: String(reply._id),
              author: person(reply.author),
              content: String(reply.content ?? ''),
              createdAt: isoOrNull(reply.createdAt) ?? new Date(0).toISOString(),
            })),
        })),
      attachments,
      cheers,
      fields: arrayOf(card.fields).flatMap((entry): PlannedFieldValue[] => {
        if (!isObject(entry) || !isKey(entry.field) || !fieldKeys.has(entry.field) || entry.value === undefined || entry.value === null) return [];
        return [{ field: entry.field, value: entry.value }];
      }),
      order: [listOrder.get(card.list) as number, Number(card.position ?? index)],
    });
  });
  problems.check(WHAT);
  if (leftOut.files) notes.push('Attached files are not in the JSON document: their records were left out (the zip export holds the files).');
  cards.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]);
  return {
    source: 'taskboard',
    board: {
      name: cleanName(d.board.name, 'Imported board', leftOut),
      description: typeof d.board.description === 'string' ? cleanText(d.board.description, TEXT_CAPS.description, leftOut) : '',
      archived: d.board.archived === true,
    },
    labels,
    lists,
    fields,
    cards: cards.map(({ order: _order, ...card }) => card),
    relations: readRelations(
      arrayOf(d.relations).flatMap((relation) =>
        isObject(relation) ? [{ from: relation.from, kind: relation.kind, to: relation.to, createdAt: relation.createdAt }] : [],
      ),
      new Set(cards.map((card) => card.key)),
      leftOut,
    ),
    people,
    leftOut,
    notes,
  };
}
