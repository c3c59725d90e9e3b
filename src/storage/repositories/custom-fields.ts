/**
 * Custom fields (docs/decisions/0132): a board's definitions and their options, and the cards'
 * values (`card_field_values` for every type but the selects, `card_field_choices` for those).
 */
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Executor, NewRow, Row, Transaction } from '../database.ts';
import { type Dialect, dialectOf, executeCompiled, executeCompiledOnce, type Param } from '../dialect.ts';

export type CustomFieldRow = Row<'custom_fields'>;
export type CustomFieldOptionRow = Row<'custom_field_options'> & { color_name: string; color_hex: string };

/** A field of a board that is not marked deleted. */
export async function findCustomField(db: Executor, id: string): Promise<CustomFieldRow | undefined> {
  return db
    .selectFrom('custom_fields as f')
    .selectAll('f')
    .where('f.id', '=', id)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('boards as b').select('b.id').whereRef('b.id', '=', 'f.board_id').where('b.deleted_at', 'is not', null))),
    )
    .executeTakeFirst();
}

/** The board's fields in their order. */
export async function findCustomFieldsOfBoard(db: Executor, boardId: string): Promise<CustomFieldRow[]> {
  return db.selectFrom('custom_fields').selectAll().where('board_id', '=', boardId).orderBy('position').orderBy('id').execute();
}

/**
 * The board's fields, held unchanged until the transaction ends (a share lock): what a card's values
 * are checked against. A change of a field's type or options takes the field's lock, so it waits for
 * the values being written, and they for it.
 */
export async function shareCustomFieldsOfBoard(db: Transaction, boardId: string): Promise<CustomFieldRow[]> {
  const { fragments } = dialectOf(db);
  return fragments.lockForShare(db.selectFrom('custom_fields').selectAll().where('board_id', '=', boardId).orderBy('position').orderBy('id')).execute();
}

/** The board's fields with any of `names` (ignoring case, as the search compares names), with their types. */
export async function fieldsOfBoardNamed(db: Executor, boardId: string, names: readonly string[]): Promise<Pick<CustomFieldRow, 'id' | 'name' | 'type'>[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom('custom_fields')
    .select(['id', 'name', 'type'])
    .where('board_id', '=', boardId)
    .where(sql<SqlBool>`lower(name) in (${sql.join([...new Set(names)].map((name) => sql`lower(${name})`))})`)
    .execute();
}

/**
 * The fields of the board among `fieldIds` (in no order; an id of no field of the board is left out),
 * held as `shareCustomFieldsOfBoard` holds them: what values of those fields are checked against.
 * Only the fields named are held, so a change of another field of the board does not wait for it.
 */
export async function shareCustomFields(db: Transaction, boardId: string, fieldIds: readonly string[]): Promise<CustomFieldRow[]> {
  if (fieldIds.length === 0) return [];
  const dialect = dialectOf(db);
  const held = (which: Expression<SqlBool>, board: string) =>
    dialect.fragments.lockForShare(db.selectFrom('custom_fields').selectAll().where(which).where('board_id', '=', board));
  // one field (the usual request) by its key; several through the id list, whose text is the same for any number
  if (fieldIds.length === 1) {
    return executeCompiledOnce(db, 'share custom field', (param) => held(sql<SqlBool>`id = ${param('fieldId')}`, param('boardId')), {
      fieldId: fieldIds[0] as string,
      boardId,
    });
  }
  return executeCompiledOnce(db, 'share custom fields', (param) => held(dialect.inIdList('id', param('fieldIds')), param('boardId')), {
    fieldIds: dialect.idList(fieldIds),
    boardId,
  });
}

