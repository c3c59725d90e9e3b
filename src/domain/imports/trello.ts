/**
 * Reads the file Trello's "Export as JSON" makes into an import plan (./plan.ts). The export is the
 * board with its `lists`, `cards`, `labels`, `checklists`, `members` and its latest `actions` (the
 * comments are `commentCard` actions); only what the plan needs is checked, and a file that lacks it
 * is a 400 naming the place. Custom fields (text, number, date, checkbox, list) become the board's
 * custom fields with their values, a list as a single select. What Taskboard has no place for is
 * counted (power-ups, votes, stickers, covers), and attachments become links (Trello's file URLs need
 * a Trello login).
 */
import { TEXT_CAPS } from '../../schemas/common.ts';
import { MAX_TEXT_VALUE } from '../fields/values.ts';
import { POSITION_STEP } from '../shared/positions.ts';
import {
  cleanName,
  cleanText,
  FileProblems,
  type ImportPlan,
  isoOrNull,
  type LeftOut,
  type PlannedAttachment,
  type PlannedCard,
  type PlannedComment,
  type PlannedField,
  type PlannedFieldValue,
  type PlannedPerson,
  parseJsonFile,
  uniqueName,
} from './plan.ts';

/** Trello's custom field types and ours: a Trello "list" is a single select. */
const TRELLO_FIELD_TYPES: Record<string, string> = { text: 'text', number: 'number', date: 'date', checkbox: 'checkbox', list: 'select' };

const WHAT = 'Trello board export';

/** Trello's label colours (its current palette: each colour, its `_light` and `_dark` shades; null: no colour). */
export const TRELLO_COLOURS: Record<string, string> = {
  green: '#4bce97',
  green_light: '#baf3db',
  green_dark: '#1f845a',
  yellow: '#f5cd47',
  yellow_light: '#f8e6a0',
  yellow_dark: '#946f00',
  orange: '#fea362',
  orange_light: '#fedec8',
  orange_dark: '#c25100',
  red: '#f87168',
  red_light: '#ffd5d2',
  red_dark: '#c9372c',
  purple: '#9f8fef',
  purple_light: '#dfd8fd',
  purple_dark: '#6e5dc6',
  blue: '#579dff',
  blue_light: '#cce0ff',
  blue_dark: '#0c66e4',
  sky: '#6cc3e0',
  sky_light: '#c6edfb',
  sky_dark: '#227d9b',
  lime: '#94c748',
  lime_light: '#d3f1a7',
  lime_dark: '#5b7f24',
  pink: '#e774bb',
  pink_light: '#fdd0ec',
  pink_dark: '#ae4787',
  black: '#8590a2',
  black_light: '#dcdfe4',
  black_dark: '#626f86',
};
const NO_COLOUR_HEX = '#b3bac5';

/** Trello writes its ids as 24 hex characters, but a reader need not care: any non-empty string is a key. */
const isKey = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const lengthOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0);
const position = (value: unknown, index: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : (index + 1) * POSITION_STEP);

/** The board's things in Trello's order: by `pos`, ties in the file's order. */
function inOrder<T extends { pos: number; index: number }>(items: T[]): T[] {
  return items.sort((a, b) => a.pos - b.pos || a.index - b.index);
}

/** A colour's words for an unnamed label: `green_dark` → "green dark". */
function colourWords(colour: string | null): string {
  return colour ? colour.replace(/_/g, ' ') : 'no colour';
}

