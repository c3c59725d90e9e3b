import type { Kysely } from 'kysely';

/**
 * Board rules (docs/api.md, "Rules"; docs/decisions/0141-board-rules-exactly-once.md): the rules of
 * a board, the cursor of the rule worker in the event feed, one run per rule and triggering event
 * (unique, so a trigger is filed once however many instances read the feed), the actions a board's
 * rules took per hour (its limit), and the rule an event's change was made by.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rules')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('team_id', 'char(24)', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('board_id', 'char(24)', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON text: the trigger, the conditions (all must hold) and the actions, as the API shows them
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('conditions', 'text', (c) => c.notNull())
    .addColumn('actions', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    // set when the engine paused the rule (a failure, a chain too deep, its author out of reach)
    .addColumn('paused_reason', 'text')
    .addColumn('author_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rules_board').on('rules').columns(['board_id', 'enabled']).execute();

  await db.schema
    .createTable('rule_runs')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('rule_id', 'char(24)', (c) => c.notNull().references('rules.id').onDelete('cascade'))
    .addColumn('board_id', 'char(24)', (c) => c.notNull())
    // the triggering event's id, or `due:<card>:<due date>` for a due-date trigger
    .addColumn('trigger_key', 'text', (c) => c.notNull())
    .addColumn('event_id', 'char(24)')
    .addColumn('card_id', 'char(24)')
    // 1 for a change a person made; one more for each rule between it and the run
    .addColumn('depth', 'integer', (c) => c.notNull())
    // pending, done, skipped or failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('actions_taken', 'integer', (c) => c.notNull())
    // JSON text: what each action changed
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('rule_runs_trigger').on('rule_runs').columns(['rule_id', 'trigger_key']).unique().execute();
  await db.schema.createIndex('rule_runs_status').on('rule_runs').columns(['status', 'id']).execute();
  await db.schema.createIndex('rule_runs_rule').on('rule_runs').columns(['rule_id', 'id']).execute();

  await db.schema
    .createTable('rule_board_hours')
    .addColumn('board_id', 'char(24)', (c) => c.notNull())
    // the hour's start, ISO
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('actions', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rule_board_hours_pk', ['board_id', 'hour'])
    .execute();

  await db.schema
    .createTable('rule_feed')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // null: not started; the first pass sets it at the feed's end
    .addColumn('position', 'text')
    .execute();
  await db.insertInto('rule_feed').values({ id: 'rules', position: null }).execute();

  await db.schema.alterTable('events').addColumn('actor_rule_id', 'char(24)').execute();
  await db.schema.alterTable('events').addColumn('actor_rule_name', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('actor_rule_name').execute();
  await db.schema.alterTable('events').dropColumn('actor_rule_id').execute();
  await db.schema.dropTable('rule_feed').execute();
  await db.schema.dropTable('rule_board_hours').execute();
  await db.schema.dropTable('rule_runs').execute();
  await db.schema.dropTable('rules').execute();
}
