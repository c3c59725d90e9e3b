import type { CustomField, CustomFieldOption } from '../../schemas/custom-fields.ts';
import type { CustomFieldValue } from '../../schemas/records.ts';
import type { CardFieldValueRow, CustomFieldOptionRow, CustomFieldRow } from '../../storage/repositories/custom-fields.ts';
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

/**
 * A card's values as its record lists them, from the rows the card reads take (`fieldValuesOfCards`):
 * by field id, the options of a multi select by id.
 */
export function toCustomFieldValues(rows: readonly CardFieldValueRow[]): CustomFieldValue[] {
  if (rows.length === 0) return [];
  const values: CustomFieldValue[] = [];
  let chosen: Map<string, { type: string; options: string[] }> | undefined;
  for (const row of rows) {
    if (row.option_id === null) {
      values.push({
        field: row.field_id,
        value: apiValue(row.type, { text: row.text_value, number: row.number_value === null ? null : Number(row.number_value) }),
      });
      continue;
    }
    chosen ??= new Map();
    const entry = chosen.get(row.field_id);
    if (entry) entry.options.push(row.option_id);
    else chosen.set(row.field_id, { type: row.type, options: [row.option_id] });
  }
  for (const [fieldId, { type, options }] of chosen ?? []) values.push({ field: fieldId, value: apiValue(type, { options: options.sort() }) });
  return values.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}