/** Reads the file's text; a 400 naming what is wrong when it is no Trello board export. */
export function readTrelloExport(text: string): ImportPlan {
  const json = parseJsonFile(text, WHAT);
  const problems = new FileProblems();
  if (!isObject(json)) {
    problems.add('', 'must be a JSON object (a board), not an array or a value');
    problems.check(WHAT);
  }
  const board = json as Record<string, unknown>;
  if (typeof board.name !== 'string' || !board.name.trim()) problems.add('name', "must be the board's name (a non-empty string)");
  for (const field of ['lists', 'cards'] as const) if (!Array.isArray(board[field])) problems.add(field, 'must be an array');
  for (const field of ['labels', 'checklists', 'members', 'actions', 'customFields', 'customFieldItems'] as const) {
    if (board[field] !== undefined && board[field] !== null && !Array.isArray(board[field])) problems.add(field, 'must be an array when present');
  }
  problems.check(WHAT);

  const leftOut: LeftOut = {};
  const notes: string[] = [];

  const listKeys = new Set<string>();
  const lists = inOrder(
    arrayOf(board.lists).flatMap((list, index) => {
      if (!isObject(list) || !isKey(list.id)) {
        problems.add(`lists[${index}].id`, 'must be a string');
        return [];
      }
      if (listKeys.has(list.id)) problems.add(`lists[${index}].id`, 'names a list twice');
      listKeys.add(list.id);
      return [{ key: list.id, name: cleanName(list.name, 'Untitled list', leftOut), archived: list.closed === true, pos: position(list.pos, index), index }];
    }),
  );

  const people = new Map<string, PlannedPerson>();
  arrayOf(board.members).forEach((member, index) => {
    if (!isObject(member) || !isKey(member.id)) return problems.add(`members[${index}].id`, 'must be a string');
    const fullName = typeof member.fullName === 'string' ? member.fullName.trim() : '';
    const username = typeof member.username === 'string' && member.username ? member.username : null;
    const email = typeof member.email === 'string' && member.email.includes('@') ? member.email.trim() : null;
    people.set(member.id, { key: member.id, fullName, username, email });
  });
  /** A person the file names somewhere else than `members` (a comment's author). */
  const mention = (key: string, creator: unknown) => {
    if (people.has(key)) return;
    const about = isObject(creator) ? creator : {};
    people.set(key, {
      key,
      fullName: typeof about.fullName === 'string' ? about.fullName.trim() : '',
      username: typeof about.username === 'string' && about.username ? about.username : null,
      email: null,
    });
  };

  const fieldNames = new Set<string>();
  const fieldsByKey = new Map<string, PlannedField>();
  const fields = inOrder(
    arrayOf(board.customFields).flatMap((field, index) => {
      if (!isObject(field) || !isKey(field.id)) {
        problems.add(`customFields[${index}].id`, 'must be a string');
        return [];
      }
      const type = typeof field.type === 'string' ? TRELLO_FIELD_TYPES[field.type] : undefined;
      if (!type) {
        leftOut.customFields = (leftOut.customFields ?? 0) + 1;
        return [];
      }
      const options = inOrder(
        arrayOf(field.options).flatMap((option, optionIndex) => {
          if (!isObject(option) || !isKey(option.id)) return [];
          const colour = typeof option.color === 'string' && option.color !== 'none' ? option.color : null;
          const text = isObject(option.value) ? option.value.text : undefined;
          return [
            {
              key: option.id,
              name: cleanName(text, 'Option', leftOut),
              color: colour ? { name: colour, hex: TRELLO_COLOURS[colour] ?? NO_COLOUR_HEX } : { name: 'black', hex: NO_COLOUR_HEX },
              pos: position(option.pos, optionIndex),
              index: optionIndex,
            },
          ];
        }),
      ).map(({ pos: _pos, index: _index, ...option }) => option);
      const display = isObject(field.display) ? field.display : {};
      return [
        {
          key: field.id,
          name: cleanName(field.name, 'Field', leftOut),
          type,
          unit: '',
          showOnCard: display.cardFront === true,
          options,
          pos: position(field.pos, index),
          index,
        },
      ];
    }),
  ).map(({ pos: _pos, index: _index, ...field }) => {
    const planned = { ...field, name: uniqueName(field.name, fieldNames) };
    fieldsByKey.set(planned.key, planned);
    return planned;
  });
  /** Board-level `customFieldItems` (some exports keep them there), by card. */
  const boardFieldItems = new Map<string, unknown[]>();
  for (const item of arrayOf(board.customFieldItems)) {
    if (!isObject(item) || !isKey(item.idModel)) continue;
    boardFieldItems.set(item.idModel, [...(boardFieldItems.get(item.idModel) ?? []), item]);
  }
  /** A card's Trello field items as values, each field once; what does not read as its field's value is counted. */
  const fieldValues = (items: unknown[]): PlannedFieldValue[] => {
    const values = new Map<string, PlannedFieldValue>();
    for (const item of items) {
      if (!isObject(item)) continue;
      const field = isKey(item.idCustomField) ? fieldsByKey.get(item.idCustomField) : undefined;
      const raw = isObject(item.value) ? item.value : {};
      let value: PlannedFieldValue['value'] | undefined;
      if (field?.type === 'text' && typeof raw.text === 'string') value = cleanText(raw.text, MAX_TEXT_VALUE, leftOut).trim() || undefined;
      else if (field?.type === 'number') {
        const number = typeof raw.number === 'string' && raw.number.trim() ? Number(raw.number) : Number.NaN;
        value = Number.isFinite(number) ? number : undefined;
      } else if (field?.type === 'date') value = isoOrNull(raw.date) ?? undefined;
      else if (field?.type === 'checkbox') value = raw.checked === 'true' || raw.checked === true ? true : undefined;
      else if (field?.type === 'select' && isKey(item.idValue) && field.options.some((option) => option.key === item.idValue)) value = item.idValue;
      if (field && value !== undefined) values.set(field.key, { field: field.key, value });
      else if (!(field?.type === 'checkbox' && (raw.checked === 'false' || raw.checked === false))) {
        leftOut.customFieldValues = (leftOut.customFieldValues ?? 0) + 1;
      }
    }
    return [...values.values()];
  };

  const labelKeys = new Set<string>();
  const labels = arrayOf(board.labels).flatMap((label, index) => {
    if (!isObject(label) || !isKey(label.id)) {
      problems.add(`labels[${index}].id`, 'must be a string');
      return [];
    }
    const colour = typeof label.color === 'string' && label.color ? label.color : null;
    labelKeys.add(label.id);
    return [
      {
        key: label.id,
        name: cleanName(label.name, colourWords(colour), leftOut),
        // Trello draws a label of no colour grey: the palette's black is its grey
        color: colour ? { name: colour, hex: TRELLO_COLOURS[colour] ?? NO_COLOUR_HEX } : { name: 'black', hex: NO_COLOUR_HEX },
      },
    ];
  });

  const cardsByKey = new Map<string, PlannedCard & { pos: number; index: number }>();
  arrayOf(board.cards).forEach((card, index) => {
    const at = `cards[${index}]`;
    if (!isObject(card) || !isKey(card.id)) return problems.add(`${at}.id`, 'must be a string');
    if (!isKey(card.idList) || !listKeys.has(card.idList)) return problems.add(`${at}.idList`, "must name a list of the file's lists");
    if (cardsByKey.has(card.id)) return problems.add(`${at}.id`, 'names a card twice');
    if (card.name !== undefined && typeof card.name !== 'string') problems.add(`${at}.name`, 'must be a string');
    if (card.desc !== undefined && card.desc !== null && typeof card.desc !== 'string') problems.add(`${at}.desc`, 'must be a string');
    const start = isoOrNull(card.start, () => problems.add(`${at}.start`, 'must be a date (ISO 8601) or null'));
    const due = isoOrNull(card.due, () => problems.add(`${at}.due`, 'must be a date (ISO 8601) or null'));
    if (start && due && due < start) {
      // the API refuses a due before the start: the due date is what Trello shows first
      leftOut.startDatesAfterDue = (leftOut.startDatesAfterDue ?? 0) + 1;
    }
    const members = arrayOf(card.idMembers).filter(isKey);
    const cardLabels = arrayOf(card.idLabels).filter(isKey);
    const unknownLabels = cardLabels.filter((key) => !labelKeys.has(key)).length;
    if (unknownLabels) leftOut.unknownLabelsOnCards = (leftOut.unknownLabelsOnCards ?? 0) + unknownLabels;
    const attachments: PlannedAttachment[] = [];
    for (const attachment of arrayOf(card.attachments)) {
      if (!isObject(attachment)) continue;
      const url = typeof attachment.url === 'string' ? attachment.url : '';
      if (!/^https?:\/\//i.test(url) || [...url].length > TEXT_CAPS.url) {
        leftOut.attachmentsWithoutUsableLink = (leftOut.attachmentsWithoutUsableLink ?? 0) + 1;
        continue;
      }
      if (isKey(attachment.idMember)) mention(attachment.idMember, undefined);
      attachments.push({
        key: isKey(attachment.id) ? attachment.id : `${card.id}:${attachments.length}`,
        name: cleanName(attachment.name, url, leftOut),
        url,
        creator: isKey(attachment.idMember) ? attachment.idMember : null,
        createdAt: isoOrNull(attachment.date),
        item: null,
      });
    }
    leftOut.votes = (leftOut.votes ?? 0) + lengthOf(card.idMembersVoted);
    leftOut.stickers = (leftOut.stickers ?? 0) + lengthOf(card.stickers);
    leftOut.powerUpDataOnCards = (leftOut.powerUpDataOnCards ?? 0) + lengthOf(card.pluginData);
    const cover = isObject(card.cover) ? card.cover : {};
    if (cover.color || cover.idAttachment || cover.idUploadedBackground) leftOut.cardCovers = (leftOut.cardCovers ?? 0) + 1;
    cardsByKey.set(card.id, {
      key: card.id,
      list: card.idList,
      name: cleanName(card.name, 'Untitled card', leftOut),
      description: typeof card.desc === 'string' ? cleanText(card.desc, TEXT_CAPS.description, leftOut) : '',
      start: start && due && due < start ? null : start,
      due,
      complete: card.dueComplete === true,
      archived: card.closed === true,
      template: card.isTemplate === true,
      fields: fieldValues([...arrayOf(card.customFieldItems), ...(boardFieldItems.get(card.id) ?? [])]),
      labels: [...new Set(cardLabels.filter((key) => labelKeys.has(key)))],
      members: [...new Set(members)],
      checklists: [],
      comments: [],
      attachments,
      cheers: [],
      pos: position(card.pos, index),
      index,
    });
  });

  const checklists = inOrder(
    arrayOf(board.checklists).flatMap((checklist, index) => {
      const at = `checklists[${index}]`;
      if (!isObject(checklist) || !isKey(checklist.id)) {
        problems.add(`${at}.id`, 'must be a string');
        return [];
      }
      if (!Array.isArray(checklist.checkItems) && checklist.checkItems !== undefined) problems.add(`${at}.checkItems`, 'must be an array');
      return [{ checklist, pos: position(checklist.pos, index), index, at }];
    }),
  );
  for (const { checklist, at } of checklists) {
    const card = isKey(checklist.idCard) ? cardsByKey.get(checklist.idCard) : undefined;
    if (!card) {
      leftOut.checklistsOfNoCard = (leftOut.checklistsOfNoCard ?? 0) + 1;
      continue;
    }
    const items = inOrder(
      arrayOf(checklist.checkItems).flatMap((item, index) => {
        if (!isObject(item)) {
          problems.add(`${at}.checkItems[${index}]`, 'must be an object');
          return [];
        }
        const due = isoOrNull(item.due, () => problems.add(`${at}.checkItems[${index}].due`, 'must be a date (ISO 8601) or null'));
        return [
          {
            key: isKey(item.id) ? item.id : `${String(checklist.id)}:${index}`,
            name: cleanName(item.name, 'Untitled item', leftOut),
            complete: item.state === 'complete',
            due,
            members: isKey(item.idMember) ? [item.idMember] : [],
            pos: position(item.pos, index),
            index,
          },
        ];
      }),
    );
    card.checklists.push({
      key: checklist.id as string,
      name: cleanName(checklist.name, 'Checklist', leftOut),
      items: items.map(({ pos: _pos, index: _index, ...item }) => item),
    });
  }

  const actions = arrayOf(board.actions);
  const comments = actions.map((action, index) => ({ action, index })).filter(({ action }) => isObject(action) && action.type === 'commentCard');
  for (const { action, index } of comments) {
    const at = `actions[${index}]`;
    const comment = action as Record<string, unknown>;
    const data = isObject(comment.data) ? comment.data : {};
    const cardKey = isObject(data.card) ? data.card.id : undefined;
    const card = isKey(cardKey) ? cardsByKey.get(cardKey) : undefined;
    if (typeof data.text !== 'string') {
      problems.add(`${at}.data.text`, "must be the comment's text");
      continue;
    }
    if (!card) {
      leftOut.commentsOfNoCard = (leftOut.commentsOfNoCard ?? 0) + 1;
      continue;
    }
    const createdAt = isoOrNull(comment.date, () => problems.add(`${at}.date`, 'must be a date (ISO 8601)'));
    const author = isKey(comment.idMemberCreator) ? comment.idMemberCreator : null;
    if (author) mention(author, comment.memberCreator);
    const planned: PlannedComment = {
      key: isKey(comment.id) ? comment.id : `comment:${index}`,
      author,
      content: data.text,
      createdAt: createdAt ?? new Date(0).toISOString(),
      discussions: [],
    };
    card.comments.push(planned);
  }
  // Trello lists actions newest first; a card's comments read oldest first here
  for (const card of cardsByKey.values()) card.comments.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  // Trello's export holds the board's latest 1,000 actions only
  if (actions.length >= 1000) notes.push('Trello exports only the latest 1,000 actions of a board: older comments were not in the file.');

  problems.check(WHAT);

  leftOut.powerUps = Math.max(lengthOf(board.powerUps), lengthOf(board.boardPlugins), lengthOf(board.pluginData));
  const byList = new Map<string, (PlannedCard & { pos: number; index: number })[]>();
  for (const card of cardsByKey.values()) {
    const cards = byList.get(card.list);
    if (cards) cards.push(card);
    else byList.set(card.list, [card]);
  }
  const cards = lists.flatMap((list) => inOrder(byList.get(list.key) ?? []).map(({ pos: _pos, index: _index, ...card }) => card));
  const attachmentCount = cards.reduce((sum, card) => sum + card.attachments.length, 0);
  if (attachmentCount) notes.push("Attachments came over as links to Trello: opening an uploaded file's link needs a Trello login.");

  return {
    source: 'trello',
    board: {
      name: cleanName(board.name, 'Imported board', leftOut),
      description: typeof board.desc === 'string' ? cleanText(board.desc, TEXT_CAPS.description, leftOut) : '',
      archived: board.closed === true,
    },
    labels,
    lists: lists.map(({ pos: _pos, index: _index, ...list }) => list),
    fields,
    cards,
    // Trello keeps no relations between cards (its links are attachments)
    relations: [],
    people,
    // the three the issue names are always said, even when none; the rest when there were any
    leftOut: {
      powerUps: leftOut.powerUps ?? 0,
      votes: leftOut.votes ?? 0,
      stickers: leftOut.stickers ?? 0,
      ...Object.fromEntries(Object.entries(leftOut).filter(([, count]) => count > 0)),
    },
    notes,
  };
}
