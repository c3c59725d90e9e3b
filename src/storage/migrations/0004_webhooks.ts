import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.ts';

/**
 * Webhooks (src/domain/webhooks): the subscriptions, one delivery row per event and subscription,
 * and the fan-out's place in the event feed. The feed position starts at the feed's end: a webhook
 * receives what changes after it exists.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('team_ids', 'text', (c) => c.notNull())
    .addColumn('board_ids', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    // events recorded from then on are its own: set at creation and when it is enabled again
    .addColumn('receiving_since', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('creator_id', 'char(24)', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_company').on('webhooks').columns(['company_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('webhook_id', 'char(24)', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'char(24)', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('ordinal', 'bigint', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('first_attempt_at', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  // a webhook's queue in order (its head: the first pending), and its listing newest first
  await db.schema.createIndex('webhook_deliveries_queue').on('webhook_deliveries').columns(['webhook_id', 'status', 'ordinal']).execute();
  await db.schema.createIndex('webhook_deliveries_listing').on('webhook_deliveries').columns(['webhook_id', 'ordinal']).execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();

  await db.schema
    .createTable('webhook_feed')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('position', 'text')
    .addColumn('next_ordinal', 'bigint', (c) => c.notNull())
    .execute();
  const position = await dialectOf(db).eventFeed.end(db);
  await db.insertInto('webhook_feed').values({ id: 'fan-out', position, next_ordinal: 1 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_feed').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
