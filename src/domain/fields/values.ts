/**
 * Custom field values (docs/decisions/0132, 0133): how a value of the API is checked against its
 * field and stored, how a stored value reads back, and which type changes convert the values a field
 * holds. Pure: no storage, so the rules are tested by themselves.
 */

export const FIELD_TYPES = ['text', 'number', 'date', 'select', 'multiselect', 'checkbox', 'person', 'url'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** The longest text or URL a value may hold. */
export const MAX_TEXT_VALUE = 5000;

export function isSelect(type: string): boolean {
  return type === 'select' || type === 'multiselect';
}

/** A value as stored: a row of `card_field_values`, or the options chosen (`card_field_choices`). */
export type StoredValue = { text: string | null; number: number | null } | { options: string[] };

/** A value of the API: text, URL, date and person as strings, a number, a checkbox's `true`, a select's option id, a multi select's ids. */
export type FieldValue = string | number | boolean | string[];

/** The field a value is checked against: its type and, for selects, its options' ids. */
export interface FieldShape {
  type: string;
  optionIds: ReadonlySet<string>;
}

/** A value that does not fit its field: what is wrong, in words that name no field (the caller adds its name). */
export class ValueRefused extends Error {}

const ID = /^[0-9a-f]{24}$/;

/**
 * The stored form of `value` for `field`, or null when the value clears the field (null, an empty
 * text, an unchecked checkbox, no option). A value that does not fit throws `ValueRefused`. A
 * person's membership of the team is checked by the caller, which can read it.
 */
export function storedValue(field: FieldShape, value: unknown): StoredValue | null {
  if (value === null) return null;
  switch (field.type) {
    case 'text': {
      const text = requireString(value, 'a text').trim();
      if (text.length > MAX_TEXT_VALUE) throw new ValueRefused(`must be at most ${MAX_TEXT_VALUE} characters`);
      return text === '' ? null : { text, number: null };
    }
    case 'url': {
      const text = requireString(value, 'a URL').trim();
      if (text === '') return null;
      if (!isWebUrl(text)) throw new ValueRefused('must be an http or https URL');
      return { text, number: null };
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValueRefused('must be a number');
      return { text: null, number: value };
    case 'date': {
      const date = dateOf(requireString(value, 'an ISO 8601 date-time'));
      if (date === undefined) throw new ValueRefused('must be an ISO 8601 date-time');
      return { text: date, number: null };
    }
    case 'checkbox':
      if (typeof value !== 'boolean') throw new ValueRefused('must be true or false');
      return value ? { text: null, number: 1 } : null;
    case 'person': {
      const id = requireString(value, 'a user id');
      if (!ID.test(id)) throw new ValueRefused('must be a user id');
      return { text: id, number: null };
    }
    case 'select': {
      const id = requireString(value, 'an option id');
      if (!field.optionIds.has(id)) throw new ValueRefused(`has no option ${id}`);
      return { options: [id] };
    }
    case 'multiselect': {
      if (!Array.isArray(value) || value.some((id) => typeof id !== 'string')) throw new ValueRefused('must be an array of option ids');
      const ids = value as string[];
      const unknown = ids.find((id) => !field.optionIds.has(id));
      if (unknown !== undefined) throw new ValueRefused(`has no option ${unknown}`);
      if (new Set(ids).size !== ids.length) throw new ValueRefused('names an option twice');
      return ids.length === 0 ? null : { options: [...ids].sort() };
    }
    default:
      throw new ValueRefused(`is of an unknown type ${field.type}`);
  }
}

function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new ValueRefused(`must be ${what}`);
  return value;
}

export function isWebUrl(text: string): boolean {
  if (text.length > MAX_TEXT_VALUE) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A date-time in the records' form (ISO 8601 UTC with milliseconds), or undefined when the text is none. */
export function dateOf(text: string): string | undefined {
  // a date alone ("2026-12-07") reads as midnight UTC; anything else must carry a time
  if (!/^\d{4}-\d{2}-\d{2}(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())) return undefined;
  const time = Date.parse(text.trim());
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** The API value of a stored value of a field of `type`. */
export function apiValue(type: string, stored: StoredValue): FieldValue {
  if ('options' in stored) return type === 'select' ? (stored.options[0] as string) : stored.options;
  if (type === 'number') return stored.number as number;
  if (type === 'checkbox') return stored.number === 1;
  return stored.text as string;
}

/** A card's stored values of one field, for a type change. */
export interface HeldValue {
  cardId: string;
  value: StoredValue;
}

/** What a type change does to the values a field holds: the values as the new type stores them, or why it cannot. */
export type Conversion = { values: HeldValue[] } | { refused: string; cards: string[] };

/**
 * Converts the values a field holds from type `from` to `to` (docs/decisions/0133). A field with no
 * value converts to anything. Otherwise only these convert, and only when every value does:
 * text ↔ URL, text → number and text → date (values that read as one), number and date → text,
 * select → multi select, multi select → select (no card with two or more), select → text (the
 * option's name). Every other change is refused, naming the cards whose values would not convert.
 * Select options are kept across select ↔ multi select; they are dropped otherwise.
 */
export function convertValues(from: string, to: string, held: readonly HeldValue[], optionNames: ReadonlyMap<string, string>): Conversion {
  if (from === to || held.length === 0) return { values: [...held] };
  const each = (convert: (value: StoredValue) => StoredValue | undefined, why: string): Conversion => {
    const values: HeldValue[] = [];
    const refused: string[] = [];
    for (const { cardId, value } of held) {
      const converted = convert(value);
      if (converted === undefined) refused.push(cardId);
      else values.push({ cardId, value: converted });
    }
    return refused.length ? { refused: why, cards: refused } : { values };
  };
  const text = (value: StoredValue) => ('text' in value ? value.text : null);
  const pair = `${from}->${to}`;
  switch (pair) {
    case 'url->text':
      return each((value) => value, '');
    case 'text->url':
      return each((value) => (isWebUrl(text(value) ?? '') ? value : undefined), 'values that are not http or https URLs');
    case 'text->number':
      return each((value) => {
        const raw = (text(value) ?? '').trim();
        const number = raw === '' ? Number.NaN : Number(raw);
        return Number.isFinite(number) ? { text: null, number } : undefined;
      }, 'values that are not numbers');
    case 'number->text':
      return each((value) => ('number' in value && value.number !== null ? { text: String(value.number), number: null } : undefined), '');
    case 'text->date':
      return each((value) => {
        const date = dateOf(text(value) ?? '');
        return date === undefined ? undefined : { text: date, number: null };
      }, 'values that are not dates');
    case 'date->text':
      return each((value) => value, '');
    case 'select->multiselect':
      return each((value) => value, '');
    case 'multiselect->select':
      return each((value) => ('options' in value && value.options.length === 1 ? value : undefined), 'cards with more than one option chosen');
    case 'select->text':
      return each((value) => {
        const name = 'options' in value ? optionNames.get(value.options[0] as string) : undefined;
        return name === undefined ? undefined : { text: name, number: null };
      }, '');
    default:
      return { refused: `values of type ${from}, which do not convert to ${to}`, cards: held.map((h) => h.cardId) };
  }
}
