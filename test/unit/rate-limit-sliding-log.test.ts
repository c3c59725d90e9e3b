import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_TIER_LIMITS } from '../../src/config.ts';
import { bucketOf, decisionOf } from '../../src/ratelimit/policy.ts';
import { type BucketTail, decideOnTail, type SlidingLogOutcome, toSeconds } from '../../src/ratelimit/sliding-log.ts';

const W = 3_600_000;

/**
 * The rule as written, on the whole log: what decideOnTail must agree with. Answers whether a
 * request at `now` is admitted, how many more would be, and when there is room again.
 */
function reference(log: readonly number[], now: number, limit: number, windowMs = W) {
  const live = log.filter((t) => t > now - windowMs).sort((a, b) => a - b);
  const allowed = live.length < limit;
  if (allowed) live.push(now);
  const resetMs = live.length < limit ? 0 : (live[live.length - limit] as number) + windowMs - now;
  return { allowed, remaining: Math.max(0, limit - live.length), resetMs };
}

/** A bucket as a store keeps it (hits numbered by seq), read the way the stores read it. */
class Bucket {
  hits: { seq: number; at: number }[] = [];

  tail(horizon: number, limit: number): BucketTail | null {
    const last = this.hits.at(-1);
    if (!last) return null;
    const at = (seq: number) => this.hits.find((h) => h.seq === seq)?.at ?? null;
    return {
      lastSeq: last.seq,
      lastAt: last.at,
      firstLiveSeq: this.hits.find((h) => h.at > horizon)?.seq ?? null,
      blockingAt: at(last.seq + 1 - limit),
      nextBlockingAt: at(last.seq + 2 - limit),
    };
  }

  consume(now: number, limit: number, windowMs = W): SlidingLogOutcome {
    const outcome = decideOnTail(this.tail(now - windowMs, limit), now, limit, windowMs);
    if (outcome.hit) this.hits.push(outcome.hit);
    return outcome;
  }

  /** What a sweep does: drop the hits that left the window. */
  sweep(now: number, windowMs = W) {
    this.hits = this.hits.filter((h) => h.at > now - windowMs);
  }

  get log() {
    return this.hits.map((h) => h.at);
  }
}

