/**
 * Rate limits over HTTP, with the limiter the app builds from its configuration (the database one,
 * or Redis when REDIS_URL is set), on both engines.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { type App, buildApp } from '../../src/app.ts';
import type { AppConfig } from '../../src/config.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { issueApiKey } from '../../src/domain/account/service.ts';
import { createRateLimiter, SqlRateLimiter } from '../../src/ratelimit/index.ts';
import type { RateLimiter } from '../../src/ratelimit/limiter.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { countHits } from '../../src/storage/repositories/rate-limit.ts';
import { bearer, ENGINES, needsRedis, openTestStorage, REDIS_URL, type TestStorage, testConfig } from '../support/harness.ts';

const RATE_LIMITED = 'Too many requests, please try again later.';
const silent = { info() {}, warn() {}, error() {} };

/** `"secure";r=3;t=0` → { r: 3, t: 0 } */
function rateLimitHeader(res: LightMyRequestResponse) {
  const value = String(res.headers.ratelimit);
  const match = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(value);
  assert.ok(match, `RateLimit header "${value}"`);
  return { tier: match[1], r: Number(match[2]), t: Number(match[3]) };
}

function assertRateLimited(res: LightMyRequestResponse) {
  assert.equal(res.statusCode, 429);
  const body = res.json();
  assert.equal(body.message, RATE_LIMITED);
  assert.equal(body.code, 'rate_limited');
  assert.equal(body.requestId, res.headers['x-request-id']);
  assert.equal(res.headers['ratelimit-policy'], '"secure";q=5;w=3600');
  const { r, t } = rateLimitHeader(res);
  assert.equal(r, 0);
  assert.ok(t > 3500 && t <= 3600, `t=${t}`);
  const retryAfter = res.headers['retry-after'];
  assert.match(String(retryAfter), /^\d+$/, 'Retry-After is whole seconds');
  assert.ok(Number(retryAfter) >= t, 'Retry-After is never earlier than t');
}

