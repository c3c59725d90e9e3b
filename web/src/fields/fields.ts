import { queryOptions, useQuery } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { client, type Member, unwrap } from '../api.ts';
import { formatDate, formatList, formatNumber } from '../i18n/messages.ts';
import { fieldsText as f } from './strings.ts';

export type CustomField = components['schemas']['CustomField'];
export type FieldValue = components['schemas']['CustomFieldValue']['value'];
export type FieldType = CustomField['type'];

export const FIELD_TYPES: readonly FieldType[] = ['text', 'number', 'date', 'select', 'multiselect', 'checkbox', 'person', 'url'];

/** A board's custom fields in their order: the board page, its card dialog and its settings share one read. */
export const fieldsKey = (boardId: string) => ['custom-fields', boardId] as const;

export const fieldsQuery = (boardId: string) =>
  queryOptions({
    queryKey: fieldsKey(boardId),
    queryFn: async ({ signal }) =>
      unwrap(await client.GET('/api/v1/boards/{boardId}/custom-fields', { params: { path: { boardId } }, signal })).customFields as CustomField[],
    staleTime: 30_000,
  });

export function useFields(boardId: string | undefined) {
  return useQuery({ ...fieldsQuery(boardId ?? ''), enabled: Boolean(boardId) });
}

/** A date at local midnight is a day: its time is not said. */
const atMidnight = (iso: string) => {
  const date = new Date(iso);
  return date.getHours() === 0 && date.getMinutes() === 0;
};

/** A value in words, as a card face or a screen reader says it: the option's name, the person's, the number with its unit. */
export function valueText(field: CustomField, value: FieldValue, people: ReadonlyMap<string, Member>): string {
  switch (field.type) {
    case 'number':
      return typeof value === 'number' ? (field.unit ? f.withUnit(formatNumber(value), field.unit) : formatNumber(value)) : '';
    case 'date':
      return typeof value === 'string' ? formatDate(value, { dateStyle: 'medium', ...(atMidnight(value) ? {} : { timeStyle: 'short' }) }) : '';
    case 'checkbox':
      return value === true ? f.checked : '';
    case 'person':
      return typeof value === 'string' ? (people.get(value)?.fullName ?? f.someone) : '';
    case 'select':
      return field.options.find((option) => option._id === value)?.name ?? '';
    case 'multiselect':
      return Array.isArray(value) ? formatList(field.options.filter((option) => value.includes(option._id)).map((option) => option.name)) : '';
    default:
      return typeof value === 'string' ? value : String(value);
  }
}

/** The options a select or multi select value chose, in the field's order, with their colours. */
export function chosenOptions(field: CustomField, value: FieldValue): CustomField['options'] {
  const ids = Array.isArray(value) ? value : [value];
  return field.options.filter((option) => ids.includes(option._id));
}
