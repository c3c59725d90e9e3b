/**
 * The exact rate-limit rule, free of any store. A bucket logs the times (epoch ms) of the requests
 * it admitted; a request at `now` is admitted only while fewer than `limit` logged hits are younger
 * than the window (`> now - windowMs`). Rejected requests are never logged, so they never count.
 *
 * Why this is exact: a hit at `e` leaves the window at `e + windowMs`. When a request at `now` is
 * admitted, fewer than `limit` hits are in `(now - windowMs, now]`; any window-length interval
 * `[s, s + windowMs)` that holds `now` starts after `now - windowMs`, so it holds at most those hits
 * plus this one.
 *
 * Cheap whatever the limit: a bucket numbers its hits 0, 1, 2... as it admits them (`seq`), and a
 * hit is never older than the one before it. So the rule needs three hits, not the whole log:
 * - the `limit`-th most recent (`blocking`): the request is admitted iff it is absent or has left
 *   the window, as then fewer than `limit` hits are younger;
 * - the oldest hit still in the window, to count the live ones (`lastSeq - firstLiveSeq + 1`);
 * - after an admission that fills the bucket, the new `limit`-th most recent, for the reset time.
 * The Redis script (redis.ts) applies the same rule to a sorted set.
 */

/** What a store reads of a bucket for one decision. */
export interface BucketTail {
  /** The most recent hit. */
  lastSeq: number;
  lastAt: number;
  /** The oldest hit younger than the window; null when every hit has left it. */
  firstLiveSeq: number | null;
  /** Time of hit `lastSeq + 1 - limit`, the limit-th most recent (null when there is none). */
  blockingAt: number | null;
  /** Time of hit `lastSeq + 2 - limit` (null when there is none). */
  nextBlockingAt: number | null;
}

export interface SlidingLogOutcome {
  allowed: boolean;
  /** Requests the bucket still admits right now. */
  remaining: number;
  /** Milliseconds until the bucket admits one more request (0 while it has room). */
  resetMs: number;
  /** When admitted: the hit to log. */
  hit?: { seq: number; at: number };
}

/** Decides one request at `now` on a bucket (`null`: a bucket with no hits logged). */
export function decideOnTail(tail: BucketTail | null, now: number, limit: number, windowMs: number): SlidingLogOutcome {
  if (!tail) {
    // A limit of 1 is full at once: room again when this hit leaves.
    return { allowed: true, remaining: limit - 1, resetMs: limit === 1 ? windowMs : 0, hit: { seq: 0, at: now } };
  }
  // Should the clock step back, never log a hit older than the last one: seq order stays time order.
  const at = Math.max(now, tail.lastAt);
  const horizon = at - windowMs;
  if (tail.blockingAt !== null && tail.blockingAt > horizon) {
    return { allowed: false, remaining: 0, resetMs: tail.blockingAt + windowMs - at };
  }
  const live = tail.firstLiveSeq === null ? 0 : Math.min(limit - 1, tail.lastSeq - tail.firstLiveSeq + 1);
  const hit = { seq: tail.lastSeq + 1, at };
  const remaining = limit - (live + 1);
  if (remaining > 0) return { allowed: true, remaining, resetMs: 0, hit };
  // Full now: room again when the new limit-th most recent hit leaves (this one, when limit is 1).
  const nextBlockingAt = limit === 1 ? at : (tail.nextBlockingAt ?? at);
  return { allowed: true, remaining: 0, resetMs: nextBlockingAt + windowMs - at, hit };
}

/** Whole seconds for the headers, rounded up so a client waiting that long is always admitted. */
export function toSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}
