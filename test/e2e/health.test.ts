import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { createRateLimiter } from '../../src/ratelimit/index.ts';
import { parseDatabaseUrl } from '../../src/storage/database-url.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

describe('health and authentication surface', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp('sqlite');
  });
  after(() => t.dispose());

  it('answers /healthz and /readyz without a key', async () => {
    const live = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(live.statusCode, 200);
    assert.deepEqual(live.json(), { status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    const body = ready.json();
    assert.equal(body.status, 'ready');
    assert.deepEqual(Object.keys(body.checks).sort(), ['database', 'databaseFile', 'uploadDir']);
    for (const check of Object.values(body.checks) as { status: string; durationMs: number }[]) {
      assert.equal(check.status, 'ok');
      assert.equal(typeof check.durationMs, 'number');
    }
  });

  it('answers unknown routes with the contract error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nope' });
    assert.equal(res.statusCode, 404);
    const body = res.json();
    assert.equal(body.code, 'not_found');
    assert.equal(typeof body.message, 'string');
    assert.equal(body.requestId, res.headers['x-request-id']);
  });
});

for (const engine of ENGINES) {
  describe(`readiness says what is wrong [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(engine);
    });
    after(() => t.dispose());

    it('an upload folder that cannot be stored to: not ready, naming it', async () => {
      // A file where the folder should be (permissions would not stop root, which runs the CI).
      writeFileSync(t.config.uploadDir, 'not a folder');
      try {
        const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(ready.statusCode, 503);
        const body = ready.json();
        assert.equal(body.status, 'not ready');
        assert.equal(body.checks.uploadDir.status, 'failed');
        assert.match(body.checks.uploadDir.message, /is not a folder/);
        assert.equal(body.checks.database.status, 'ok');
      } finally {
        rmSync(t.config.uploadDir);
      }
      assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    });

    if (engine === 'sqlite') {
      it('the SQLite file gone from under the server: not ready', async () => {
        const { location } = parseDatabaseUrl(t.storage.description);
        renameSync(location, `${location}.moved`);
        try {
          const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
          assert.equal(ready.statusCode, 503);
          assert.equal(ready.json().checks.databaseFile.status, 'failed');
          assert.match(ready.json().checks.databaseFile.message, /is missing/);
        } finally {
          renameSync(`${location}.moved`, location);
        }
        assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      });
    }
  });
}

describe('readiness with Redis configured', () => {
  it('Redis that does not answer: degraded (the database takes over the rate limits), still 200, within 2 s', async () => {
    // A Redis that accepts connections and never answers: the check times out.
    const silent = await TcpProxy.start('127.0.0.1', 6379);
    silent.silence();
    const t = await buildTestApp('sqlite');
    const limiter = await createRateLimiter({
      config: { ...t.config, redisUrl: silent.url('redis://127.0.0.1:6379') },
      storage: t.storage,
      log: { info() {}, warn() {}, error() {} },
    });
    const app = await buildApp({ config: t.config, storage: t.storage, rateLimiter: limiter, logger: false });
    try {
      // The bound is on the answer of a running server (what a load balancer asks), not on booting the app.
      await app.ready();
      const started = performance.now();
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      const ms = performance.now() - started;
      assert.equal(ready.statusCode, 200);
      const body = ready.json();
      assert.equal(body.status, 'degraded');
      assert.equal(body.checks.redis.status, 'failed');
      assert.equal(body.checks.database.status, 'ok');
      assert.ok(ms < 2000, `readyz took ${Math.round(ms)} ms`);
    } finally {
      await app.close();
      await t.dispose();
      await silent.close();
    }
  });
});
