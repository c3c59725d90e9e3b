import type { CustomField, CustomFieldOption } from '../../schemas/custom-fields.ts';
import type { CustomFieldValue } from '../../schemas/records.ts';
import type { CustomFieldOptionRow, CustomFieldRow } from '../../storage/repositories/custom-fields.ts';
import { madeInTeam } from '../shared/records.ts';
import { apiValue, type FieldType } from './values.ts';

export type { CustomFieldOptionRow };

export function toCustomFieldOption(row: CustomFieldOptionRow): CustomFieldOption {
  return { _id: row.id, name: row.name, color: { _id: row.color_id, name: row.color_name, hex: row.color_hex } };
}

export function toCustomField(row: CustomFieldRow, options: readonly CustomFieldOptionRow[], cardsWithValue: number): CustomField {
  return {
    ...madeInTeam(row),
    name: row.name,
    type: row.type as FieldType,
    unit: row.unit,
    position: Number(row.position),
    showOnCard: Boolean(Number(row.show_on_card)),
    options: options.map(toCustomFieldOption),
    cardsWithValue,
    board: row.board_id,
  };
}

/** A card's values as its record lists them, from the rows the card queries read: by field id, the options of a multi select by id. */
export function toCustomFieldValues(
  values: readonly { field_id: string; type: string; text_value: string | null; number_value: number | null }[],
  choices: readonly { field_id: string; type: string; option_id: string }[],
): CustomFieldValue[] {
  const byField = new Map<string, CustomFieldValue>();
  for (const row of values) {
    byField.set(row.field_id, {
      field: row.field_id,
      value: apiValue(row.type, { text: row.text_value, number: row.number_value === null ? null : Number(row.number_value) }),
    });
  }
  const chosen = new Map<string, { type: string; options: string[] }>();
  for (const row of choices) {
    const entry = chosen.get(row.field_id) ?? { type: row.type, options: [] };
    entry.options.push(row.option_id);
    chosen.set(row.field_id, entry);
  }
  for (const [fieldId, { type, options }] of chosen) byField.set(fieldId, { field: fieldId, value: apiValue(type, { options: options.sort() }) });
  return [...byField.values()].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}
