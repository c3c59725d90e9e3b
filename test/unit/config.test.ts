import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/plugins/config.ts';
import { parseDatabaseUrl } from '../../src/storage/dialect.ts';

describe('configuration', () => {
  it('defaults to the embedded SQLite database, port 3000 and the contract tiers', () => {
    const config = loadConfig({});
    assert.equal(config.databaseUrl, 'sqlite:./data/taskboard.db');
    assert.equal(config.port, 3000);
    assert.deepEqual(config.rateLimit.tiers, { secure: 5, high: 15, medium: 35, low: 75, 'very-low': 140 });
    assert.equal(config.rateLimit.windowSeconds, 3600);
    assert.equal(config.redisKeyPrefix, 'taskboard:ratelimit:');
    assert.equal(loadConfig({ REDIS_KEY_PREFIX: 'acme:tb:' }).redisKeyPrefix, 'acme:tb:');
  });

  it('reads tier sizes, the window and route overrides', () => {
    const config = loadConfig({ RATE_LIMIT_VERY_LOW: '9', RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_ROUTE_TIERS: '{"GET /api/v1/me":"secure"}' });
    assert.equal(config.rateLimit.tiers['very-low'], 9);
    assert.equal(config.rateLimit.windowSeconds, 60);
    assert.deepEqual(config.rateLimit.routeTiers, { 'GET /api/v1/me': 'secure' });
  });

  it('bounds the waits on the database by default, and reads the DB_* variables', () => {
    assert.deepEqual(loadConfig({}).database, { connectTimeoutMs: 5000, statementTimeoutMs: 10_000, idleInTransactionTimeoutMs: 30_000, poolSize: 10 });
    const config = loadConfig({ DB_CONNECT_TIMEOUT_MS: '800', DB_STATEMENT_TIMEOUT_MS: '2500', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '4000', DB_POOL_SIZE: '3' });
    assert.deepEqual(config.database, { connectTimeoutMs: 800, statementTimeoutMs: 2500, idleInTransactionTimeoutMs: 4000, poolSize: 3 });
  });

  it('refuses bad values with a message naming the variable', () => {
    for (const env of [
      { PORT: 'eighty' },
      { PORT: '70000' },
      { RATE_LIMIT_SECURE: '0' },
      { RATE_LIMIT_ROUTE_TIERS: '[1]' },
      { RATE_LIMIT_ROUTE_TIERS: '{"GET /x":"huge"}' },
      { RATE_LIMIT_ENABLED: 'maybe' },
      { REDIS_KEY_PREFIX: 'has space' },
      { DATABASE_URL: 'mysql://localhost/db' },
      { DB_CONNECT_TIMEOUT_MS: '0' },
      { DB_STATEMENT_TIMEOUT_MS: 'soon' },
      { DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '-1' },
      { DB_POOL_SIZE: '0' },
      { DATABASE_URL: 'postgres://h/db?schema=Robert;drop' },
    ]) {
      const name = Object.keys(env)[0] as string;
      assert.throws(() => loadConfig(env), (e: Error) => e instanceof ConfigError && e.message.includes(name), name);
    }
  });

  it('parses database URLs for both engines', () => {
    assert.deepEqual(parseDatabaseUrl('sqlite:./data/x.db'), { engine: 'sqlite', location: './data/x.db' });
    const pg = parseDatabaseUrl('postgres://u:p@h:5432/db?schema=tenant_a');
    assert.equal(pg.engine, 'postgres');
    assert.equal(pg.schema, 'tenant_a');
    assert.ok(!pg.location.includes('schema='));
    assert.throws(() => parseDatabaseUrl('mysql://x'), /DATABASE_URL/);
    assert.throws(() => parseDatabaseUrl('postgres://h/db?schema=Robert;drop'), /schema/);
  });
});
