/**
 * How the event record is read in order, per engine (held by the dialect object as `eventFeed`).
 *
 * A reader of the feed (the webhook dispatcher, a live stream) keeps a position and asks for what
 * committed after it. The order must be stable and gapless: once a reader has passed a position, no
 * event may commit before it later. On SQLite one write transaction runs at a time, so `seq` (the
 * insert order) is the commit order. On PostgreSQL a transaction that inserted `seq` 5 can commit
 * after one that inserted 6; there the feed is ordered by (`tx`, `seq`), `tx` being the inserting
 * transaction's id, and shows only events of transactions older than every transaction still
 * running (`pg_snapshot_xmin`), so nothing can appear behind a reader. A long transaction delays the
 * feed (bounded by the statement and idle-in-transaction timeouts); it never loses an event.
 */
import { type CreateTableBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { Database, Executor, Row } from './database.ts';

/** Where a reader of the feed stands (opaque outside src/storage). */
export type FeedPosition = string;

export type EventRow = Omit<Row<'events'>, 'tx'> & { position: FeedPosition };

export type EventQuery = SelectQueryBuilder<Database, 'events', Row<'events'>>;

export interface EventFeed {
  /** The columns that order the feed (migration 0002). */
  addSequenceColumns<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, any>;
  createFeedIndex(db: Kysely<any>): Promise<void>;
  /** Committed events after `after` (null: from the first), in feed order, at most `limit`; `narrow` filters. */
  committedAfter(db: Executor, after: FeedPosition | null, limit: number, narrow?: (query: EventQuery) => EventQuery): Promise<EventRow[]>;
  /** The position of the event with this `_id`, if it is recorded. */
  positionOf(db: Executor, eventId: string): Promise<FeedPosition | undefined>;
  /** The feed's end now: a reader starting here sees only what commits from now on (or was still running). */
  end(db: Executor): Promise<FeedPosition>;
  /**
   * Whether events after `after` have committed that `committedAfter` does not show yet (PostgreSQL:
   * behind a transaction still running): the reader should look again shortly, as no bell will ring.
   */
  heldBack(db: Executor, after: FeedPosition | null, narrow?: (query: EventQuery) => EventQuery): Promise<boolean>;
}

function asRow(row: Omit<Row<'events'>, 'tx'>, position: FeedPosition): EventRow {
  const { tx: _tx, ...rest } = row as Row<'events'>;
  return { ...rest, seq: Number(rest.seq), position };
}

export class SqliteEventFeed implements EventFeed {
  addSequenceColumns<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, any> {
    return table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement());
  }

  async createFeedIndex(): Promise<void> {
    // `seq` is the rowid: the table is its own index.
  }

  async committedAfter(db: Executor, after: FeedPosition | null, limit: number, narrow?: (query: EventQuery) => EventQuery): Promise<EventRow[]> {
    let query = db.selectFrom('events').selectAll() as EventQuery;
    if (after !== null) query = query.where('seq', '>', Number(after));
    if (narrow) query = narrow(query);
    const rows = await query.orderBy('seq').limit(limit).execute();
    return rows.map((row) => asRow(row, String(row.seq)));
  }

  async positionOf(db: Executor, eventId: string): Promise<FeedPosition | undefined> {
    const row = await db.selectFrom('events').select('seq').where('id', '=', eventId).executeTakeFirst();
    return row ? String(row.seq) : undefined;
  }

  async end(db: Executor): Promise<FeedPosition> {
    const row = await db.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
    return String(row?.seq ?? 0);
  }

  async heldBack(): Promise<boolean> {
    // One write transaction at a time: whatever committed is visible.
    return false;
  }
}

/**
 * The NOTIFY channel of the schema the connection works in, so several deployments (or test suites)
 * on one PostgreSQL server hear only their own commits; hashed, as channel names are short.
 */
export const EVENTS_CHANNEL_SQL = `'taskboard_events_' || left(md5(current_schema()), 16)`;

/** `tx:seq`, both decimal. */
function pgPosition(tx: string, seq: number | string): FeedPosition {
  return `${tx}:${seq}`;
}

function parsePgPosition(position: FeedPosition): { tx: string; seq: string } {
  const [tx = '0', seq = '0'] = position.split(':');
  if (!/^\d+$/.test(tx) || !/^\d+$/.test(seq)) throw new Error(`not a feed position: ${position}`);
  return { tx, seq };
}

/**
 * The events after `after` on one side of the oldest transaction still running: those the feed
 * shows (their transactions are older than it), or those it holds back; `narrow` filters.
 */
function pgEventsAfter(db: Executor, which: 'shown' | 'held back', after: FeedPosition | null, narrow?: (query: EventQuery) => EventQuery): EventQuery {
  let query = db
    .selectFrom('events')
    .selectAll()
    .where(sql<boolean>`tx ${sql.raw(which === 'shown' ? '<' : '>=')} pg_snapshot_xmin(pg_current_snapshot())`) as EventQuery;
  if (after !== null) {
    const { tx, seq } = parsePgPosition(after);
    query = query.where(sql<boolean>`(tx, seq) > (${tx}::xid8, ${seq}::bigint)`);
  }
  return narrow ? narrow(query) : query;
}

export class PostgresEventFeed implements EventFeed {
  addSequenceColumns<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, any> {
    return table
      .addColumn('seq', 'bigserial', (c) => c.primaryKey())
      .addColumn('tx', sql`xid8`, (c) => c.notNull().defaultTo(sql`pg_current_xact_id()`));
  }

  async createFeedIndex(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('events_feed').on('events').columns(['tx', 'seq']).execute();
  }

  async committedAfter(db: Executor, after: FeedPosition | null, limit: number, narrow?: (query: EventQuery) => EventQuery): Promise<EventRow[]> {
    const rows = await pgEventsAfter(db, 'shown', after, narrow)
      .select(sql<string>`tx::text`.as('tx_text'))
      .orderBy(sql`tx`)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((row) => {
      const { tx_text, ...rest } = row as Row<'events'> & { tx_text: string };
      return asRow(rest, pgPosition(tx_text, rest.seq));
    });
  }

  async positionOf(db: Executor, eventId: string): Promise<FeedPosition | undefined> {
    const row = await db
      .selectFrom('events')
      .select(['seq', sql<string>`tx::text`.as('tx_text')])
      .where('id', '=', eventId)
      .executeTakeFirst();
    return row ? pgPosition(row.tx_text, row.seq) : undefined;
  }

  async end(db: Executor): Promise<FeedPosition> {
    const { rows } = await sql<{ tx_text: string | null; seq: string | null }>`
      select tx::text as tx_text, seq from events
      where tx < pg_snapshot_xmin(pg_current_snapshot())
      order by tx desc, seq desc limit 1`.execute(db);
    const last = rows[0];
    return last?.tx_text ? pgPosition(last.tx_text, last.seq ?? 0) : pgPosition('0', 0);
  }

  async heldBack(db: Executor, after: FeedPosition | null, narrow?: (query: EventQuery) => EventQuery): Promise<boolean> {
    // Rows this snapshot sees are committed; those at or above xmin are the ones the feed holds back.
    return (await pgEventsAfter(db, 'held back', after, narrow).limit(1).execute()).length > 0;
  }

}
