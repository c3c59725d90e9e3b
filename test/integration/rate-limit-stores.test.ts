/**
 * The limiters against their real stores: SQLite, PostgreSQL and Redis run the same scenarios.
 * Time is injected (`now`) wherever the scenario is about time; nothing sleeps.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_TIER_LIMITS, type Tier } from '../../src/config.ts';
import { type RateLimitSettings, RedisRateLimiter, SqlRateLimiter } from '../../src/ratelimit/index.ts';
import type { RateLimitDecision, RateLimiter, RateLimitRequest } from '../../src/ratelimit/limiter.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { countHits, listBuckets } from '../../src/storage/repositories/rate-limit.ts';
import { ENGINES, openTestStorage, REDIS_URL, type TestStorage } from '../support/harness.ts';

const WINDOW_S = 3600;
const W = WINDOW_S * 1000;
const T0 = 1_800_000_000_000;

interface Instance {
  limiter: RateLimiter;
  /** Drops what left the window as of `now`, as the store does on its own sooner or later. */
  settle(now: number): Promise<void>;
  close(): Promise<void>;
}

interface Store {
  name: string;
  /** A limiter over the store, as one more server instance (or a restarted one) would have. */
  open(options?: { now?: () => number; tiers?: Partial<Record<Tier, number>> }): Promise<Instance>;
  /** How many hits the store keeps for a bucket. */
  storedHits(request: RateLimitRequest): Promise<number>;
  dispose(): Promise<void>;
}

function settingsWith(tiers: Partial<Record<Tier, number>> = {}): RateLimitSettings {
  return { windowSeconds: WINDOW_S, tiers: { ...DEFAULT_TIER_LIMITS, ...tiers } };
}

async function sqlStore(engine: 'sqlite' | 'postgres'): Promise<Store & { test: TestStorage }> {
  const test = await openTestStorage(engine);
  return {
    name: engine,
    test,
    async open(options = {}) {
      const storage = openStorage(test.url);
      const limiter = new SqlRateLimiter({ storage, settings: settingsWith(options.tiers), ...(options.now ? { now: options.now } : {}) });
      return {
        limiter,
        async settle(now) {
          await limiter.idle();
          await limiter.sweep(now);
        },
        async close() {
          await limiter.close();
          await storage.close();
        },
      };
    },
    storedHits: (request) => countHits(test.storage.db, `${request.apiKeyId} ${request.route}`),
    dispose: () => test.dispose(),
  };
}

async function redisStore(): Promise<Store & { admin: Redis; prefix: string }> {
  const prefix = `tb:test:${randomBytes(6).toString('hex')}:`;
  const admin = new Redis(REDIS_URL);
  return {
    name: 'redis',
    admin,
    prefix,
    async open(options = {}) {
      const limiter = new RedisRateLimiter({
        url: REDIS_URL,
        keyPrefix: prefix,
        settings: settingsWith(options.tiers),
        ...(options.now ? { now: options.now } : {}),
      });
      await limiter.connect();
      // Redis drops a bucket's old hits at each decision on it.
      return { limiter, settle: async () => {}, close: () => limiter.close() };
    },
    storedHits: (request) => admin.zcard(`${prefix}${request.apiKeyId} ${request.route}`),
    async dispose() {
      const keys = await admin.keys(`${prefix}*`);
      if (keys.length) await admin.del(...keys);
      await admin.quit();
    },
  };
}

const STORES: { name: string; make: () => Promise<Store> }[] = [
  ...ENGINES.map((engine) => ({ name: engine, make: () => sqlStore(engine) })),
  { name: 'redis', make: redisStore },
];

let keySeq = 0;
/** A request on a bucket nobody else in this file uses. */
function freshRequest(tier: Tier = 'secure', route = 'POST /api/v1/api-keys'): RateLimitRequest {
  keySeq += 1;
  return { apiKeyId: `${randomBytes(10).toString('hex')}${String(keySeq).padStart(4, '0')}`, route, tier };
}

/** A clock the test moves by hand. */
function manualClock(start = T0) {
  const clock = { at: start, now: () => clock.at };
  return clock;
}

async function consumeAt(limiter: RateLimiter, clock: { at: number }, at: number, request: RateLimitRequest) {
  clock.at = at;
  return limiter.consume(request);
}

