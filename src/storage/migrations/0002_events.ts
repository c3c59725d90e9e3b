import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.ts';

/**
 * The event record (a transactional outbox): one row per change, written in the change's own
 * transaction. `seq` numbers rows as they are inserted; the dialect adds what the engine needs to
 * read them in a stable, gapless order (src/storage/dialect.ts, `eventFeed`). No foreign keys: an
 * event outlives what it speaks of (a deleted card keeps its `card.deleted`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const dialect = dialectOf(db);
  const table = dialect.eventFeed
    .addSequenceColumns(db.schema.createTable('events'))
    .addColumn('id', 'char(24)', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('company_id', 'char(24)')
    .addColumn('team_id', 'char(24)')
    .addColumn('board_id', 'char(24)')
    .addColumn('card_id', 'char(24)')
    // the one user an event is addressed to (a notification), when it is
    .addColumn('user_id', 'char(24)')
    .addColumn('actor_user_id', 'char(24)')
    .addColumn('actor_api_key_id', 'char(24)')
    .addColumn('request_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull());
  await table.execute();
  await dialect.eventFeed.createFeedIndex(db);
  for (const column of ['company_id', 'team_id', 'board_id', 'card_id', 'user_id'] as const) {
    await db.schema.createIndex(`events_${column}`).on('events').columns([column, 'seq']).execute();
  }
  await db.schema.createIndex('events_created_at').on('events').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('events').execute();
}
