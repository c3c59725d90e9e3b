import type { Executor, NewRow, Row } from '../database.ts';

export type IdempotencyKeyRow = Row<'idempotency_keys'>;

/** Claims the key for a first request: false when a row for it is there already (another request got it). */
export async function claimIdempotencyKey(db: Executor, row: NewRow<'idempotency_keys'>): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/**
 * Claims a key whose row has expired, or whose first request was lost (still running past its
 * `locked_until`: its instance stopped), for a new first request. False when it is neither any more.
 */
export async function reclaimIdempotencyKey(db: Executor, row: NewRow<'idempotency_keys'>, now: string): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ ...row })
    .where('user_id', '=', row.user_id)
    .where('key', '=', row.key)
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb.and([eb('state', '=', 'running'), eb('locked_until', '<=', now)])]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findIdempotencyKey(db: Executor, userId: string, key: string): Promise<IdempotencyKeyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
}

/**
 * One request's claim of a key: `claimedAt` (the row's `created_at` it wrote) tells it from a later
 * claim of the same key by a repeat that took it over when this request outlived its lease.
 */
export interface IdempotencyClaim {
  userId: string;
  key: string;
  claimedAt: string;
}

/**
 * Keeps the first request's answer, to be replayed: only while the key is still this request's claim
 * (a request that outlived its lease and was taken over keeps nothing; the repeat's answer stands).
 */
export async function completeIdempotencyKey(db: Executor, claim: IdempotencyClaim, answer: { status: number; headers: string; body: string }): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', ...answer })
    .where('user_id', '=', claim.userId)
    .where('key', '=', claim.key)
    .where('created_at', '=', claim.claimedAt)
    .where('state', '=', 'running')
    .execute();
}

/** Lets the key go (the first request failed on the server's side): a repeat runs again. Only this request's own claim. */
export async function releaseIdempotencyKey(db: Executor, claim: IdempotencyClaim): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('user_id', '=', claim.userId)
    .where('key', '=', claim.key)
    .where('created_at', '=', claim.claimedAt)
    .where('state', '=', 'running')
    .execute();
}

/** Removes the keys that expired before `now`; answers how many. */
export async function pruneIdempotencyKeys(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
