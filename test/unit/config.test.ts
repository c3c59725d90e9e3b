import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { parseDatabaseUrl } from '../../src/storage/database-url.ts';

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

  it('keeps events 90 days by default, pruning hourly; reads EVENT_RETENTION_DAYS and EVENT_PRUNE_INTERVAL_SECONDS', () => {
    assert.deepEqual(loadConfig({}).events, { retentionDays: 90, pruneIntervalMs: 3_600_000 });
    assert.deepEqual(loadConfig({ EVENT_RETENTION_DAYS: '7', EVENT_PRUNE_INTERVAL_SECONDS: '0' }).events, { retentionDays: 7, pruneIntervalMs: 0 });
    for (const env of [{ EVENT_RETENTION_DAYS: '0' }, { EVENT_RETENTION_DAYS: 'ninety' }, { EVENT_PRUNE_INTERVAL_SECONDS: '-1' }]) {
      assert.throws(
        () => loadConfig(env),
        (error: Error) => error instanceof ConfigError && error.message.includes(Object.keys(env)[0] as string),
      );
    }
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

  it('reads group mappings of the directory and the provider: roles default to member, teams to none', () => {
    const config = loadConfig({
      LDAP_GROUP_MAP: '[{"group":"cn=design,ou=groups,dc=acme,dc=test","company":"Acme","teams":["Design"]}]',
      OIDC_GROUP_MAP: '[{"group":"admins","company":"Acme","role":"admin"}]',
    });
    assert.deepEqual(config.people.ldap.groupMap, [{ group: 'cn=design,ou=groups,dc=acme,dc=test', company: 'Acme', role: 'member', teams: ['Design'] }]);
    assert.deepEqual(config.people.oidc.groupMap, [{ group: 'admins', company: 'Acme', role: 'admin', teams: [] }]);
    assert.equal(config.people.oidc.groupsClaim, 'groups');
    assert.equal(config.people.oidc.scopes, 'openid email profile');
    assert.deepEqual(loadConfig({}).people.ldap.groupMap, []);
    for (const [raw, named] of [
      ['not json', 'LDAP_GROUP_MAP must be a JSON array'],
      ['{"group":"x"}', 'LDAP_GROUP_MAP must be a JSON array'],
      ['[{"company":"Acme"}]', 'LDAP_GROUP_MAP[0].group'],
      ['[{"group":"x","company":"Acme","role":"king"}]', 'LDAP_GROUP_MAP[0].role must be one of owner, admin, member'],
      ['[{"group":"x","company":"Acme","teams":"Design"}]', 'LDAP_GROUP_MAP[0].teams'],
      ['[{"group":"x","company":"Acme","team":["Design"]}]', 'unknown field "team"'],
    ] as const) {
      assert.throws(
        () => loadConfig({ LDAP_GROUP_MAP: raw }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(named),
        raw,
      );
    }
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
      { LOG_LEVEL: 'loud' },
      { REDIS_URL: 'localhost:6379' },
      { REDIS_URL: 'http://cache:6379' },
      { REDIS_URL: 'redis//cache' },
      { REQUEST_TIMEOUT_MS: 'soon' },
      { HEADERS_TIMEOUT_MS: '0' },
      { KEEP_ALIVE_TIMEOUT_MS: '-1' },
      { MAX_REQUESTS_PER_SOCKET: 'many' },
      { SHUTDOWN_TIMEOUT_MS: '1e3' },
      { METRICS_TOKEN: 'short' },
      { METRICS_PORT: '99999' },
      { CORS_ORIGINS: 'board.example' },
      { CORS_ORIGINS: 'https://board.example/path' },
      { CORS_MAX_AGE_SECONDS: 'a day' },
      { DATABASE_URL: 'sqlite:/no/such/dir/x.db' },
    ]) {
      const name = Object.keys(env)[0] as string;
      assert.throws(
        () => loadConfig(env),
        (e: Error) => e instanceof ConfigError && e.message.includes(name),
        name,
      );
    }
  });

  it('never repeats a secret in its message', () => {
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: 'short secret' }),
      (e: Error) => e instanceof ConfigError && e.message.includes('METRICS_TOKEN') && !e.message.includes('short secret'),
    );
  });

  it('reads an empty variable as unset, flags in their words and whole numbers with spaces around', () => {
    assert.equal(loadConfig({ PORT: '', HOST: '' }).port, 3000);
    assert.equal(loadConfig({ HOST: '' }).host, '0.0.0.0');
    assert.equal(loadConfig({ TRUST_PROXY: 'Yes' }).trustProxy, true);
    assert.equal(loadConfig({ RATE_LIMIT_ENABLED: 'off' }).rateLimit.enabled, false);
    assert.equal(loadConfig({ PORT: ' 8080 ' }).port, 8080);
    for (const raw of ['1e3', '0x10', '1.0', '-0']) assert.throws(() => loadConfig({ PORT: raw }), /PORT must be a whole number/, raw);
  });

  it('reads the operations settings, with safe defaults', () => {
    const defaults = loadConfig({});
    assert.deepEqual(defaults.http, {
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
      maxRequestsPerSocket: 0,
      shutdownTimeoutMs: 10_000,
    });
    assert.deepEqual(defaults.metrics, { token: undefined, port: undefined, host: '127.0.0.1' });
    assert.deepEqual(defaults.cors, { origins: [], maxAgeSeconds: 600 });
    assert.equal(defaults.logLevel, 'info');
    const set = loadConfig({
      REQUEST_TIMEOUT_MS: '5000',
      HEADERS_TIMEOUT_MS: '2000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      MAX_REQUESTS_PER_SOCKET: '0',
      SHUTDOWN_TIMEOUT_MS: '3000',
      METRICS_TOKEN: 'a-long-enough-token',
      METRICS_PORT: '9464',
      METRICS_HOST: '10.0.0.5',
      CORS_ORIGINS: 'https://a.example, http://localhost:5173',
      CORS_MAX_AGE_SECONDS: '60',
      LOG_LEVEL: 'warn',
      REDIS_URL: 'rediss://user:pw@cache.internal:6380/2',
    });
    assert.deepEqual(set.http, { requestTimeoutMs: 5000, headersTimeoutMs: 2000, keepAliveTimeoutMs: 1000, maxRequestsPerSocket: 0, shutdownTimeoutMs: 3000 });
    assert.deepEqual(set.metrics, { token: 'a-long-enough-token', port: 9464, host: '10.0.0.5' });
    assert.deepEqual(set.cors, { origins: ['https://a.example', 'http://localhost:5173'], maxAgeSeconds: 60 });
    assert.equal(set.redisUrl, 'rediss://user:pw@cache.internal:6380/2');
    assert.equal(loadConfig({ CORS_ORIGINS: '*' }).cors.origins, '*');
    assert.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' }), /HEADERS_TIMEOUT_MS/);
  });

  it('refuses a SQLite file in a missing folder, naming the folder, unless asked to create it', () => {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'sqlite:/no/such/dir/x.db' }),
      (e: Error) => e instanceof ConfigError && e.message.includes('/no/such/dir') && e.message.includes('--create'),
    );
    assert.equal(loadConfig({ DATABASE_URL: 'sqlite:/no/such/dir/x.db' }, { createDatabase: true }).databaseUrl, 'sqlite:/no/such/dir/x.db');
    // The default ./data folder is created on a fresh clone; an existing folder is fine.
    assert.equal(loadConfig({}).databaseUrl, 'sqlite:./data/taskboard.db');
    assert.equal(loadConfig({ DATABASE_URL: `sqlite:${process.cwd()}/x.db` }).databaseUrl, `sqlite:${process.cwd()}/x.db`);
    assert.equal(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).databaseUrl, 'sqlite::memory:');
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
