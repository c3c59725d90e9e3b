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
 *
 * A reader that starts "from now" (a live stream without Last-Event-ID) starts at `now`, not at `end`:
 * on PostgreSQL events that committed before it started may still be held back behind an older
 * transaction, and would reach it later as if new. Its position carries the snapshot of its start,
 * and the feed passes over the events that snapshot saw committed.
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
  /**
   * The feed's end now: a reader starting here has passed everything the feed shows, and will see
   * what it holds back still (a cursor that moves past what it read: the webhook dispatcher's).
   */
  end(db: Executor): Promise<FeedPosition>;
  /** Now: a reader starting here sees only what commits after it started (or was still running then). */
  now(db: Executor): Promise<FeedPosition>;
  /**
   * Asked after a read from `after` that showed nothing more: whether events after `after` have
   * committed that the read may not have shown (PostgreSQL: held back behind a transaction still
   * running then, whether shown by now or not), so the reader should look again shortly, as no bell
   * will ring for them.
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
    const row = await db
      .selectFrom('events')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .executeTakeFirst();
    return String(row?.seq ?? 0);
  }

  now(db: Executor): Promise<FeedPosition> {
    // One write transaction at a time: whatever committed is shown, so the end is now.
    return this.end(db);
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

/**
 * `tx:seq`, both decimal, then for a reader that started from now `/` and the snapshot of its start
 * (`pg_snapshot`'s text, `xmin:xmax:xip,...`) while events that snapshot may have seen can still come.
 */
function pgPosition(tx: string, seq: number | string, startedAt?: string): FeedPosition {
  return startedAt === undefined ? `${tx}:${seq}` : `${tx}:${seq}/${startedAt}`;
}

function parsePgPosition(position: FeedPosition): { tx: string; seq: string; startedAt: string | undefined } {
  const [point = '', startedAt, ...rest] = position.split('/');
  const [tx = '0', seq = '0'] = point.split(':');
  if (!/^\d+$/.test(tx) || !/^\d+$/.test(seq) || rest.length || (startedAt !== undefined && !/^\d+:\d+:[\d,]*$/.test(startedAt))) {
    throw new Error(`not a feed position: ${position}`);
  }
  return { tx, seq, startedAt };
}

/** Whether a snapshot of a reader's start can have seen the transaction `tx` commit (it is older than the snapshot's `xmax`). */
function seenBy(startedAt: string, tx: string): boolean {
  return BigInt(tx) < BigInt(startedAt.split(':')[1] as string);
}

/**
 * The events after `after` on one side of the oldest transaction still running: those the feed
 * shows (their transactions are older than it), or those it holds back; `narrow` filters.
 */
function pgEventsAfter(db: Executor, which: 'shown' | 'held back', after: FeedPosition | null, narrow?: (query: EventQuery) => EventQuery): EventQuery {
  let query = db.selectFrom('events').selectAll() as EventQuery;
  // 'held back': every committed event after `after`, not only those at or above this statement's
  // xmin. A reader asks after its read, in a statement of its own, whose snapshot may be later: an
  // event the read held back may be shown by then, and must still send the reader back to look.
  if (which === 'shown') query = query.where(sql<boolean>`tx < pg_snapshot_xmin(pg_current_snapshot())`);
  if (after !== null) {
    const { tx, seq, startedAt } = parsePgPosition(after);
    query = query.where(sql<boolean>`(tx, seq) > (${tx}::xid8, ${seq}::bigint)`);
    // committed before the reader started: not new to it
    if (startedAt !== undefined) query = query.where(sql<boolean>`not pg_visible_in_snapshot(tx, ${startedAt}::pg_snapshot)`);
  }
  return narrow ? narrow(query) : query;
}

export class PostgresEventFeed implements EventFeed {
  addSequenceColumns<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, any> {
    return table.addColumn('seq', 'bigserial', (c) => c.primaryKey()).addColumn('tx', sql`xid8`, (c) => c.notNull().defaultTo(sql`pg_current_xact_id()`));
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
    const startedAt = after === null ? undefined : parsePgPosition(after).startedAt;
    return rows.map((row) => {
      const { tx_text, ...rest } = row as Row<'events'> & { tx_text: string };
      // past the start's snapshot, nothing it saw can come any more: the position drops it
      return asRow(rest, pgPosition(tx_text, rest.seq, startedAt !== undefined && seenBy(startedAt, tx_text) ? startedAt : undefined));
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

  async now(db: Executor): Promise<FeedPosition> {
    const { rows } = await sql<{ snapshot: string }>`select pg_current_snapshot()::text as snapshot`.execute(db);
    const snapshot = rows[0]?.snapshot as string;
    // Every transaction older than the snapshot's xmin had ended: what they recorded is behind the
    // reader. From xmin on, the snapshot says what had committed.
    return pgPosition(snapshot.split(':')[0] as string, 0, snapshot);
  }

  async heldBack(db: Executor, after: FeedPosition | null, narrow?: (query: EventQuery) => EventQuery): Promise<boolean> {
    // Rows this snapshot sees are committed: any after `after` is one the reader's last read did not
    // show (held back then, behind a running transaction) or one committed since.
    return (await pgEventsAfter(db, 'held back', after, narrow).limit(1).execute()).length > 0;
  }
}
