/**
 * A card's custom field values on a copy or a move (docs/decisions/0134). On its own board a copy
 * takes every value. Onto another board each value goes to the field of the same name and type there,
 * a select's options matched by name, a person only when a member of the target team; any other value
 * is dropped, and the source field's id is named in the answer's `dropped.customFields`.
 */
import type { NewRow, Transaction } from '../../storage/database.ts';
import * as fields from '../../storage/repositories/custom-fields.ts';
import { teamMembersAmong } from '../../storage/repositories/teams.ts';

export interface CarryTarget {
  cardId: string;
  boardId: string;
  teamId: string;
}

/**
 * Writes the values of the card `sourceId` (on `sourceBoardId`) onto the card `target` (its values
 * cleared first when it is the same card, a move); answers the ids of the source fields whose values
 * could not come along, sorted. Call it holding both cards' locks.
 */
export async function carryFieldValues(trx: Transaction, sourceId: string, sourceBoardId: string, target: CarryTarget): Promise<string[]> {
  const { values, choices } = await fields.valuesOfCards(trx, [sourceId]);
  if (values.length === 0 && choices.length === 0) return [];
  const moving = sourceId === target.cardId;
  if (sourceBoardId === target.boardId) {
    if (!moving) {
      await fields.insertValues(
        trx,
        values.map((v) => ({ ...v, card_id: target.cardId })),
      );
      await fields.insertChoices(
        trx,
        choices.map((c) => ({ ...c, card_id: target.cardId })),
      );
    }
    return [];
  }
  const sourceFields = new Map((await fields.findCustomFieldsOfBoard(trx, sourceBoardId)).map((f) => [f.id, f]));
  const targetFields = await fields.shareCustomFieldsOfBoard(trx, target.boardId);
  const targetByName = new Map(targetFields.map((f) => [f.name, f]));
  const options = await fields.findOptionsOfFields(trx, [...sourceFields.keys(), ...targetFields.map((f) => f.id)]);
  const optionName = new Map(options.map((o) => [o.id, o.name]));
  const people = values.flatMap((v) => (sourceFields.get(v.field_id)?.type === 'person' && v.text_value ? [v.text_value] : []));
  const inTeam = await teamMembersAmong(trx, target.teamId, people);

  /** The target field a source field's values go to: same name, same type. */
  const match = (fieldId: string) => {
    const source = sourceFields.get(fieldId);
    const field = source && targetByName.get(source.name);
    return field && field.type === source.type ? field : undefined;
  };
  const dropped = new Set<string>();
  const newValues: NewRow<'card_field_values'>[] = [];
  for (const value of values) {
    const field = match(value.field_id);
    if (!field || (field.type === 'person' && !inTeam.has(value.text_value ?? ''))) dropped.add(value.field_id);
    else newValues.push({ card_id: target.cardId, field_id: field.id, text_value: value.text_value, number_value: value.number_value });
  }
  const newChoices: NewRow<'card_field_choices'>[] = [];
  const byField = new Map<string, typeof choices>();
  for (const choice of choices) byField.set(choice.field_id, [...(byField.get(choice.field_id) ?? []), choice]);
  for (const [fieldId, chosen] of byField) {
    const field = match(fieldId);
    const targetOptions = options.filter((o) => o.field_id === field?.id);
    const mapped = chosen.map((c) => targetOptions.find((o) => o.name === optionName.get(c.option_id))?.id);
    // a select comes along only whole: an option missing on the target would change what it says
    if (!field || mapped.some((id) => id === undefined)) dropped.add(fieldId);
    else for (const id of mapped) newChoices.push({ card_id: target.cardId, field_id: field.id, option_id: id as string });
  }
  if (moving) await fields.clearValuesOfCards(trx, [target.cardId]);
  await fields.insertValues(trx, newValues);
  await fields.insertChoices(trx, newChoices);
  return [...dropped].sort();
}
