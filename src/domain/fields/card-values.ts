/**
 * Set Card Custom Field Values: one request sets or clears several of a card's fields, all or none,
 * through the card's change path (its lock, reach, `If-Match`, then one change: `__v` + 1 and a
 * `card.custom_fields.set` event naming each field's new value). The fields the request names are
 * read under a share lock after the card's (./definitions.ts takes the same locks in the same order),
 * so a value is always checked against the field as it is when written.
 */
import type { Card } from '../../schemas/records.ts';
import type { NewRow } from '../../storage/database.ts';
import * as fields from '../../storage/repositories/custom-fields.ts';
import { teamMembersAmong } from '../../storage/repositories/teams.ts';
import { changeCard } from '../cards/change.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { type ErrorDetail, ValidationError } from '../shared/errors.ts';
import { apiValue, type FieldValue, isSelect, type StoredValue, storedValue, ValueRefused } from './values.ts';

export interface FieldValueRequest {
  field: string;
  value: unknown;
}

export function setCustomFieldValues(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, requests: readonly FieldValueRequest[]): Promise<Card> {
  const repeated = requests.findIndex((r, i) => requests.findIndex((other) => other.field === r.field) !== i);
  if (repeated >= 0) {
    throw new ValidationError('A field is named twice', [{ field: `body.values[${repeated}].field`, message: 'names a field an earlier value names' }]);
  }
  return changeCard(ctx, caller, cardId, scope, 'card.custom_fields.set', async (trx, card) => {
    // only the fields named (and the options of the selects among them) are checked against: no other field is read or held
    const named = await fields.shareCustomFields(
      trx,
      card.board_id,
      requests.map((r) => r.field),
    );
    const byId = new Map(named.map((field) => [field.id, field]));
    const options = await fields.findOptionsOfFields(
      trx,
      named.filter((field) => isSelect(field.type)).map((field) => field.id),
    );
    const problems: ErrorDetail[] = [];
    const stored: { fieldId: string; type: string; value: StoredValue | null }[] = [];
    for (const [index, request] of requests.entries()) {
      const field = byId.get(request.field);
      if (!field) {
        problems.push({ field: `body.values[${index}].field`, message: `is no custom field of this card's board` });
        continue;
      }
      try {
        const optionIds = new Set(options.filter((o) => o.field_id === field.id).map((o) => o.id));
        stored.push({ fieldId: field.id, type: field.type, value: storedValue({ type: field.type, optionIds }, request.value) });
      } catch (error) {
        if (!(error instanceof ValueRefused)) throw error;
        problems.push({ field: `body.values[${index}].value`, message: `${field.name} (${field.type}) ${error.message}`, customField: field.id });
      }
    }
    // a person must be a member of the card's team, as a card's members are
    const people = stored.flatMap((s) => (s.type === 'person' && s.value && 'text' in s.value && s.value.text ? [s.value.text] : []));
    const inTeam = await teamMembersAmong(trx, card.team_id, people);
    for (const [index, request] of requests.entries()) {
      const entry = stored.find((s) => s.fieldId === request.field);
      if (entry?.type === 'person' && entry.value && 'text' in entry.value && !inTeam.has(entry.value.text as string)) {
        problems.push({
          field: `body.values[${index}].value`,
          message: `${byId.get(entry.fieldId)?.name} (person): user ${entry.value.text} is not a member of the board's team`,
          customField: entry.fieldId,
        });
      }
    }
    if (problems.length) {
      throw new ValidationError(`Invalid custom field values: ${problems.map((p) => p.message).join('; ')}`, problems);
    }
    // each type keeps to its table (plain values in one, a select's options in the other): a plain
    // value replaces the card's row in place, a cleared one is deleted, a select's options are rewritten
    await fields.clearPlainValues(
      trx,
      card.id,
      stored.filter((s) => s.value === null && !isSelect(s.type)).map((s) => s.fieldId),
    );
    await fields.clearChoices(
      trx,
      card.id,
      stored.filter((s) => isSelect(s.type)).map((s) => s.fieldId),
    );
    const values: NewRow<'card_field_values'>[] = [];
    const choices: NewRow<'card_field_choices'>[] = [];
    const set: Record<string, FieldValue | null> = {};
    for (const { fieldId, type, value } of stored) {
      set[fieldId] = value === null ? null : apiValue(type, value);
      if (value === null) continue;
      if ('options' in value) for (const option of value.options) choices.push({ card_id: card.id, field_id: fieldId, option_id: option });
      else values.push({ card_id: card.id, field_id: fieldId, text_value: value.text, number_value: value.number });
    }
    await fields.upsertValues(trx, values);
    await fields.insertChoices(trx, choices);
    return { values: set };
  });
}
