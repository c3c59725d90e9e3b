/**
 * Webhooks, their deliveries and the fan-out's place in the event feed (migration 0004). The claim
 * and fan-out queries take their row locks through the dialect (`skipLocked`), so instances sharing
 * PostgreSQL pass over each other's work instead of queueing behind it.
 */
import { sql } from 'kysely';
import type { DeliveryStatus, Executor, NewRow, Row, RowUpdate, Transaction } from '../database.ts';
import { dialectOf, executeCompiledOnce } from '../dialect.ts';
import type { EventRow, FeedPosition } from '../event-feed.ts';
import { inCreationOrder, pastKey } from './order.ts';

export type { EventRow };

export type WebhookRow = Row<'webhooks'>;
export type DeliveryRow = Row<'webhook_deliveries'>;

export async function insertWebhook(trx: Transaction, row: NewRow<'webhooks'>): Promise<void> {
  await trx.insertInto('webhooks').values(row).execute();
}

export function findWebhook(db: Executor, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findWebhooks(db: Executor, ids: readonly string[]): Promise<WebhookRow[]> {
  if (!ids.length) return Promise.resolve([]);
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

/** The webhooks of these companies, oldest first, after the (created_at, id) key `after`. */
export function listWebhooks(db: Executor, companyIds: readonly string[], limit: number, after?: [string, string]): Promise<WebhookRow[]> {
  if (!companyIds.length) return Promise.resolve([]);
  let query = db
    .selectFrom('webhooks')
    .selectAll()
    .where('company_id', 'in', [...companyIds]);
  if (after) {
    const [createdAt, id] = after;
    query = query.where(pastKey(['created_at', 'id'], [createdAt, id]));
  }
  return query.$call(inCreationOrder).limit(limit).execute();
}

/** Updates the webhook, `version` + 1; answers its row as changed (undefined: it was not there). */
export function updateWebhook(trx: Transaction, id: string, changes: RowUpdate<'webhooks'>): Promise<WebhookRow | undefined> {
  return trx
    .updateTable('webhooks')
    .set({ ...changes, version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the webhook; its deliveries go with it (ON DELETE CASCADE, migration 0004). */
export async function deleteWebhook(trx: Transaction, id: string): Promise<void> {
  await trx.deleteFrom('webhooks').where('id', '=', id).execute();
}

/**
 * Whether any webhook is enabled (the dispatcher rests while none is). Compiled once: the dispatcher
 * asks at every commit that recorded events.
 */
export async function anyEnabledWebhook(db: Executor): Promise<boolean> {
  const rows = await executeCompiledOnce(db, 'any enabled webhook', () => db.selectFrom('webhooks').select('id').where('enabled', '=', 1).limit(1), {});
  return rows.length > 0;
}

export function enabledWebhooks(db: Executor): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('enabled', '=', 1).execute();
}

// --- the fan-out's place in the feed --------------------------------------------------------------

export interface FeedCursor {
  position: FeedPosition | null;
  nextOrdinal: number;
}

const CURSOR_ID = 'fan-out';

/** The fan-out's cursor, locked for this transaction; undefined when another instance holds it. */
export async function lockFeedCursor(trx: Transaction): Promise<FeedCursor | undefined> {
  const query = trx.selectFrom('webhook_feed').select(['position', 'next_ordinal']).where('id', '=', CURSOR_ID);
  const row = await dialectOf(trx).fragments.skipLocked(query).executeTakeFirst();
  return row && { position: row.position, nextOrdinal: Number(row.next_ordinal) };
}

export async function moveFeedCursor(trx: Transaction, cursor: FeedCursor): Promise<void> {
  await trx.updateTable('webhook_feed').set({ position: cursor.position, next_ordinal: cursor.nextOrdinal }).where('id', '=', CURSOR_ID).execute();
}

/**
 * Committed events after `position`, in feed order (src/storage/event-feed.ts), of these companies
 * and recorded at `since` or later (what some webhook may receive; the rest is passed over by index).
 */
export function eventsAfter(
  db: Executor,
  position: FeedPosition | null,
  limit: number,
  of: { companies: readonly string[]; since: string },
): Promise<EventRow[]> {
  return dialectOf(db).eventFeed.committedAfter(db, position, limit, (query) =>
    query.where('company_id', 'in', [...of.companies]).where('created_at', '>=', of.since),
  );
}

// --- deliveries ---------------------------------------------------------------------------------

export async function insertDeliveries(trx: Transaction, rows: readonly NewRow<'webhook_deliveries'>[]): Promise<void> {
  // in chunks: PostgreSQL takes at most 65535 parameters per statement
  for (let start = 0; start < rows.length; start += 500) {
    await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(start, start + 500))
      .execute();
  }
}

/**
 * The heads of the webhooks' queues (each enabled webhook's first pending delivery) that are due
 * and not leased, at most `limit`, locked (skipping locked rows) for the claim that follows.
 * It walks the enabled webhooks and takes each one's head by its queue index, so its work grows
 * with the number of webhooks, not with their backlogs: reading every due pending delivery and
 * keeping the heads took most of the server's CPU under the bench's webhook, whose backlog grows
 * while the toggles outrun one receiver (measured in docs/benchmarks.md).
 */
export function dueHeads(trx: Transaction, now: string, limit: number): Promise<DeliveryRow[]> {
  const query = trx
    .selectFrom('webhooks as w')
    .innerJoin('webhook_deliveries as d', (join) =>
      join.on('d.id', '=', (eb) =>
        eb
          .selectFrom('webhook_deliveries as p')
          .select('p.id')
          .whereRef('p.webhook_id', '=', 'w.id')
          .where('p.status', '=', 'pending')
          .orderBy('p.ordinal')
          .limit(1),
      ),
    )
    .selectAll('d')
    .where('w.enabled', '=', 1)
    .where('d.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<=', now)]))
    .orderBy('d.next_attempt_at')
    .orderBy('d.ordinal')
    .limit(limit);
  // only the deliveries are locked: a webhook being edited meanwhile does not hold its claim up
  return dialectOf(trx).fragments.skipLocked(query, 'd').execute();
}

