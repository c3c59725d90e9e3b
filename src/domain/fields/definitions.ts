/**
 * A board's custom fields (docs/decisions/0132): defined, renamed, reordered, given options, retyped
 * and deleted by whoever reaches the board, as its labels are. A change that touches the values cards
 * hold (a type change, options removed, the field deleted) is a change of each such card (`__v` + 1),
 * and follows the lock rule: the board, then those cards in id order, then the field, which value
 * writes hold shared while they check values against it (./card-values.ts).
 */
import type { CustomField } from '../../schemas/custom-fields.ts';
import type { Executor, NewRow, Transaction } from '../../storage/database.ts';
import { UniqueViolation } from '../../storage/errors.ts';
import { findBoardById, lockBoard } from '../../storage/repositories/boards.ts';
import * as fields from '../../storage/repositories/custom-fields.ts';
import { findLabelColor } from '../../storage/repositories/labels.ts';
import { requireAccess } from '../access/access.ts';
import { lockCardRows } from '../cards/locks.ts';
import { recordCardChange } from '../cards/recorder.ts';
import type { ServiceContext } from '../context.ts';
import { boardSubject, changedFields, recordEvent } from '../events/record.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ConflictError, type ErrorDetail, NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { isExpected, requireExpectedVersion } from '../shared/preconditions.ts';
import { newMade, onBoard } from '../shared/records.ts';
import { ChangedMeanwhile, inTransaction } from '../shared/transaction.ts';
import { type CustomFieldOptionRow, toCustomField } from './records.ts';
import { convertValues, type HeldValue, isSelect, type StoredValue } from './values.ts';

interface OptionRequest {
  _id?: string | undefined;
  name: string;
  color: string;
}

export interface NewCustomField {
  name: string;
  type: string;
  unit?: string | undefined;
  showOnCard?: boolean | undefined;
  position?: number | undefined;
  options?: readonly OptionRequest[] | undefined;
}

export interface CustomFieldChange {
  name?: string | undefined;
  type?: string | undefined;
  unit?: string | undefined;
  showOnCard?: boolean | undefined;
  position?: number | undefined;
  options?: readonly OptionRequest[] | undefined;
}

/** The API records of the board's fields, in their order, with their options and how many cards hold a value of each. */
export async function loadCustomFields(db: Executor, boardId: string): Promise<CustomField[]> {
  const rows = await fields.findCustomFieldsOfBoard(db, boardId);
  return withParts(db, rows);
}

async function withParts(db: Executor, rows: fields.CustomFieldRow[]): Promise<CustomField[]> {
  const ids = rows.map((row) => row.id);
  const options = await fields.findOptionsOfFields(db, ids);
  const counts = await fields.countCardsWithValues(db, ids);
  return rows.map((row) =>
    toCustomField(
      row,
      options.filter((option) => option.field_id === row.id),
      counts.get(row.id) ?? 0,
    ),
  );
}

async function loadCustomField(db: Executor, fieldId: string): Promise<CustomField> {
  const row = await fields.findCustomField(db, fieldId);
  if (!row) throw new NotFoundError('Custom field');
  return (await withParts(db, [row]))[0] as CustomField;
}

export async function listCustomFields(ctx: ServiceContext, caller: Caller, boardId: string, scope: Scope): Promise<CustomField[]> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  return loadCustomFields(ctx.db, board.id);
}

/** A unit belongs to number fields only; options to select fields only. */
function checkShape(type: string, unit: string | undefined, options: readonly OptionRequest[] | undefined): void {
  if (unit !== undefined && unit.trim() !== '' && type !== 'number') {
    throw new ValidationError('Only number fields have a unit', [{ field: 'body.unit', message: 'only number fields have a unit' }]);
  }
  if (options !== undefined && options.length > 0 && !isSelect(type)) {
    throw new ValidationError('Only select and multiselect fields have options', [
      { field: 'body.options', message: 'only select and multiselect fields have options' },
    ]);
  }
  const seen = new Map<string, number>();
  const problems: ErrorDetail[] = [];
  (options ?? []).forEach((option, index) => {
    const name = option.name.trim().toLowerCase();
    if (seen.has(name)) problems.push({ field: `body.options[${index}].name`, message: `names the same option as body.options[${seen.get(name)}]` });
    seen.set(name, index);
  });
  const ids = (options ?? []).map((option) => option._id).filter((id) => id !== undefined);
  if (new Set(ids).size !== ids.length) problems.push({ field: 'body.options', message: 'names an option _id twice' });
  if (problems.length) throw new ValidationError('Option names must differ within a field', problems);
}