for (const engine of ENGINES) {
  describe(`rate limits over HTTP [${engine}]`, () => {
    let test: TestStorage;
    let tenant: BootstrapResult;
    const apps: App[] = [];
    const extraStorages: StorageConnection[] = [];

    /** An app over the test database; without `rateLimiter` it builds its limiter from `config`. */
    async function start(options: { config?: Partial<AppConfig>; rateLimiter?: RateLimiter | null; storage?: StorageConnection } = {}) {
      const app = await buildApp({
        config: testConfig(options.config),
        storage: options.storage ?? test.storage,
        ...(options.rateLimiter !== undefined ? { rateLimiter: options.rateLimiter } : {}),
        logger: false,
      });
      await app.ready();
      apps.push(app);
      return app;
    }

    /** A second connection to the same database, as another server process would have. */
    function secondConnection() {
      const storage = openStorage(test.url);
      extraStorages.push(storage);
      return storage;
    }

    /** A new key for the tenant's user: a bucket of its own. */
    async function newToken(app: App) {
      return (await issueApiKey(app.services, tenant.userId, `k-${randomBytes(3).toString('hex')}`)).token;
    }

    const createKey = (app: App, token: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { ...bearer(token), ...headers }, payload: { name: 'burst' } });

    before(async () => {
      test = await openTestStorage(engine);
      const app = await start({ rateLimiter: null });
      tenant = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    });
    after(async () => {
      for (const app of apps) await app.close();
      for (const storage of extraStorages) await storage.close();
      await test.dispose();
    });

    it('admits exactly 5 of 12 parallel requests on a secure route, and says why the others wait', async () => {
      const origin = 'https://board.example';
      const app = await start({ config: { cors: { origins: [origin], maxAgeSeconds: 600 } } });
      const token = await newToken(app);
      const answers = await Promise.all(Array.from({ length: 12 }, () => createKey(app, token, { origin })));
      const created = answers.filter((res) => res.statusCode === 201);
      const limited = answers.filter((res) => res.statusCode === 429);
      assert.equal(created.length, 5);
      assert.equal(limited.length, 7);
      for (const res of limited) assertRateLimited(res);

      const remaining = created.map((res) => rateLimitHeader(res)).sort((a, b) => b.r - a.r);
      assert.deepEqual(
        remaining.map((h) => h.r),
        [4, 3, 2, 1, 0],
      );
      assert.deepEqual(
        remaining.slice(0, 4).map((h) => h.t),
        [0, 0, 0, 0],
        't is 0 while the bucket has room',
      );
      for (const res of created) assert.equal(res.headers['ratelimit-policy'], '"secure";q=5;w=3600');

      // Browsers may read the headers: CORS exposes them.
      for (const res of [created[0], limited[0]]) {
        const exposed = String(res?.headers['access-control-expose-headers']).split(/,\s*/);
        for (const name of ['RateLimit', 'RateLimit-Policy', 'Retry-After']) assert.ok(exposed.includes(name), `${name} exposed`);
      }
    });

    it('answers the sixth POST /api/v1/api-keys within the window with 429, counting down before', async () => {
      const app = await start();
      const token = await newToken(app);
      for (let i = 4; i >= 0; i--) {
        const res = await createKey(app, token);
        assert.equal(res.statusCode, 201);
        assert.equal(rateLimitHeader(res).r, i);
      }
      const sixth = await createKey(app, token);
      assertRateLimited(sixth);
    });

    it('counts a route template, not a URL: different ids share one bucket', async () => {
      const app = await start();
      const token = await newToken(app);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${randomBytes(12).toString('hex')}`, headers: bearer(token) });
        statuses.push(res.statusCode);
        // a counted answer carries the headers whatever its status
        assert.equal(res.headers['ratelimit-policy'], '"secure";q=5;w=3600');
        assert.equal(rateLimitHeader(res).r, Math.max(0, 4 - i));
      }
      assert.deepEqual(statuses, [404, 404, 404, 404, 404, 429]);
    });

    it('never lets a 401 reach a bucket', async () => {
      const app = await start();
      const before = await countHits(test.storage.db);
      for (const headers of [{}, bearer('tb_not-a-real-key'), { authorization: 'Basic abc' }]) {
        for (let i = 0; i < 4; i++) {
          const res = await app.inject({ method: 'POST', url: '/api/v1/api-keys', headers, payload: { name: 'x' } });
          assert.equal(res.statusCode, 401);
          assert.equal(res.headers.ratelimit, undefined);
          assert.equal(res.headers['retry-after'], undefined);
        }
      }
      assert.equal(await countHits(test.storage.db), before, 'no bucket counted anything');
    });

    it('counts HEAD against the GET bucket', async () => {
      const app = await start({ config: { rateLimit: { ...testConfig().rateLimit, tiers: { ...testConfig().rateLimit.tiers, 'very-low': 2 } } } });
      const token = await newToken(app);
      const get = await app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token) });
      const head = await app.inject({ method: 'HEAD', url: '/api/v1/me', headers: bearer(token) });
      const third = await app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token) });
      assert.deepEqual([get.statusCode, head.statusCode, third.statusCode], [200, 200, 429]);
      assert.equal(third.headers['ratelimit-policy'], '"very-low";q=2;w=3600');
    });

    it('takes tier sizes, window and per-route tiers from the configuration', async () => {
      const base = testConfig().rateLimit;
      const app = await start({
        config: { rateLimit: { ...base, windowSeconds: 60, tiers: { ...base.tiers, high: 2 }, routeTiers: { 'GET /api/v1/me': 'high' } } },
      });
      const token = await newToken(app);
      const statuses: number[] = [];
      let last: LightMyRequestResponse | undefined;
      for (let i = 0; i < 3; i++) {
        last = await app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token) });
        statuses.push(last.statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.equal(last?.headers['ratelimit-policy'], '"high";q=2;w=60');
      assert.ok(rateLimitHeader(last as LightMyRequestResponse).t <= 60);
    });

    it('keeps a full bucket full across a restart', async () => {
      const first = await start();
      const token = await newToken(first);
      for (let i = 0; i < 5; i++) assert.equal((await createKey(first, token)).statusCode, 201);
      await first.close();
      apps.splice(apps.indexOf(first), 1);

      const restarted = await start({ storage: secondConnection() });
      assertRateLimited(await createKey(restarted, token));
    });

    it('admits everything, without headers, when RATE_LIMIT_ENABLED=false', async () => {
      const app = await start({ config: { rateLimit: { ...testConfig().rateLimit, enabled: false } } });
      assert.equal(app.rateLimiter, null);
      const token = await newToken(app);
      const answers = await Promise.all(Array.from({ length: 7 }, () => createKey(app, token)));
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        Array(7).fill(201),
      );
      assert.equal(answers[0]?.headers.ratelimit, undefined);
    });

    it('answers 503 when no store can decide, instead of running unlimited, and logs that once', async () => {
      const broken = openStorage(test.url);
      await countHits(broken.db); // connected once, so closing really closes it
      await broken.close();
      const logged: { msg: string }[] = [];
      const app = await buildApp({
        config: testConfig(),
        storage: test.storage,
        rateLimiter: new SqlRateLimiter({ storage: broken, settings: testConfig().rateLimit }),
        logger: { level: 'error', stream: { write: (line: string) => logged.push(JSON.parse(line)) } },
      });
      apps.push(app);
      for (let i = 0; i < 3; i++) {
        const res = await createKey(app, tenant.apiKey);
        assert.equal(res.statusCode, 503);
        assert.equal(res.json().code, 'unavailable');
        assert.equal(typeof res.json().message, 'string');
        assert.equal(res.headers['retry-after'], '1');
      }
      assert.deepEqual(
        logged.map((entry) => entry.msg),
        ['rate limiter: cannot decide, answering 503 until it can'],
        'one line per incident',
      );
    });

    if (engine === 'postgres') {
      it('stays exact across two instances sharing PostgreSQL', async () => {
        const one = await start();
        const two = await start({ storage: secondConnection() });
        const token = await newToken(one);
        const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => createKey(i % 2 ? one : two, token)));
        assert.equal(answers.filter((res) => res.statusCode === 201).length, 5);
        for (const res of answers.filter((r) => r.statusCode !== 201)) assertRateLimited(res);
      });
    }

    describe('with Redis', needsRedis, () => {
      const prefix = `tb:test:${randomBytes(6).toString('hex')}:`;
      const redis = new Redis(REDIS_URL, { lazyConnect: true });
      after(async () => {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
        await redis.quit();
      });

      async function startOnRedis(storage: StorageConnection) {
        const config = testConfig({ redisUrl: REDIS_URL, redisKeyPrefix: prefix });
        const rateLimiter = await createRateLimiter({ config, storage, log: silent });
        return start({ config, storage, rateLimiter });
      }

      it('stays exact across two instances sharing one Redis', async () => {
        const one = await startOnRedis(test.storage);
        // Each instance with its own Redis client; on PostgreSQL with its own database connection too.
        const two = await startOnRedis(engine === 'postgres' ? secondConnection() : test.storage);
        const token = await newToken(one);
        const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => createKey(i % 2 ? one : two, token)));
        assert.equal(answers.filter((res) => res.statusCode === 201).length, 5);
        for (const res of answers.filter((r) => r.statusCode !== 201)) assertRateLimited(res);
        const keys = await redis.keys(`${prefix}*`);
        assert.equal(keys.length, 1, 'one bucket, in Redis');
        assert.equal(await redis.zcard(keys[0] as string), 5);
      });
    });
  });
}

describe('rate-limit tiers at start', () => {
  let test: TestStorage;
  before(async () => {
    test = await openTestStorage('sqlite');
  });
  after(() => test.dispose());

  it('refuses a route override that names no served route, and takes one that does', async () => {
    const withOverride = (route: string) =>
      buildApp({
        config: testConfig({ rateLimit: { ...testConfig().rateLimit, routeTiers: { [route]: 'secure' } } }),
        storage: test.storage,
        rateLimiter: null,
        logger: false,
      });
    const typo = await withOverride('GET /api/v1/cards/:id');
    try {
      await assert.rejects(async () => typo.ready(), /RATE_LIMIT_ROUTE_TIERS names routes the API does not serve: GET \/api\/v1\/cards\/:id/);
    } finally {
      await typo.close();
    }
    const good = await withOverride('GET /api/v1/cards/:cardId');
    try {
      await good.ready();
    } finally {
      await good.close();
    }
  });

  it('refuses a route that needs a key but names no tier, so no route escapes the limits', async () => {
    const build = () => buildApp({ config: testConfig(), storage: test.storage, rateLimiter: null, logger: false });
    const refused = await build();
    try {
      refused.get('/api/v1/untiered', async () => ({}));
      await assert.rejects(async () => refused.ready(), /without a rate-limit tier.*GET \/api\/v1\/untiered/);
    } finally {
      await refused.close();
    }
    const app = await build();
    try {
      app.get('/api/v1/tiered', { config: { tier: 'low' } }, async () => ({}));
      app.get('/public', { config: { public: true } }, async () => ({}));
      await app.ready();
      assert.ok(app.hasRoute({ method: 'GET', url: '/api/v1/tiered' }) && app.hasRoute({ method: 'GET', url: '/public' }));
    } finally {
      await app.close();
    }
  });
});
