/**
 * Redis faults, with a Redis of the test's own (never the machine's on 6379): killed, paused, absent
 * at startup. The service keeps answering (the database decides meanwhile), logs each incident
 * once, and goes back to Redis by itself.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { type App, buildApp } from '../../src/app.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { issueApiKey } from '../../src/domain/account/service.ts';
import type { ServiceContext } from '../../src/domain/context.ts';
import { createRateLimiter, FailoverRateLimiter, type LimiterLog, RedisRateLimiter, SqlRateLimiter } from '../../src/ratelimit/index.ts';
import type { RateLimiter } from '../../src/ratelimit/limiter.ts';
import { bearer, ENGINES, needsRedis, openTestStorage, serviceContext, type TestStorage, testConfig } from '../support/harness.ts';

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** A redis-server child process on `port`, without persistence. */
class RedisServer {
  child: ChildProcess | null = null;
  paused = false;
  readonly port: number;
  constructor(port: number) {
    this.port = port;
  }

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
    });
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    this.child = null;
    if (this.paused) this.resume(child);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  /** Stops the process without closing its socket: Redis is there but never answers. */
  pause(): void {
    this.child?.kill('SIGSTOP');
    this.paused = true;
  }

  resume(child = this.child): void {
    child?.kill('SIGCONT');
    this.paused = false;
  }
}

/** Resolves when the client is connected again (events.once would reject on its retry errors). */
function readyAgain(client: Redis): Promise<void> {
  return new Promise((resolve) => client.once('ready', () => resolve()));
}

/** A plain client to look at what the limiter stored. */
function inspect(server: RedisServer): Redis {
  const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on('error', () => {}); // it outlives the server it looks at
  return client;
}

/** Collects what the limiter logs about Redis, to check each incident is logged once. */
function recordingLog() {
  const entries: { level: string; message: string }[] = [];
  const record = (level: string) => (details: object, message: string) => {
    if ('redis' in details) entries.push({ level, message });
  };
  const log: LimiterLog = { info: record('info'), warn: record('warn'), error: record('error') };
  return { log, entries, levels: () => entries.map((e) => e.level) };
}

