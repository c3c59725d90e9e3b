import type { Kysely } from 'kysely';

/**
 * Custom fields (docs/decisions/0132): a board's field definitions, the options of its select
 * fields, and each card's values. A value is a row per card and field in `card_field_values`, typed
 * by column (text, url, date, person in `text_value`; number and checkbox in `number_value`), or for
 * select fields one row per chosen option in `card_field_choices`, so that a filter by a field reads
 * an index instead of parsing JSON.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('custom_fields')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('team_id', 'char(24)', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('board_id', 'char(24)', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // text, number, date, select, multiselect, checkbox, person, url
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('unit', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('position', 'double precision', (c) => c.notNull())
    .addColumn('show_on_card', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('creator_id', 'char(24)', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // one name per board: a move or copy matches fields by name (and type)
  await db.schema.createIndex('custom_fields_board_name').on('custom_fields').columns(['board_id', 'name']).unique().execute();

  await db.schema
    .createTable('custom_field_options')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('field_id', 'char(24)', (c) => c.notNull().references('custom_fields.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('color_id', 'char(24)', (c) => c.notNull().references('label_colors.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('custom_field_options_field').on('custom_field_options').columns(['field_id', 'position']).execute();

  await db.schema
    .createTable('card_field_values')
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('field_id', 'char(24)', (c) => c.notNull().references('custom_fields.id').onDelete('cascade'))
    .addColumn('text_value', 'text')
    .addColumn('number_value', 'double precision')
    .addPrimaryKeyConstraint('card_field_values_pk', ['card_id', 'field_id'])
    .execute();
  // a filter by a field walks one of these, then joins the cards
  await db.schema.createIndex('card_field_values_text').on('card_field_values').columns(['field_id', 'text_value']).execute();
  await db.schema.createIndex('card_field_values_number').on('card_field_values').columns(['field_id', 'number_value']).execute();

  await db.schema
    .createTable('card_field_choices')
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('field_id', 'char(24)', (c) => c.notNull().references('custom_fields.id').onDelete('cascade'))
    .addColumn('option_id', 'char(24)', (c) => c.notNull().references('custom_field_options.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('card_field_choices_pk', ['card_id', 'field_id', 'option_id'])
    .execute();
  await db.schema.createIndex('card_field_choices_option').on('card_field_choices').columns(['option_id', 'card_id']).execute();
  await db.schema.createIndex('card_field_choices_field').on('card_field_choices').columns(['field_id', 'card_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('card_field_choices').execute();
  await db.schema.dropTable('card_field_values').execute();
  await db.schema.dropTable('custom_field_options').execute();
  await db.schema.dropTable('custom_fields').execute();
}