/** The options of the fields, with their colours, each field's in its order. */
export async function findOptionsOfFields(db: Executor, fieldIds: readonly string[]): Promise<CustomFieldOptionRow[]> {
  if (fieldIds.length === 0) return [];
  return db
    .selectFrom('custom_field_options as o')
    .innerJoin('label_colors as lc', 'lc.id', 'o.color_id')
    .selectAll('o')
    .select(['lc.name as color_name', 'lc.hex as color_hex'])
    .where('o.field_id', 'in', fieldIds)
    .orderBy('o.field_id')
    .orderBy('o.position')
    .orderBy('o.id')
    .execute();
}

/** How many cards carry a value of each field (fields with none are left out). */
export async function countCardsWithValues(db: Executor, fieldIds: readonly string[]): Promise<Map<string, number>> {
  if (fieldIds.length === 0) return new Map();
  const values = await db
    .selectFrom('card_field_values')
    .select(['field_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('field_id', 'in', fieldIds)
    .groupBy('field_id')
    .execute();
  const choices = await db
    .selectFrom('card_field_choices')
    .select(['field_id', (eb) => eb.fn.count<number>('card_id').distinct().as('n')])
    .where('field_id', 'in', fieldIds)
    .groupBy('field_id')
    .execute();
  return new Map([...values, ...choices].map((row) => [row.field_id, Number(row.n)]));
}

/** The last position of the board's fields (-1 when it has none). */
export async function lastFieldPosition(db: Executor, boardId: string): Promise<number> {
  const row = await db
    .selectFrom('custom_fields')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('board_id', '=', boardId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? -1 : Number(row.last);
}

export async function insertCustomField(db: Transaction, row: NewRow<'custom_fields'>): Promise<void> {
  await db.insertInto('custom_fields').values(row).execute();
}

/** Gives the fields the positions 0, 1, … in the order of `ids`, where they differ. */
export async function setFieldPositions(db: Transaction, ids: readonly string[]): Promise<void> {
  for (const [position, id] of ids.entries()) {
    await db.updateTable('custom_fields').set({ position }).where('id', '=', id).where('position', '!=', position).execute();
  }
}

export async function insertOptions(db: Transaction, rows: readonly NewRow<'custom_field_options'>[]): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('custom_field_options')
      .values([...rows])
      .execute();
}

export async function updateOption(db: Transaction, id: string, change: { name: string; color_id: string; position: number }): Promise<void> {
  await db.updateTable('custom_field_options').set(change).where('id', '=', id).execute();
}

export async function deleteOptions(db: Transaction, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await db.deleteFrom('custom_field_options').where('id', 'in', ids).execute();
}

/** Changes a field (one change: `__v` + 1); answers its `__v` now, undefined when there is no field. */
export async function updateCustomField(
  db: Transaction,
  id: string,
  change: Partial<Pick<CustomFieldRow, 'name' | 'type' | 'unit' | 'position' | 'show_on_card'>>,
  at: string,
): Promise<number | undefined> {
  const row = await db
    .updateTable('custom_fields')
    .set((eb) => ({ ...change, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .returning('version')
    .executeTakeFirst();
  return row && Number(row.version);
}

/** Takes a field's row lock (a no-op update), so that changes of one field apply one after another. */
export async function lockCustomField(db: Transaction, id: string): Promise<CustomFieldRow | undefined> {
  return db
    .updateTable('custom_fields')
    .set((eb) => ({ version: eb.ref('version') }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a field (its options and values go with it); answers the `__v` it had, undefined when it was not there. */
export async function deleteCustomField(db: Transaction, id: string): Promise<number | undefined> {
  const row = await db.deleteFrom('custom_fields').where('id', '=', id).returning('version').executeTakeFirst();
  return row && Number(row.version);
}

/** The cards that carry a value of the field. */
export async function cardIdsWithValue(db: Executor, fieldId: string): Promise<string[]> {
  const values = await db.selectFrom('card_field_values').select('card_id').where('field_id', '=', fieldId).execute();
  const choices = await db.selectFrom('card_field_choices').select('card_id').where('field_id', '=', fieldId).distinct().execute();
  return [...new Set([...values, ...choices].map((r) => r.card_id))].sort();
}

/** The cards that chose one of the options. */
export async function cardIdsWithOptions(db: Executor, optionIds: readonly string[]): Promise<string[]> {
  if (optionIds.length === 0) return [];
  const rows = await db.selectFrom('card_field_choices').select('card_id').where('option_id', 'in', optionIds).distinct().execute();
  return rows.map((r) => r.card_id).sort();
}

/** The plain values (not selects) of the field, per card. */
export async function valuesOfField(db: Executor, fieldId: string): Promise<Row<'card_field_values'>[]> {
  return db.selectFrom('card_field_values').selectAll().where('field_id', '=', fieldId).orderBy('card_id').execute();
}

/** The chosen options of the field, per card. */
export async function choicesOfField(db: Executor, fieldId: string): Promise<Row<'card_field_choices'>[]> {
  return db.selectFrom('card_field_choices').selectAll().where('field_id', '=', fieldId).orderBy('card_id').orderBy('option_id').execute();
}

/** The values of the cards (both tables), for copies and moves. */
export async function valuesOfCards(
  db: Executor,
  cardIds: readonly string[],
): Promise<{ values: Row<'card_field_values'>[]; choices: Row<'card_field_choices'>[] }> {
  if (cardIds.length === 0) return { values: [], choices: [] };
  const values = await db.selectFrom('card_field_values').selectAll().where('card_id', 'in', cardIds).execute();
  const choices = await db.selectFrom('card_field_choices').selectAll().where('card_id', 'in', cardIds).execute();
  return { values, choices };
}

/** Clears the card's plain values (not selects) of the fields. */
export async function clearPlainValues(db: Transaction, cardId: string, fieldIds: readonly string[]): Promise<void> {
  if (fieldIds.length > 0) await db.deleteFrom('card_field_values').where('card_id', '=', cardId).where('field_id', 'in', fieldIds).execute();
}

/** Clears the card's chosen options of the (select) fields. */
export async function clearChoices(db: Transaction, cardId: string, fieldIds: readonly string[]): Promise<void> {
  if (fieldIds.length > 0) await db.deleteFrom('card_field_choices').where('card_id', '=', cardId).where('field_id', 'in', fieldIds).execute();
}

/**
 * Writes plain values, each replacing the card's value of its field where there is one. Nobody reads
 * the writes' answers: they go out with the transaction's next statement (the card's change).
 */
export async function upsertValues(db: Transaction, rows: readonly NewRow<'card_field_values'>[]): Promise<void> {
  const dialect = dialectOf(db);
  for (const row of rows) {
    const upsert = dialect.parameterizedOnce(
      'upsert card field value',
      (param) =>
        db
          .insertInto('card_field_values')
          .values({ card_id: param('cardId'), field_id: param('fieldId'), text_value: param('text'), number_value: param('number') })
          .onConflict((oc) =>
            oc
              .columns(['card_id', 'field_id'])
              .doUpdateSet((eb) => ({ text_value: eb.ref('excluded.text_value'), number_value: eb.ref('excluded.number_value') })),
          ),
      { cardId: row.card_id, fieldId: row.field_id, text: row.text_value ?? null, number: row.number_value ?? null },
    );
    await executeCompiled(db, dialect.sentWithNext(upsert));
  }
}

/** Clears every value of the cards (what a move to another board does before it writes those that fit). */
export async function clearValuesOfCards(db: Transaction, cardIds: readonly string[]): Promise<void> {
  if (cardIds.length === 0) return;
  await db.deleteFrom('card_field_values').where('card_id', 'in', cardIds).execute();
  await db.deleteFrom('card_field_choices').where('card_id', 'in', cardIds).execute();
}

export async function insertValues(db: Transaction, rows: readonly NewRow<'card_field_values'>[]): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('card_field_values')
      .values([...rows])
      .execute();
}

export async function insertChoices(db: Transaction, rows: readonly NewRow<'card_field_choices'>[]): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('card_field_choices')
      .values([...rows])
      .execute();
}

/** Rewrites the field's plain values (a type change's conversion): the given rows replace them all. */
export async function replaceValuesOfField(
  db: Transaction,
  fieldId: string,
  values: readonly NewRow<'card_field_values'>[],
  choices: readonly NewRow<'card_field_choices'>[],
): Promise<void> {
  await db.deleteFrom('card_field_values').where('field_id', '=', fieldId).execute();
  await db.deleteFrom('card_field_choices').where('field_id', '=', fieldId).execute();
  await insertValues(db, values);
  await insertChoices(db, choices);
}

/** A card's value of a field as the card reads take it: a plain value, or one option a select chose (`option_id`). */
export interface CardFieldValueRow {
  card_id: string;
  field_id: string;
  type: string;
  text_value: string | null;
  number_value: number | null;
  option_id: string | null;
}

const VALUE_COLUMNS = ['card_id', 'field_id', 'type', 'text_value', 'number_value', 'option_id'] as const;
type ValueTuple = [string, string, string, string | null, number | null, string | null];

/** The rows `fieldValuesOfCards` reads: both tables' values of the cards of the list parameter `cardIds`. */
function valuesOfCardsQuery(db: Executor, dialect: Dialect, param: Param<{ cardIds: unknown }>) {
  return db
    .selectFrom('card_field_values as fv')
    .innerJoin('custom_fields as f', 'f.id', 'fv.field_id')
    .select(['fv.card_id', 'fv.field_id', 'f.type', 'fv.text_value', 'fv.number_value', sql<string | null>`null`.as('option_id')])
    .where(dialect.inIdList('fv.card_id', param('cardIds')))
    .unionAll(
      db
        .selectFrom('card_field_choices as fc')
        .innerJoin('custom_fields as f', 'f.id', 'fc.field_id')
        .select(['fc.card_id', 'fc.field_id', 'f.type', sql<string | null>`null`.as('text_value'), sql<number | null>`null`.as('number_value'), 'fc.option_id'])
        .where(dialect.inIdList('fc.card_id', param('cardIds'))),
    );
}

/**
 * The values of the cards (both tables, each with its field's type), by card: one statement for any
 * number of cards, whose text does not depend on the number. What the card reads (a record, a face)
 * take beside the cards' own statement, rather than two JSON arrays built for each card, which cost
 * more to build and parse than the rows. Cards without values are left out.
 */
export async function fieldValuesOfCards(db: Executor, cardIds: readonly string[]): Promise<Map<string, CardFieldValueRow[]>> {
  const byCard = new Map<string, CardFieldValueRow[]>();
  if (cardIds.length === 0) return byCard;
  const dialect = dialectOf(db);
  const values = { cardIds: dialect.idList(cardIds) };
  const tuples = dialect.fragments.rowsAsJsonTuples('v', VALUE_COLUMNS);
  let rows: CardFieldValueRow[];
  if (tuples) {
    const [answer] = await executeCompiledOnce(
      db,
      'field values of cards as tuples',
      (param) => db.selectFrom(valuesOfCardsQuery(db, dialect, param).as('v')).select(tuples.as('tuples')),
      values,
    );
    rows = ((answer?.tuples ?? []) as ValueTuple[]).map(([card_id, field_id, type, text_value, number_value, option_id]) => ({
      card_id,
      field_id,
      type,
      text_value,
      number_value,
      option_id,
    }));
  } else {
    rows = await executeCompiledOnce(db, 'field values of cards', (param) => valuesOfCardsQuery(db, dialect, param), values);
  }
  for (const row of rows) {
    const ofCard = byCard.get(row.card_id);
    if (ofCard) ofCard.push(row);
    else byCard.set(row.card_id, [row]);
  }
  return byCard;
}