for (const engine of ENGINES) {
  describe(`Redis outages [${engine}]`, needsRedis, () => {
    let test: TestStorage;
    let tenant: BootstrapResult;
    let services: ServiceContext;
    let server: RedisServer;
    let app: App | null = null;
    const prefix = `tb:test:${randomBytes(6).toString('hex')}:`;
    const bucketKey = (apiKeyId: string) => `${prefix}${apiKeyId} POST /api/v1/api-keys`;
    let inspector: Redis;

    before(async () => {
      test = await openTestStorage(engine);
      services = serviceContext(test.storage);
      tenant = await bootstrap(services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    });
    afterEach(async () => {
      await app?.close();
      app = null;
      inspector?.disconnect();
      await server?.kill();
    });
    after(() => test.dispose());

    async function startApp(rateLimiter: RateLimiter) {
      const config = testConfig({ redisUrl: server.url });
      app = await buildApp({ config, storage: test.storage, rateLimiter, logger: false });
      await app.ready();
      return app;
    }

    async function newKey() {
      const issued = await issueApiKey(services, tenant.userId, 'outage');
      return { token: issued.token, id: issued.apiKey._id };
    }

    const createKey = (token: string) => (app as App).inject({ method: 'POST', url: '/api/v1/api-keys', headers: bearer(token), payload: { name: 'x' } });

    async function statuses(token: string, count: number) {
      const seen: number[] = [];
      for (let i = 0; i < count; i++) seen.push((await createKey(token)).statusCode);
      return seen;
    }

    it('keeps answering when Redis dies, exact on the database meanwhile, and returns to Redis', async () => {
      server = new RedisServer(await freePort());
      await server.start();
      inspector = inspect(server);
      const { log, levels } = recordingLog();
      const config = testConfig({ redisUrl: server.url, redisKeyPrefix: prefix });
      const limiter = (await createRateLimiter({ config, storage: test.storage, log })) as FailoverRateLimiter;
      await startApp(limiter);
      const key = await newKey();

      assert.deepEqual(await statuses(key.token, 2), [201, 201]);
      assert.equal(await inspector.zcard(bucketKey(key.id)), 2, 'Redis decided');
      assert.deepEqual(levels(), []);

      await server.kill();
      // The database decides now; it does not know Redis's 2 hits, and is exact on its own.
      assert.deepEqual(await statuses(key.token, 7), [201, 201, 201, 201, 201, 429, 429]);
      assert.equal(limiter.degraded, true);
      assert.deepEqual(levels(), ['warn'], 'one log line for the incident, not one per request');

      const back = readyAgain(limiter.primary.client);
      await server.start();
      await back;
      // This Redis started empty (no persistence): the bucket starts over there.
      assert.deepEqual(await statuses(key.token, 1), [201]);
      assert.equal(await inspector.zcard(bucketKey(key.id)), 1, 'Redis decides again');
      assert.equal(limiter.degraded, false);
      assert.deepEqual(levels(), ['warn', 'info']);
    });

    // The timeout turns a hang (a wait that is not bounded) into a failure.
    it('bounds the wait on a Redis that stops answering, and goes back once it answers again', { timeout: 30_000 }, async () => {
      server = new RedisServer(await freePort());
      await server.start();
      inspector = inspect(server);
      const { log, levels } = recordingLog();
      const settings = testConfig().rateLimit;
      const clock = { at: 0 };
      const redis = new RedisRateLimiter({ url: server.url, settings, keyPrefix: prefix, commandTimeoutMs: 200 });
      const limiter = new FailoverRateLimiter(redis, new SqlRateLimiter({ storage: test.storage, settings }), {
        log,
        retryAfterMs: 1000,
        clock: () => clock.at,
      });
      await limiter.start();
      await startApp(limiter);
      const key = await newKey();

      assert.deepEqual(await statuses(key.token, 1), [201]);
      server.pause();
      // The first request waits out the command timeout, the next ones do not wait for Redis at all.
      const pausedAt = performance.now();
      assert.deepEqual(await statuses(key.token, 3), [201, 201, 201]);
      const waited = performance.now() - pausedAt;
      assert.ok(waited < 1500, `three answers took ${Math.round(waited)} ms: one command timeout (200 ms) at most, plus the database's work`);
      assert.equal(limiter.degraded, true);
      assert.deepEqual(levels(), ['warn']);

      server.resume();
      assert.deepEqual(await statuses(key.token, 1), [201], 'still on the database until the pause is over');
      clock.at += 1000;
      assert.deepEqual(await statuses(key.token, 1), [201]);
      assert.equal(limiter.degraded, false);
      assert.deepEqual(levels(), ['warn', 'info']);
      // Redis decided the first and the last; the decision that timed out still ran when Redis woke
      // up, so it counts there as well as in the database: a timeout can over-count, never under-count.
      assert.equal(await inspector.zcard(bucketKey(key.id)), 3);
    });

    it('starts without Redis, on the database, and moves to Redis once it is up', async () => {
      server = new RedisServer(await freePort());
      const { log, levels } = recordingLog();
      const config = testConfig({ redisUrl: server.url, redisKeyPrefix: prefix });
      const limiter = (await createRateLimiter({ config, storage: test.storage, log })) as FailoverRateLimiter;
      assert.equal(limiter.degraded, true);
      await startApp(limiter);
      const key = await newKey();
      assert.deepEqual(await statuses(key.token, 2), [201, 201]);
      assert.deepEqual(levels(), ['warn']);

      const up = readyAgain(limiter.primary.client);
      await server.start();
      await up;
      inspector = inspect(server);
      assert.deepEqual(await statuses(key.token, 1), [201]);
      assert.equal(await inspector.zcard(bucketKey(key.id)), 1);
      assert.deepEqual(levels(), ['warn', 'info']);
    });
  });
}