/** Every option colour is of the palette (a 400 naming each that is not). */
async function requireColors(db: Executor, options: readonly OptionRequest[]): Promise<void> {
  const problems: ErrorDetail[] = [];
  for (const [index, option] of options.entries()) {
    if (!(await findLabelColor(db, option.color))) {
      problems.push({ field: `body.options[${index}].color`, message: 'is not a label colour; see GET /api/v1/label-colors' });
    }
  }
  if (problems.length) throw new ValidationError('Unknown option colour', problems);
}

/** A second field of one name on a board: a 409 (moves and copies match fields by name). */
function nameTaken(name: string): ConflictError {
  return new ConflictError(`The board already has a field named "${name}"`, [{ field: 'body.name', message: 'the board already has a field of this name' }]);
}

/** The board's field ids in order, with `fieldId` placed at `position` (clamped to the end). */
function placed(ids: readonly string[], fieldId: string, position: number | undefined): string[] {
  const others = ids.filter((id) => id !== fieldId);
  const at = position === undefined ? others.length : Math.min(position, others.length);
  return [...others.slice(0, at), fieldId, ...others.slice(at)];
}

export async function createCustomField(ctx: ServiceContext, caller: Caller, boardId: string, input: NewCustomField, scope: Scope): Promise<CustomField> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  checkShape(input.type, input.unit, input.options);
  await requireColors(ctx.db, input.options ?? []);
  const id = newId();
  const name = input.name.trim();
  try {
    await inTransaction(ctx, async (trx) => {
      const at = nowIso();
      // the board's lock orders the placing of its fields; If-Match on the board is compared under it
      if (!(await lockBoard(trx, board.id))) throw new NotFoundError('Board');
      if (isExpected(caller, 'board', board.id)) requireExpectedVersion(trx, caller, 'board', board.id, (await findBoardById(trx, board.id))?.version ?? -1);
      const existing = (await fields.findCustomFieldsOfBoard(trx, board.id)).map((row) => row.id);
      await fields.insertCustomField(trx, {
        ...newMade(id, caller.userId, at),
        ...onBoard(board),
        name,
        type: input.type,
        unit: input.unit?.trim() ?? '',
        position: existing.length,
        show_on_card: input.showOnCard ? 1 : 0,
      });
      await fields.insertOptions(trx, newOptions(id, input.options ?? []));
      if (input.position !== undefined && input.position < existing.length) {
        // placed among the others: its own position is part of its creation, not a change of it
        await fields.setFieldPositions(trx, placed(existing, id, input.position));
      }
      recordEvent(trx, caller, 'custom_field.created', boardSubject(board), { customField: id, name, type: input.type }, at);
    });
  } catch (error) {
    throw error instanceof UniqueViolation ? nameTaken(name) : error;
  }
  return loadCustomField(ctx.db, id);
}

function newOptions(fieldId: string, options: readonly OptionRequest[]): NewRow<'custom_field_options'>[] {
  return options.map((option, position) => ({ id: newId(), field_id: fieldId, name: option.name.trim(), color_id: option.color, position }));
}

/** The values the field holds, as the conversion reads them. */
async function heldValues(trx: Transaction, fieldId: string): Promise<HeldValue[]> {
  const held = new Map<string, StoredValue>();
  for (const row of await fields.valuesOfField(trx, fieldId)) held.set(row.card_id, { text: row.text_value, number: row.number_value });
  for (const row of await fields.choicesOfField(trx, fieldId)) {
    const value = held.get(row.card_id);
    if (value && 'options' in value) value.options.push(row.option_id);
    else held.set(row.card_id, { options: [row.option_id] });
  }
  return [...held].map(([cardId, value]) => ({ cardId, value }));
}

/**
 * Locks the cards `carriersOf` names (in id order), then the field; reads the carriers again under
 * the field's lock, which every value write holds shared, and runs the request again if one was
 * added meanwhile (so none is left unlocked and unrecorded).
 */