for (const { name, make } of STORES) {
  describe(`rate limiter on ${name}`, () => {
    let store: Store;
    const opened: Instance[] = [];
    const open = async (options?: Parameters<Store['open']>[0]) => {
      const instance = await store.open(options);
      opened.push(instance);
      return instance.limiter;
    };

    before(async () => {
      store = await make();
    });
    after(async () => {
      for (const instance of opened) await instance.close();
      await store.dispose();
    });

    it('admits exactly N of a parallel burst (store clock)', async () => {
      const limiter = await open();
      const request = freshRequest('secure');
      const decisions = await Promise.all(Array.from({ length: 12 }, () => limiter.consume(request)));
      const admitted = decisions.filter((d) => d.allowed);
      assert.equal(admitted.length, 5);
      assert.deepEqual(admitted.map((d) => d.remaining).sort(), [0, 1, 2, 3, 4]);
      for (const refused of decisions.filter((d) => !d.allowed)) {
        assert.equal(refused.remaining, 0);
        assert.ok(refused.resetSeconds > 3500 && refused.resetSeconds <= 3600, `reset ${refused.resetSeconds}`);
      }
      assert.equal(await store.storedHits(request), 5);
    });

    it('counts down remaining and reports the time until the bucket admits again', async () => {
      const clock = manualClock();
      const limiter = await open({ now: clock.now });
      const request = freshRequest('secure');
      const seen: Pick<RateLimitDecision, 'allowed' | 'remaining' | 'resetSeconds'>[] = [];
      for (let i = 0; i < 6; i++) {
        const d = await consumeAt(limiter, clock, T0 + i * 60_000, request);
        seen.push({ allowed: d.allowed, remaining: d.remaining, resetSeconds: d.resetSeconds });
      }
      assert.deepEqual(seen, [
        { allowed: true, remaining: 4, resetSeconds: 0 },
        { allowed: true, remaining: 3, resetSeconds: 0 },
        { allowed: true, remaining: 2, resetSeconds: 0 },
        { allowed: true, remaining: 1, resetSeconds: 0 },
        // full now: room again when the first hit (at T0) is an hour old
        { allowed: true, remaining: 0, resetSeconds: 3600 - 4 * 60 },
        { allowed: false, remaining: 0, resetSeconds: 3600 - 5 * 60 },
      ]);
      const decision = await consumeAt(limiter, clock, T0 + W - 1, request);
      assert.deepEqual([decision.allowed, decision.resetSeconds], [false, 1], '1 ms before: refused, retry in 1 s (rounded up)');
      assert.equal((await consumeAt(limiter, clock, T0 + W, request)).allowed, true, 'admitted the moment the first hit leaves');
      assert.deepEqual([decision.tier, decision.limit, decision.windowSeconds], ['secure', 5, WINDOW_S]);
    });

    it('is a rolling window: N just before an hour boundary and N just after is still only N', async () => {
      const clock = manualClock();
      const limiter = await open({ now: clock.now });
      const request = freshRequest('secure');
      const boundary = T0 - (T0 % W) + W;
      const results: boolean[] = [];
      for (let i = 0; i < 5; i++) results.push((await consumeAt(limiter, clock, boundary - 1000 + i, request)).allowed);
      for (let i = 0; i < 5; i++) results.push((await consumeAt(limiter, clock, boundary + 1000 + i, request)).allowed);
      assert.deepEqual(results, [true, true, true, true, true, false, false, false, false, false]);
      // One window after the first five: room for five again.
      const later: boolean[] = [];
      for (let i = 0; i < 6; i++) later.push((await consumeAt(limiter, clock, boundary - 1000 + W + 4, request)).allowed);
      assert.deepEqual(later, [true, true, true, true, true, false]);
    });

    it('does not count refused requests', async () => {
      const clock = manualClock();
      const instance = await store.open({ now: clock.now });
      opened.push(instance);
      const { limiter } = instance;
      const request = freshRequest('secure');
      for (let i = 0; i < 5; i++) assert.equal((await consumeAt(limiter, clock, T0, request)).allowed, true);
      for (let i = 0; i < 20; i++) assert.equal((await consumeAt(limiter, clock, T0 + W - 20 + i, request)).allowed, false);
      const again: boolean[] = [];
      for (let i = 0; i < 6; i++) again.push((await consumeAt(limiter, clock, T0 + W, request)).allowed);
      assert.deepEqual(again, [true, true, true, true, true, false]);
      await instance.settle(T0 + W);
      assert.equal(await store.storedHits(request), 5);
    });

    it('never admits more than N in any window over a long random run, and refuses only when full', async () => {
      const clock = manualClock();
      const limiter = await open({ now: clock.now });
      const request = freshRequest('secure');
      let seed = 7;
      const random = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const admitted: number[] = [];
      const refused: number[] = [];
      let at = T0;
      for (let i = 0; i < 150; i++) {
        at += Math.floor(random() * (W / 8));
        const decision = await consumeAt(limiter, clock, at, request);
        (decision.allowed ? admitted : refused).push(at);
      }
      for (const start of admitted) {
        assert.ok(admitted.filter((t) => t >= start && t < start + W).length <= 5, `window from ${start} holds more than 5`);
      }
      for (const t of refused) assert.equal(admitted.filter((a) => a > t - W && a <= t).length, 5, `refused at ${t} with room`);
      assert.ok(refused.length > 0 && admitted.length > 10, 'the run exercised both answers');
    });

    it('keeps one bucket per key and per route template', async () => {
      const clock = manualClock();
      const limiter = await open({ now: clock.now });
      const a = freshRequest('secure');
      const sameKeyOtherRoute = { ...a, route: 'DELETE /api/v1/api-keys/:keyId' };
      const otherKey = freshRequest('secure');
      for (let i = 0; i < 5; i++) await consumeAt(limiter, clock, T0, a);
      assert.equal((await limiter.consume(a)).allowed, false);
      assert.equal((await limiter.consume(sameKeyOtherRoute)).allowed, true);
      assert.equal((await limiter.consume(otherKey)).allowed, true);
    });

    it('keeps its state across a restart', async () => {
      const clock = manualClock();
      const first = await store.open({ now: clock.now });
      const request = freshRequest('secure');
      for (let i = 0; i < 5; i++) assert.equal((await consumeAt(first.limiter, clock, T0 + i, request)).allowed, true);
      await first.close();
      const restarted = await open({ now: clock.now });
      const decision = await consumeAt(restarted, clock, T0 + 10, request);
      assert.equal(decision.allowed, false);
      assert.equal(decision.resetSeconds, 3600);
    });

    it('applies a lowered limit to the hits already stored', async () => {
      const clock = manualClock();
      const before5 = await open({ now: clock.now });
      const request = freshRequest('secure');
      for (let i = 0; i < 5; i++) await consumeAt(before5, clock, T0 + i * 1000, request);
      const lowered = await open({ now: clock.now, tiers: { secure: 3 } });
      const decision = await consumeAt(lowered, clock, T0 + 5000, request);
      assert.equal(decision.allowed, false);
      assert.equal(decision.limit, 3);
      // room again once only 2 of the 5 are left: when the hit at T0 + 2 s leaves
      assert.equal(decision.resetSeconds, (2000 + W - 5000) / 1000);
    });

    it('keeps no more hits per bucket than the window needs', async () => {
      const clock = manualClock();
      const instance = await store.open({ now: clock.now });
      opened.push(instance);
      const request = freshRequest('high');
      const admitted: number[] = [];
      for (let i = 0; i < 200; i++) {
        const at = T0 + i * 60_000;
        if ((await consumeAt(instance.limiter, clock, at, request)).allowed) admitted.push(at);
        await instance.settle(at);
        const live = admitted.filter((t) => t > at - W).length;
        assert.equal(await store.storedHits(request), live, `minute ${i}`);
        assert.ok(live <= 15);
      }
    });

    if (name !== 'sqlite') {
      it('stays exact with two instances deciding on one bucket at once', async () => {
        const one = await open();
        const two = await open();
        const request = freshRequest('secure');
        const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? one : two).consume(request)));
        assert.equal(decisions.filter((d) => d.allowed).length, 5);
        assert.equal(await store.storedHits(request), 5);
      });
    }
  });
}

