import { type SelectQueryBuilder, sql } from 'kysely';
import type { Database, Executor, NewRow, Row, Transaction } from '../database.ts';
import { dialectOf, executeCompiled, type Param } from '../dialect.ts';
import type { EventQuery, EventRow, FeedPosition } from '../event-feed.ts';

/** Events per statement: fourteen parameters each stay within SQLite's (32,766) and PostgreSQL's (65,535) limits. */
const EVENTS_PER_STATEMENT = 1000;

/**
 * Writes the events of one transaction in one statement (the outbox; see src/domain/events/record.ts),
 * or one per thousand for the rare transaction that records more (an import's publication).
 */
export async function insertEvents(trx: Transaction, rows: readonly NewRow<'events'>[]): Promise<void> {
  const [first] = rows;
  if (!first) return;
  const dialect = dialectOf(trx);
  if (rows.length > EVENTS_PER_STATEMENT) {
    for (let start = 0; start < rows.length; start += EVENTS_PER_STATEMENT) {
      await trx
        .insertInto('events')
        .values(rows.slice(start, start + EVENTS_PER_STATEMENT))
        .execute();
    }
    return;
  }
  // one event (most writes): the statement compiled once; several (bulk writes): built for their number
  const insert =
    rows.length === 1
      ? dialect.parameterizedOnce('insert event', (param) => trx.insertInto('events').values(eventParameters(param)), { ...first })
      : trx
          .insertInto('events')
          .values([...rows])
          .compile();
  // the last statement of its transaction, read by nobody: sent with the COMMIT where that saves a round trip
  await executeCompiled(trx, dialect.sentWithCommit(insert));
}

const EVENT_COLUMNS = [
  'id',
  'type',
  'company_id',
  'team_id',
  'board_id',
  'card_id',
  'user_id',
  'actor_user_id',
  'actor_api_key_id',
  'actor_rule_id',
  'actor_rule_name',
  'request_id',
  'created_at',
  'data',
] as const;

/** The row of one event with each column a named parameter of the statement compiled once. */
function eventParameters(param: Param<NewRow<'events'>>): NewRow<'events'> {
  return Object.fromEntries(EVENT_COLUMNS.map((column) => [column, param(column)])) as unknown as NewRow<'events'>;
}

/** Events per read of a stream's feed: a stream far behind catches up page by page. */
export const FEED_PAGE = 200;

/**
 * What a board's stream shows: the events filed under the board, and the moves of its cards to
 * another board (a move is filed under the board the card went to; its data names the board it left
 * as `from.board`), so a client watching either board learns of it.
 */
function ofBoard(boardId: string) {
  // the data's JSON text as JSON.stringify writes it (src/domain/events/record.ts): `"board":"<id>"`
  return (query: EventQuery): EventQuery =>
    query.where((eb) => eb.or([eb('board_id', '=', boardId), eb.and([eb('type', '=', 'card.moved'), eb('data', 'like', `%"board":"${boardId}"%`)])]));
}

/** The board's committed events after `after` (null: from the first), in commit order. */
export function boardEventsAfter(db: Executor, boardId: string, after: FeedPosition | null, limit = FEED_PAGE): Promise<EventRow[]> {
  return dialectOf(db).eventFeed.committedAfter(db, after, limit, ofBoard(boardId));
}

/** Whether the board has committed events after `after` that the feed does not show yet. */
export function boardEventsHeldBack(db: Executor, boardId: string, after: FeedPosition | null): Promise<boolean> {
  return dialectOf(db).eventFeed.heldBack(db, after, ofBoard(boardId));
}

/** What a user's notification stream shows: the `notification.created` events addressed to them. */
function notificationsOf(userId: string) {
  return (query: EventQuery): EventQuery => query.where('type', '=', 'notification.created').where('user_id', '=', userId);
}

/** The user's committed notification events after `after`, in commit order. */
export function notificationEventsAfter(db: Executor, userId: string, after: FeedPosition | null, limit = FEED_PAGE): Promise<EventRow[]> {
  return dialectOf(db).eventFeed.committedAfter(db, after, limit, notificationsOf(userId));
}

/** Whether the user has committed notification events after `after` that the feed does not show yet. */
export function notificationEventsHeldBack(db: Executor, userId: string, after: FeedPosition | null): Promise<boolean> {
  return dialectOf(db).eventFeed.heldBack(db, after, notificationsOf(userId));
}

/** Every user's committed notification events after `after`, in commit order: what the delivery job sends. */
export function allNotificationEventsAfter(db: Executor, after: FeedPosition | null, limit = FEED_PAGE): Promise<EventRow[]> {
  return dialectOf(db).eventFeed.committedAfter(db, after, limit, (q) => q.where('type', '=', 'notification.created'));
}