async function lockCarriersThenField(trx: Transaction, fieldId: string, carriersOf: () => Promise<string[]>) {
  const carriers = await carriersOf();
  const cards = await lockCardRows(trx, carriers, 'skip');
  const field = await fields.lockCustomField(trx, fieldId);
  if (!field) throw new NotFoundError('Custom field');
  const now = await carriersOf();
  if (now.some((id) => !carriers.includes(id))) throw new ChangedMeanwhile('A card');
  return { field, cards: [...cards.values()].filter((card) => now.includes(card.id)) };
}

/**
 * Update Custom Field: name, unit, whether faces show it, its place among the board's fields, its
 * options (the whole list: those left out are removed from the cards that chose them) and its type
 * (refused with a 409 when the values it holds would not convert: ./values.ts). One change of the
 * field (`__v` + 1), and one of each card whose value changed.
 */
export async function updateCustomField(ctx: ServiceContext, caller: Caller, fieldId: string, input: CustomFieldChange, scope: Scope): Promise<CustomField> {
  const seen = await requireAccess(ctx.db, caller, { kind: 'custom-field', id: fieldId, scope });
  const type = input.type ?? seen.type;
  checkShape(type, input.unit ?? (input.type !== undefined && type !== 'number' ? undefined : seen.unit), input.options);
  if (input.options) await requireColors(ctx.db, input.options);
  const name = input.name?.trim();
  try {
    await inTransaction(ctx, async (trx) => {
      const at = nowIso();
      if (!(await lockBoard(trx, seen.board_id))) throw new NotFoundError('Custom field');
      const options = await fields.findOptionsOfFields(trx, [seen.id]);
      const kept = new Set((input.options ?? []).flatMap((option) => (option._id === undefined ? [] : [option._id])));
      const unknown = (input.options ?? []).flatMap((option, index) =>
        option._id !== undefined && !options.some((o) => o.id === option._id)
          ? [{ field: `body.options[${index}]._id`, message: 'is no option of this field' }]
          : [],
      );
      if (unknown.length) throw new ValidationError('Unknown option', unknown);
      const typeChanges = input.type !== undefined && input.type !== seen.type;
      // options a select keeps across select <-> multiselect; every other type change drops them
      const droppedOptions = input.options ? options.filter((o) => !kept.has(o.id)) : typeChanges && !(isSelect(seen.type) && isSelect(type)) ? options : [];
      const touchesValues = typeChanges || droppedOptions.length > 0;
      const { field, cards } = touchesValues
        ? await lockCarriersThenField(trx, seen.id, () =>
            typeChanges
              ? fields.cardIdsWithValue(trx, seen.id)
              : fields.cardIdsWithOptions(
                  trx,
                  droppedOptions.map((o) => o.id),
                ),
          )
        : { field: await fields.lockCustomField(trx, seen.id), cards: [] };
      if (!field) throw new NotFoundError('Custom field');
      requireExpectedVersion(trx, caller, 'custom-field', field.id, field.version);
      if (typeChanges) await convert(trx, field, type, options);
      if (input.options) await replaceOptions(trx, field.id, input.options, options);
      else if (droppedOptions.length)
        await fields.deleteOptions(
          trx,
          droppedOptions.map((o) => o.id),
        );
      const change: Parameters<typeof fields.updateCustomField>[2] = {};
      if (name !== undefined) change.name = name;
      if (input.type !== undefined) change.type = input.type;
      if (input.unit !== undefined) change.unit = input.unit.trim();
      else if (typeChanges && type !== 'number') change.unit = '';
      if (input.showOnCard !== undefined) change.show_on_card = input.showOnCard ? 1 : 0;
      await fields.updateCustomField(trx, field.id, change, at);
      if (input.position !== undefined) {
        // the others shift without a change of their own, as cards renumbered by a placement do not
        const order = (await fields.findCustomFieldsOfBoard(trx, field.board_id)).map((row) => row.id);
        await fields.setFieldPositions(trx, placed(order, field.id, input.position));
      }
      const cardChange = { customField: field.id, ...(typeChanges ? { converted: type } : { clearedOptions: droppedOptions.map((o) => o.id) }) };
      for (const card of cards) await recordCardChange(trx, card, { caller, kind: 'card.custom_fields.set', at, data: cardChange });
      const after = (await fields.findCustomField(trx, field.id))!;
      const view = (row: fields.CustomFieldRow) => ({
        name: row.name,
        type: row.type,
        unit: row.unit,
        showOnCard: Boolean(row.show_on_card),
        position: Number(row.position),
      });
      recordEvent(
        trx,
        caller,
        'custom_field.updated',
        boardSubject(field),
        { customField: field.id, ...changedFields(view(field), view(after)), ...(input.options ? { options: true } : {}), cards: cards.map((c) => c.id) },
        at,
      );
    });
  } catch (error) {
    throw error instanceof UniqueViolation ? nameTaken(name ?? seen.name) : error;
  }
  return loadCustomField(ctx.db, seen.id);
}