for (const engine of ENGINES) {
  describe(`rate-limit hits stay bounded [${engine}]`, () => {
    let store: Awaited<ReturnType<typeof sqlStore>>;
    let storage: StorageConnection;
    before(async () => {
      store = await sqlStore(engine);
      storage = store.test.storage;
    });
    after(() => store.dispose());

    it('deletes the hits that left the window, on its own, off the request path', async () => {
      const clock = manualClock();
      const limiter = new SqlRateLimiter({ storage, settings: settingsWith(), now: clock.now, sweepEveryMs: 60_000 });
      const requests = Array.from({ length: 30 }, () => freshRequest('low'));
      for (const request of requests) await consumeAt(limiter, clock, T0, request);
      await limiter.idle();
      const before = await countHits(storage.db);
      assert.ok(before >= 30);

      // A window later one key is busy again: its new hit is all that is left of these buckets.
      const busy = requests[0] as RateLimitRequest;
      await consumeAt(limiter, clock, T0 + W + 1, busy);
      await limiter.idle();
      const mine = new Set(requests.map((r) => `${r.apiKeyId} ${r.route}`));
      assert.deepEqual(
        (await listBuckets(storage.db)).filter((b) => mine.has(b)),
        [`${busy.apiKeyId} ${busy.route}`],
      );
      assert.equal(await countHits(storage.db, `${busy.apiKeyId} ${busy.route}`), 1);
      await limiter.close();
    });

    it('sweeps in batches until nothing old is left', async () => {
      const clock = manualClock(T0 + 10 * W);
      const limiter = new SqlRateLimiter({ storage, settings: settingsWith(), now: clock.now, sweepBatch: 7 });
      for (let i = 0; i < 30; i++) await consumeAt(limiter, clock, T0 + 10 * W, freshRequest('low'));
      await limiter.idle();
      const stored = await countHits(storage.db);
      assert.ok(stored >= 30);
      assert.equal(await limiter.sweep(T0 + 11 * W), stored, 'more than 4 batches');
      assert.equal(await countHits(storage.db), 0);
      await limiter.close();
    });

    it('refused requests write nothing', async () => {
      const clock = manualClock();
      const limiter = new SqlRateLimiter({ storage, settings: settingsWith(), now: clock.now });
      const request = freshRequest('secure');
      for (let i = 0; i < 5; i++) await consumeAt(limiter, clock, T0 + i, request);
      await limiter.idle();
      const before = await countHits(storage.db);
      for (let i = 0; i < 5; i++) await consumeAt(limiter, clock, T0 + 100 + i, request);
      await limiter.idle();
      assert.equal(await countHits(storage.db), before);
      await limiter.close();
    });
  });
}

