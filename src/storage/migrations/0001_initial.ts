import type { CreateTableBuilder, Kysely } from 'kysely';

/**
 * The whole domain of the contract in one schema. Types are chosen to mean the same on SQLite and
 * PostgreSQL (see database.ts): text ids and timestamps, integer flags, double precision positions.
 */
// Kysely<any>: migrations work on an untyped database (the schema they make is what types it).
export async function up(db: Kysely<any>): Promise<void> {
  const id = (name = 'id') => [name, 'char(24)'] as const;
  // What every record someone made keeps: its creator and its stamps (`__v` is `version`).
  const made = <T extends string>(table: CreateTableBuilder<T, any>) =>
    table
      .addColumn('creator_id', 'char(24)', (c) => c.notNull().references('users.id'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0));
  // A table of what a team keeps: its id, company and team, each row gone with its company or team.
  const inTeamTable = (table: string) =>
    db.schema
      .createTable(table)
      .addColumn(...id(), (c) => c.primaryKey())
      .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
      .addColumn('team_id', 'char(24)', (c) => c.notNull().references('teams.id').onDelete('cascade'));

  await db.schema
    .createTable('users')
    .addColumn(...id(), (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('photo_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('companies')
    .addColumn(...id(), (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .$call(made)
    .execute();

  await db.schema
    .createTable('company_members')
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sqlIn('role', ['owner', 'admin', 'member'])))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('company_members_pk', ['company_id', 'user_id'])
    .execute();
  await db.schema.createIndex('company_members_user').on('company_members').column('user_id').execute();

  await db.schema
    .createTable('teams')
    .addColumn(...id(), (c) => c.primaryKey())
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .$call(made)
    .execute();
  await db.schema.createIndex('teams_company').on('teams').column('company_id').execute();

  await db.schema
    .createTable('team_members')
    .addColumn('team_id', 'char(24)', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_user').on('team_members').column('user_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn(...id(), (c) => c.primaryKey())
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();

  await inTeamTable('boards')
    .addColumn('name', 'text', (c) => c.notNull())
    .$call(made)
    .execute();
  await db.schema.createIndex('boards_team').on('boards').column('team_id').execute();

  await inTeamTable('lists')
    .addColumn('board_id', 'char(24)', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'double precision', (c) => c.notNull())
    .$call(made)
    .execute();
  await db.schema.createIndex('lists_board_position').on('lists').columns(['board_id', 'position']).execute();

  await db.schema
    .createTable('label_colors')
    .addColumn(...id(), (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('hex', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db
    .insertInto('label_colors')
    .values(LABEL_PALETTE.map((color, position) => ({ ...color, position })))
    .execute();

  await inTeamTable('labels')
    .addColumn('board_id', 'char(24)', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('color_id', 'char(24)', (c) => c.notNull().references('label_colors.id'))
    .$call(made)
    .execute();
  await db.schema.createIndex('labels_board').on('labels').column('board_id').execute();

  await inTeamTable('cards')
    .addColumn('board_id', 'char(24)', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('list_id', 'char(24)', (c) => c.notNull().references('lists.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('cover', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('position', 'double precision', (c) => c.notNull())
    .addColumn('start_date', 'text')
    .addColumn('due_date', 'text')
    .addColumn('complete_status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('complete_type', 'text', (c) => c.notNull().defaultTo('todo'))
    .addColumn('complete_set_at', 'text')
    .addColumn('complete_updated_at', 'text')
    .addColumn('notified_start_one_hour', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('notified_start_one_day', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('notified_due_one_hour', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('notified_due_one_day', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archived_at', 'text')
    .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('workload_value', 'double precision')
    .addColumn('workload_measurement', 'text', (c) => c.notNull().defaultTo('hours'))
    .$call(made)
    .execute();
  await db.schema.createIndex('cards_list_position').on('cards').columns(['list_id', 'archived', 'position']).execute();
  await db.schema.createIndex('cards_board').on('cards').column('board_id').execute();

  const cardLink = (table: string, other: string, otherRef: string) =>
    db.schema
      .createTable(table)
      .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
      .addColumn(other, 'char(24)', (c) => c.notNull().references(otherRef).onDelete('cascade'))
      .addPrimaryKeyConstraint(`${table}_pk`, ['card_id', other]);
  await cardLink('card_members', 'user_id', 'users.id')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('card_members_user').on('card_members').column('user_id').execute();
  await cardLink('card_labels', 'label_id', 'labels.id')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('card_labels_label').on('card_labels').column('label_id').execute();
  await cardLink('card_seen', 'user_id', 'users.id')
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .execute();

  await inTeamTable('checklists')
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'double precision', (c) => c.notNull())
    .$call(made)
    .execute();
  await db.schema.createIndex('checklists_card_position').on('checklists').columns(['card_id', 'position']).execute();

  await inTeamTable('checklist_items')
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('checklist_id', 'char(24)', (c) => c.notNull().references('checklists.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'double precision', (c) => c.notNull())
    .addColumn('date', 'text')
    .addColumn('complete_status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('complete_set_at', 'text')
    .$call(made)
    .execute();
  await db.schema.createIndex('checklist_items_checklist_position').on('checklist_items').columns(['checklist_id', 'position']).execute();
  await db.schema.createIndex('checklist_items_card').on('checklist_items').columns(['card_id', 'complete_status']).execute();

  await db.schema
    .createTable('checklist_item_members')
    .addColumn('item_id', 'char(24)', (c) => c.notNull().references('checklist_items.id').onDelete('cascade'))
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('checklist_item_members_pk', ['item_id', 'user_id'])
    .execute();

  await inTeamTable('comments')
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('content', 'text', (c) => c.notNull())
    .$call(made)
    .execute();
  await db.schema.createIndex('comments_card_created').on('comments').columns(['card_id', 'created_at', 'id']).execute();

  await inTeamTable('discussions')
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('comment_id', 'char(24)', (c) => c.notNull().references('comments.id').onDelete('cascade'))
    .addColumn('content', 'text', (c) => c.notNull())
    .$call(made)
    .execute();
  await db.schema.createIndex('discussions_comment_created').on('discussions').columns(['comment_id', 'created_at', 'id']).execute();

  await inTeamTable('attachments')
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('checklist_item_id', 'char(24)', (c) => c.references('checklist_items.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sqlIn('kind', ['file', 'link'])))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('original_name', 'text', (c) => c.notNull())
    .addColumn('link_url', 'text')
    .addColumn('storage_key', 'text')
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('is_deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'text')
    .$call(made)
    .execute();
  await db.schema.createIndex('attachments_card').on('attachments').columns(['card_id', 'is_deleted', 'created_at']).execute();
  await db.schema.createIndex('attachments_item').on('attachments').column('checklist_item_id').execute();

  await db.schema
    .createTable('attachment_seen')
    .addColumn('attachment_id', 'char(24)', (c) => c.notNull().references('attachments.id').onDelete('cascade'))
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('attachment_seen_pk', ['attachment_id', 'user_id'])
    .execute();

  await inTeamTable('cheers')
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('receiver_id', 'char(24)', (c) => c.notNull().references('users.id'))
    .addColumn('primary_type', 'text', (c) => c.notNull())
    .addColumn('primary_id', 'char(24)', (c) => c.notNull())
    .addColumn('secondary_type', 'text')
    .addColumn('secondary_id', 'char(24)')
    .addColumn('card_id', 'char(24)', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('comment_id', 'char(24)', (c) => c.references('comments.id').onDelete('cascade'))
    .addColumn('feature_type', 'text', (c) => c.notNull())
    .addColumn('is_notified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('notification', 'text', (c) => c.notNull().defaultTo(''))
    .$call(made)
    .execute();
  await db.schema.createIndex('cheers_primary').on('cheers').columns(['primary_id', 'created_at']).execute();
  await db.schema.createIndex('cheers_card').on('cheers').column('card_id').execute();

  // The rate limiter's sliding logs: one row per admitted request. `seq` numbers a bucket's hits in
  // admission (and time) order, so a decision finds the hits it needs by index, whatever the limit.
  await db.schema
    .createTable('rate_limit_hits')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('admitted_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_hits_pk', ['bucket', 'seq'])
    .execute();
  await db.schema.createIndex('rate_limit_hits_live').on('rate_limit_hits').columns(['bucket', 'admitted_at', 'seq']).execute();
  await db.schema.createIndex('rate_limit_hits_admitted').on('rate_limit_hits').column('admitted_at').execute();
}

// Kysely<any>: migrations work on an untyped database (the schema they make is what types it).
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'rate_limit_hits',
    'cheers',
    'attachment_seen',
    'attachments',
    'discussions',
    'comments',
    'checklist_item_members',
    'checklist_items',
    'checklists',
    'card_seen',
    'card_labels',
    'card_members',
    'cards',
    'labels',
    'label_colors',
    'lists',
    'boards',
    'api_keys',
    'team_members',
    'teams',
    'company_members',
    'companies',
    'users',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}

import { sql } from 'kysely';

function sqlIn(column: string, values: string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}

/** The label palette: fixed, with stable ids so clients may hard-code them. */
export const LABEL_PALETTE = [
  { id: '000000000000000000000001', name: 'green', hex: '#61bd4f' },
  { id: '000000000000000000000002', name: 'yellow', hex: '#f2d600' },
  { id: '000000000000000000000003', name: 'orange', hex: '#ff9f1a' },
  { id: '000000000000000000000004', name: 'red', hex: '#eb5a46' },
  { id: '000000000000000000000005', name: 'purple', hex: '#c377e0' },
  { id: '000000000000000000000006', name: 'blue', hex: '#0079bf' },
  { id: '000000000000000000000007', name: 'sky', hex: '#00c2e0' },
  { id: '000000000000000000000008', name: 'lime', hex: '#51e898' },
  { id: '000000000000000000000009', name: 'pink', hex: '#ff78cb' },
  { id: '00000000000000000000000a', name: 'black', hex: '#344563' },
];
