import type { Card, Label, Member } from '../api.ts';
import { type CustomField, valueText } from '../fields/fields.ts';
import { formatList } from '../i18n/messages.ts';
import { t } from '../strings.ts';
import { when } from './dates.ts';

export interface Change {
  field: string;
  label: string;
  now: string;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const names = (items: { name?: string; fullName?: string }[]) =>
  formatList(
    items.map((item) => item.name ?? item.fullName ?? ''),
    'unit',
    'short',
  ) || t.none;

/**
 * What another person changed between the card a draft started from and the card now: each field a
 * person sees, with its new value in words, so a 412 says what happened instead of only that it did.
 */
export function changesBetween(
  before: Card,
  after: Card,
  context: { lists: Map<string, string>; labels: Label[]; fields?: readonly CustomField[]; people?: ReadonlyMap<string, Member> },
): Change[] {
  const changes: Change[] = [];
  const add = (field: string, label: string, now: string) => changes.push({ field, label, now });
  if (before.name !== after.name) add('name', t.cardName, after.name);
  if (before.description !== after.description) add('description', t.description, after.description || t.none);
  if (before.list !== after.list) add('list', t.list, context.lists.get(after.list) ?? t.anotherList);
  if (before.startDate !== after.startDate) add('startDate', t.startDate, after.startDate ? when(after.startDate) : t.none);
  if (before.dueDate !== after.dueDate) add('dueDate', t.dueDate, after.dueDate ? when(after.dueDate) : t.none);
  if (before.complete.status !== after.complete.status) add('complete', t.complete, after.complete.status ? t.yes : t.no);
  if (
    !same(
      before.labels.map((l) => l._id),
      after.labels.map((l) => l._id),
    )
  )
    add('labels', t.labels, names(after.labels));
  if (
    !same(
      before.members.map((m) => m._id),
      after.members.map((m) => m._id),
    )
  )
    add('members', t.members, names(after.members));
  const valuesBefore = new Map(before.customFields.map((one) => [one.field, one.value]));
  const valuesAfter = new Map(after.customFields.map((one) => [one.field, one.value]));
  for (const field of context.fields ?? []) {
    const now = valuesAfter.get(field._id);
    if (!same(valuesBefore.get(field._id), now))
      add(`field:${field._id}`, field.name, (now === undefined ? '' : valueText(field, now, context.people ?? new Map())) || t.none);
  }
  if (before.archived.status !== after.archived.status) add('archived', t.archivedField, after.archived.status ? t.yes : t.no);
  if (changes.length === 0 && before.__v !== after.__v) add('other', t.otherChanges, t.otherChangesDetail);
  return changes;
}