function seeded(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

describe('sliding log: the decision', () => {
  it('admits up to the limit, then refuses, counting down remaining', () => {
    const bucket = new Bucket();
    const seen = Array.from({ length: 6 }, (_, i) => bucket.consume(1000 + i, 5));
    assert.deepEqual(
      seen.map((o) => o.allowed),
      [true, true, true, true, true, false],
    );
    assert.deepEqual(
      seen.map((o) => o.remaining),
      [4, 3, 2, 1, 0, 0],
    );
    assert.deepEqual(
      seen.map((o) => o.resetMs),
      [0, 0, 0, 0, 1000 + W - 1004, 1000 + W - 1005],
    );
    assert.equal(bucket.hits.length, 5, 'a refused request is not logged');
  });

  it('admits again exactly when the limit-th most recent hit is one window old', () => {
    const bucket = new Bucket();
    for (let i = 0; i < 5; i++) bucket.consume(i, 5);
    assert.equal(bucket.consume(W - 1, 5).allowed, false);
    const at = bucket.consume(W, 5);
    assert.deepEqual([at.allowed, at.remaining], [true, 0]);
    assert.equal(at.resetMs, 1, 'full again; room when the hit at 1 ms leaves');
  });

  it('is a rolling window: where a fixed window would admit 2N around its boundary, it admits N', () => {
    const bucket = new Bucket();
    const before = Array.from({ length: 5 }, (_, i) => bucket.consume(W - 1000 + i, 5).allowed);
    const after = Array.from({ length: 5 }, (_, i) => bucket.consume(W + 1000 + i, 5).allowed);
    assert.deepEqual(before, [true, true, true, true, true]);
    assert.deepEqual(after, [false, false, false, false, false]);
  });

  it('does not count refused requests', () => {
    const bucket = new Bucket();
    for (let i = 0; i < 5; i++) bucket.consume(0, 5);
    for (let i = 0; i < 50; i++) assert.equal(bucket.consume(W - 50 + i, 5).allowed, false);
    const again = Array.from({ length: 6 }, () => bucket.consume(W, 5).allowed);
    assert.deepEqual(again, [true, true, true, true, true, false]);
  });

  it('with a limit of 1 is full at once', () => {
    const bucket = new Bucket();
    const first = bucket.consume(10, 1);
    assert.deepEqual([first.allowed, first.remaining, first.resetMs], [true, 0, W]);
    const second = bucket.consume(20, 1);
    assert.deepEqual([second.allowed, second.resetMs], [false, W - 10]);
    const later = bucket.consume(10 + W, 1);
    assert.deepEqual([later.allowed, later.resetMs], [true, W]);
  });

  it('when the limit was lowered, waits until enough hits have left', () => {
    const bucket = new Bucket();
    for (let i = 0; i < 5; i++) bucket.consume(i * 1000, 5);
    const outcome = bucket.consume(5000, 3);
    assert.equal(outcome.allowed, false);
    // Room again once only 2 of the 5 are left: when the hit at 2 s leaves.
    assert.equal(outcome.resetMs, 2000 + W - 5000);
  });

  it('never logs a hit older than the last, should the clock step back', () => {
    const bucket = new Bucket();
    bucket.consume(10_000, 5);
    const outcome = bucket.consume(4_000, 5);
    assert.equal(outcome.hit?.at, 10_000);
    assert.deepEqual(bucket.log, [10_000, 10_000]);
  });

  it('agrees with the rule on the whole log, over long random runs, with or without sweeps', () => {
    const random = seeded(42);
    for (const limit of [1, 2, 5, 15, 140]) {
      for (const sweepEvery of [0, 7]) {
        const bucket = new Bucket();
        const log: number[] = [];
        let now = 0;
        for (let i = 0; i < 1500; i++) {
          // bursts within one millisecond, and gaps up to a fifth of the window
          now += random() < 0.3 ? 0 : Math.floor(random() * (W / 5));
          const expected = reference(log, now, limit);
          const got = bucket.consume(now, limit);
          assert.deepEqual({ allowed: got.allowed, remaining: got.remaining, resetMs: got.resetMs }, expected, `limit ${limit}, request ${i} at ${now}`);
          if (got.allowed) log.push(now);
          if (sweepEvery && i % sweepEvery === 0) bucket.sweep(now);
        }
      }
    }
  });

  it('never admits more than N in any window, and refuses only when N were admitted in the last one', () => {
    const random = seeded(7);
    for (const limit of [1, 5, 15]) {
      const bucket = new Bucket();
      const admitted: number[] = [];
      const refused: number[] = [];
      let now = 0;
      for (let i = 0; i < 800; i++) {
        now += Math.floor(random() * (W / 20));
        (bucket.consume(now, limit).allowed ? admitted : refused).push(now);
      }
      for (const start of admitted) {
        assert.ok(admitted.filter((t) => t >= start && t < start + W).length <= limit, `limit ${limit}: window from ${start}`);
      }
      for (const at of refused) assert.equal(admitted.filter((a) => a > at - W && a <= at).length, limit);
      assert.ok(refused.length > 0);
    }
  });

  it('rounds reset up to whole seconds, so waiting that long is always enough', () => {
    assert.deepEqual([0, 1, 999, 1000, 1001, W].map(toSeconds), [0, 1, 1, 1, 2, 3600]);
  });
});

describe('rate-limit policy', () => {
  it('names a bucket by key and route template', () => {
    assert.equal(bucketOf({ apiKeyId: 'abc', route: 'PATCH /api/v1/cards/:cardId', tier: 'low' }), 'abc PATCH /api/v1/cards/:cardId');
  });

  it('turns an outcome into the decision the headers are made from', () => {
    const settings = { windowSeconds: 3600, tiers: DEFAULT_TIER_LIMITS };
    const request = { apiKeyId: 'abc', route: 'POST /api/v1/api-keys', tier: 'secure' as const };
    assert.deepEqual(decisionOf(settings, request, { allowed: false, remaining: 0, resetMs: 1_799_001 }), {
      allowed: false,
      tier: 'secure',
      limit: 5,
      windowSeconds: 3600,
      remaining: 0,
      resetSeconds: 1800,
    });
  });
});