/** The kinds of events a board rule may be triggered by (src/domain/rules/definition.ts). */
const RULE_TRIGGER_TYPES = [
  'card.created',
  'card.copied',
  'card.moved',
  'card.labels.toggled',
  'card.members.toggled',
  'card.updated',
  'checklist.item.completed',
  'comment.created',
];

/** Committed events of the kinds that may trigger a board rule, after `after`, in commit order: what the rule worker reads. */
export function ruleTriggerEventsAfter(db: Executor, after: FeedPosition | null, limit = FEED_PAGE): Promise<EventRow[]> {
  return dialectOf(db).eventFeed.committedAfter(db, after, limit, ruleTriggers);
}

/** Whether such events committed after `after` that the feed still holds back (PostgreSQL: behind a running transaction). */
export function ruleTriggerEventsHeldBack(db: Executor, after: FeedPosition | null): Promise<boolean> {
  return dialectOf(db).eventFeed.heldBack(db, after, ruleTriggers);
}

function ruleTriggers(query: EventQuery): EventQuery {
  return query.where('type', 'in', RULE_TRIGGER_TYPES).where('card_id', 'is not', null);
}

/** Whom the event with this id concerns (its company, team and user), if it is recorded: what decides who reaches it. */
export function findEventReach(db: Executor, eventId: string): Promise<Pick<Row<'events'>, 'company_id' | 'team_id' | 'user_id'> | undefined> {
  return db.selectFrom('events').select(['company_id', 'team_id', 'user_id']).where('id', '=', eventId).executeTakeFirst();
}

/** Where the event with this id stands in the feed, if it is recorded. */
export function eventPosition(db: Executor, eventId: string): Promise<FeedPosition | undefined> {
  return dialectOf(db).eventFeed.positionOf(db, eventId);
}

/**
 * Now in the feed: a reader starting here sees what commits from now on, nothing that committed
 * before (a stream opened without Last-Event-ID, a job starting in memory).
 */
export function feedNow(db: Executor): Promise<FeedPosition> {
  return dialectOf(db).eventFeed.now(db);
}

/**
 * The feed's end as a read sees it: a cursor moved here has passed what the feed shows and will
 * still read what it holds back (decision 0308: the two positions differ on PostgreSQL, and a
 * stored cursor that skipped a held-back event would lose it).
 */
export function feedEnd(db: Executor): Promise<FeedPosition> {
  return dialectOf(db).eventFeed.end(db);
}

/** Whose activity a read covers: the events filed under one card, board or team. */
export type ActivitySubject = { kind: 'card' | 'board' | 'team'; id: string };

/**
 * One page of a subject's events, newest first (by `seq`, the insert order), from below `beforeSeq`;
 * `types` keeps the types equal to its `exact` or starting with its `prefix`. Reads `limit` rows (the caller asks one more to
 * know there is a next page). Served by the (subject, seq) indexes of migration 0002.
 */
export async function findActivity(
  db: Executor,
  subject: ActivitySubject,
  options: { limit: number; beforeSeq?: number | undefined; types?: { exact?: string | undefined; prefix: string } | undefined },
): Promise<Omit<Row<'events'>, 'tx'>[]> {
  let query = db
    .selectFrom('events')
    .select(['seq', ...EVENT_COLUMNS])
    .where(`${subject.kind}_id`, '=', subject.id);
  if (options.beforeSeq !== undefined) query = query.where('seq', '<', options.beforeSeq);
  const types = options.types;
  if (types) {
    // substr, not LIKE: the same on both engines, and no wildcard in a type to escape
    const { exact, prefix } = types;
    query = query.where((eb) => {
      const starts = eb(sql<string>`substr(type, 1, ${prefix.length})`, '=', prefix);
      return exact === undefined ? starts : eb.or([eb('type', '=', exact), starts]);
    });
  }
  const rows = await query.orderBy('seq', 'desc').limit(options.limit).execute();
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/**
 * Deletes events created before `before`, in batches of `batch`, except those `keep` names (a
 * subquery of event ids, e.g. the events a pending webhook delivery still needs). Answers how many.
 * `idBelow` bounds their ids (ids begin with the creation second), so the `id` index finds them
 * (migration 0010); an event whose id was made later than its `created_at` waits for a later prune.
 */
export async function deleteEventsBefore(
  db: Executor,
  { before, idBelow }: { before: string; idBelow: string },
  batch: number,
  keep?: (db: Executor) => SelectQueryBuilder<Database, any, { id: string }>,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    let doomed = db.selectFrom('events').select('seq').where('id', '<', idBelow).where('created_at', '<', before);
    if (keep) doomed = doomed.where('id', 'not in', keep(db));
    const result = await db.deleteFrom('events').where('seq', 'in', doomed.orderBy('id').limit(batch)).executeTakeFirst();
    const count = Number(result.numDeletedRows);
    deleted += count;
    if (count < batch) return deleted;
  }
}