describe("SQLite decisions run on the app's one connection without joining its transactions", () => {
  let store: Awaited<ReturnType<typeof sqlStore>>;
  before(async () => {
    store = await sqlStore('sqlite');
  });
  after(() => store.dispose());

  it('waits for an open transaction and keeps its hit when that transaction rolls back', async () => {
    const storage = store.test.storage;
    const limiter = new SqlRateLimiter({ storage, settings: settingsWith() });
    const request = freshRequest('secure');
    let decided: Promise<RateLimitDecision> | undefined;
    await assert.rejects(
      storage.db.transaction().execute(async (trx) => {
        await trx.selectFrom('rate_limit_hits').select('bucket').limit(1).execute();
        // A request arrives while another request's transaction holds the connection across awaits.
        decided = limiter.consume(request);
        await trx.selectFrom('rate_limit_hits').select('bucket').limit(1).execute();
        throw new Error('that request failed');
      }),
      /that request failed/,
    );
    assert.equal((await decided)?.allowed, true);
    assert.equal(await store.storedHits(request), 1);
    await limiter.close();
  });
});

describe('rate-limit keys in Redis stay bounded', () => {
  let store: Awaited<ReturnType<typeof redisStore>>;
  before(async () => {
    store = await redisStore();
  });
  after(() => store.dispose());

  it('expires a bucket a window after its newest hit', async () => {
    const instance = await store.open();
    const request = freshRequest('secure');
    await instance.limiter.consume(request);
    const ttl = await store.admin.pttl(`${store.prefix}${request.apiKeyId} ${request.route}`);
    assert.ok(ttl > W - 60_000 && ttl <= W, `ttl ${ttl}`);
    await instance.close();
  });
});