/**
 * Leases the delivery to `owner` until `until`, unless someone holds a live lease on it or it is no
 * longer pending (a compare-and-set: the claim holds on either engine); answers whether it did.
 */
export async function leaseDelivery(trx: Transaction, id: string, owner: string, now: string, until: string): Promise<boolean> {
  const result = await trx
    .updateTable('webhook_deliveries')
    .set({ lease_owner: owner, lease_until: until })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Leases, with the head, the pending deliveries that follow it in its webhook's queue (due, not
 * leased), at most `limit`: a run the holder sends in order. Answers them in order.
 */
export async function leaseRun(trx: Transaction, head: DeliveryRow, owner: string, now: string, until: string, limit: number): Promise<DeliveryRow[]> {
  if (limit <= 0) return [];
  const rows = await trx
    .updateTable('webhook_deliveries')
    .set({ lease_owner: owner, lease_until: until })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries as n')
        .select('n.id')
        .where('n.webhook_id', '=', head.webhook_id)
        .where('n.status', '=', 'pending')
        .where('n.ordinal', '>', head.ordinal)
        .where('n.next_attempt_at', '<=', now)
        .where((w) => w.or([w('n.lease_until', 'is', null), w('n.lease_until', '<=', now)]))
        .orderBy('n.ordinal')
        .limit(limit),
    )
    .returningAll()
    .execute();
  return rows.sort((a, b) => Number(a.ordinal) - Number(b.ordinal));
}

/** Gives up `owner`'s leases on these deliveries (the rest of a run it stopped sending). */
export async function releaseLeases(db: Executor, ids: readonly string[], owner: string): Promise<void> {
  if (!ids.length) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_until: null })
    .where('id', 'in', [...ids])
    .where('lease_owner', '=', owner)
    .execute();
}

/** Writes an attempt's outcome, if `owner` still holds the lease; answers whether it did. */
export async function finishAttempt(db: Executor, id: string, owner: string, changes: RowUpdate<'webhook_deliveries'>): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...changes, lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A webhook's deliveries, newest first, before the ordinal `before`; optionally of one status. */
export function listDeliveries(db: Executor, webhookId: string, limit: number, before?: number, status?: DeliveryStatus): Promise<DeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (before !== undefined) query = query.where('ordinal', '<', before);
  if (status) query = query.where('status', '=', status);
  return query.orderBy('ordinal', 'desc').limit(limit).execute();
}

/** Updates the webhook's delivery; answers its row as changed (undefined: the webhook has no such delivery). */
export function updateDelivery(trx: Transaction, webhookId: string, id: string, changes: RowUpdate<'webhook_deliveries'>): Promise<DeliveryRow | undefined> {
  return trx.updateTable('webhook_deliveries').set(changes).where('id', '=', id).where('webhook_id', '=', webhookId).returningAll().executeTakeFirst();
}

/**
 * Deletes the deliveries that ended (delivered or failed) before `before`, by their last attempt (a
 * redelivery counts as one), in batches of `batch`; pending ones stay whatever their age. Answers how many.
 */
export async function deleteFinishedDeliveriesBefore(db: Executor, before: string, batch: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const doomed = db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', 'in', ['delivered', 'failed'])
      .where((eb) => eb(eb.fn.coalesce('last_attempt_at', 'created_at'), '<', before))
      .limit(batch);
    const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', doomed).executeTakeFirst();
    const count = Number(result.numDeletedRows);
    deleted += count;
    if (count < batch) return deleted;
  }
}

/** Makes a webhook's pending deliveries due now with a fresh retry window (the webhook was enabled again). */
export async function restartPending(trx: Transaction, webhookId: string, now: string): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, first_attempt_at: null })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}