/** Rewrites the field's values as type `to` stores them, or refuses (409) naming how many cards hold values that would not convert. */
async function convert(trx: Transaction, field: fields.CustomFieldRow, to: string, options: readonly CustomFieldOptionRow[]): Promise<void> {
  const held = await heldValues(trx, field.id);
  const conversion = convertValues(field.type, to, held, new Map(options.map((o) => [o.id, o.name])));
  if ('refused' in conversion) {
    throw new ConflictError(`The field's values do not convert from ${field.type} to ${to}: ${conversion.cards.length} card(s) hold ${conversion.refused}`, [
      { field: 'body.type', message: `${conversion.cards.length} card(s) hold ${conversion.refused}; clear them first`, cards: conversion.cards.length },
    ]);
  }
  const values: NewRow<'card_field_values'>[] = [];
  const choices: NewRow<'card_field_choices'>[] = [];
  for (const { cardId, value } of conversion.values) {
    if ('options' in value) for (const option of value.options) choices.push({ card_id: cardId, field_id: field.id, option_id: option });
    else values.push({ card_id: cardId, field_id: field.id, text_value: value.text, number_value: value.number });
  }
  await fields.replaceValuesOfField(trx, field.id, values, choices);
}

/** The field's options become `requested`, in its order: kept ones renamed and recoloured, new ones added, the rest removed. */
async function replaceOptions(trx: Transaction, fieldId: string, requested: readonly OptionRequest[], current: readonly CustomFieldOptionRow[]) {
  const kept = new Set(requested.flatMap((option) => (option._id === undefined ? [] : [option._id])));
  await fields.deleteOptions(
    trx,
    current.filter((o) => !kept.has(o.id)).map((o) => o.id),
  );
  const added: NewRow<'custom_field_options'>[] = [];
  for (const [position, option] of requested.entries()) {
    if (option._id === undefined) added.push({ id: newId(), field_id: fieldId, name: option.name.trim(), color_id: option.color, position });
    else await fields.updateOption(trx, option._id, { name: option.name.trim(), color_id: option.color, position });
  }
  await fields.insertOptions(trx, added);
}

/**
 * Delete Custom Field: the field, its options and every card's value of it, in one transaction; each
 * card that held a value changes (`__v` + 1). Answers the field as it was and how many cards it cleared.
 */
export async function deleteCustomField(
  ctx: ServiceContext,
  caller: Caller,
  fieldId: string,
  scope: Scope,
): Promise<{ field: CustomField; clearedCards: number }> {
  const seen = await requireAccess(ctx.db, caller, { kind: 'custom-field', id: fieldId, scope });
  const before = await loadCustomField(ctx.db, seen.id);
  const cleared = await inTransaction(ctx, async (trx) => {
    const at = nowIso();
    if (!(await lockBoard(trx, seen.board_id))) throw new NotFoundError('Custom field');
    const { field, cards } = await lockCarriersThenField(trx, seen.id, () => fields.cardIdsWithValue(trx, seen.id));
    requireExpectedVersion(trx, caller, 'custom-field', field.id, field.version);
    const change = { caller, kind: 'card.custom_fields.set', at, data: { customField: field.id, cleared: true, fieldDeleted: true } } as const;
    for (const card of cards) await recordCardChange(trx, card, change);
    await fields.deleteCustomField(trx, field.id);
    await fields.setFieldPositions(
      trx,
      (await fields.findCustomFieldsOfBoard(trx, field.board_id)).map((row) => row.id),
    );
    recordEvent(trx, caller, 'custom_field.deleted', boardSubject(field), { customField: field.id, name: field.name, cards: cards.map((c) => c.id) }, at);
    return cards.length;
  });
  return { field: before, clearedCards: cleared };
}
