/**
 * Test harness: real databases only. Every integration suite runs once per engine; PostgreSQL runs
 * get a schema of their own that is dropped afterwards, SQLite runs a file in a temporary folder.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type App, type BuildOptions, buildApp } from '../../src/app.ts';
import { type AppConfig, loadConfig } from '../../src/config.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { hashToken } from '../../src/domain/account/tokens.ts';
import type { ServiceContext } from '../../src/domain/context.ts';
import type { NotificationSender } from '../../src/domain/notifications/sender.ts';
import { setPassword } from '../../src/domain/people/sign-in.ts';
import { type Clock, systemClock } from '../../src/domain/shared/clock.ts';
import type { RateLimiter, RateLimitRequest } from '../../src/ratelimit/limiter.ts';
import type { Engine } from '../../src/storage/database-url.ts';
import { AttachmentFiles } from '../../src/storage/files.ts';
import { migrateToLatest } from '../../src/storage/migrator.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { startS3, type TestS3 } from './s3.ts';

/**
 * `npm run test:quick` sets TEST_QUICK=1 for the inner loop on a machine without PostgreSQL or Redis:
 * the engine-parametrised suites run on SQLite only, and the suites that need PostgreSQL or Redis
 * whatever the engine are skipped. `npm test` (CI) never sets it, so there nothing is skipped.
 */
export const QUICK = process.env.TEST_QUICK === '1';
export const ENGINES: readonly Engine[] = QUICK ? ['sqlite'] : ['sqlite', 'postgres'];
/** The options of a suite that needs PostgreSQL on any engine: skipped in quick mode only. */
export const needsPostgres = { skip: QUICK ? 'quick mode (TEST_QUICK=1): needs PostgreSQL' : false } as const;
/** The options of a suite that needs a Redis: skipped in quick mode only. */
export const needsRedis = { skip: QUICK ? 'quick mode (TEST_QUICK=1): needs Redis' : false } as const;

/** Where a test app keeps attachment bytes: the upload folder, or a bucket of a real S3-compatible server. */
export type StoreKind = 'file' | 's3';
export const STORES: readonly StoreKind[] = ['file', 's3'];
/** Every engine with every store: the attachment suites run on each pair. */
export const ENGINE_STORES: readonly (readonly [Engine, StoreKind])[] = STORES.flatMap((store) => ENGINES.map((engine) => [engine, store] as const));
export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let postgresChecked: Promise<void> | undefined;

/** Fails with a message that says what is missing, instead of a bare ECONNREFUSED. */
export function requirePostgres(): Promise<void> {
  postgresChecked ??= (async () => {
    if (QUICK) throw new Error('This test needs PostgreSQL, which quick mode (TEST_QUICK=1) does not use: mark its suite with needsPostgres, or run npm test.');
    const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
    } catch (error) {
      throw new Error(
        `PostgreSQL is not reachable at ${POSTGRES_URL} (${(error as Error).message}). ` +
          'The PostgreSQL half of the integration tests needs it: start PostgreSQL 15+ or set TEST_POSTGRES_URL.',
      );
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return postgresChecked;
}

/** Runs one statement on the PostgreSQL server outside the suites' schemas (to create and drop them). */
async function onPostgresServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export interface EmptyDatabase {
  /** The DATABASE_URL that reaches it. */
  url: string;
  /** Removes the database. */
  dispose(): Promise<void>;
}

/**
 * A new database of `engine` with no tables: a file in a temporary folder, or a PostgreSQL schema of
 * its own (`schemaMissing`: named by the URL but not created, as a new deployment's may be).
 */
export async function emptyDatabase(engine: Engine, options: { schemaMissing?: boolean } = {}): Promise<EmptyDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'taskboard-test-'));
    return { url: `sqlite:${join(dir, 'test.db')}`, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  await requirePostgres();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  if (!options.schemaMissing) await onPostgresServer(`create schema ${schema}`);
  return {
    url: `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`,
    dispose: () => onPostgresServer(`drop schema if exists ${schema} cascade`),
  };
}

export interface TestStorage {
  storage: StorageConnection;
  /** The DATABASE_URL that reaches this same database (for a second server instance). */
  url: string;
  dispose(): Promise<void>;
}

/** A new, migrated database of `engine`, open. */
export async function openTestStorage(engine: Engine): Promise<TestStorage> {
  const database = await emptyDatabase(engine);
  const storage = openStorage(database.url);
  await migrateToLatest(storage);
  return {
    storage,
    url: database.url,
    async dispose() {
      await storage.close();
      await database.dispose();
    },
  };
}

/**
 * A fresh upload folder's path, not created: the app creates it with the first stored file, so the
 * many suites that never upload leave nothing behind (those that do remove it in their dispose).
 */
export function freshUploadDir(): string {
  return join(tmpdir(), `taskboard-uploads-${randomBytes(6).toString('hex')}`);
}

export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  // the tests' webhook receivers listen on 127.0.0.1
  const base = loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  // no reminder passes of their own: a suite's cards must not change under it (the reminder suites run them),
  // nor rule passes: the rule suites tick the worker themselves
  return { ...base, uploadDir: freshUploadDir(), reminders: { intervalMs: 0 }, rules: { ...base.rules, pollMs: 0 }, recurrences: { pollMs: 0 }, ...overrides };
}

export interface TestApp {
  app: App;
  engine: Engine;
  storage: StorageConnection;
  /** The DATABASE_URL of the app's database (for a second server instance on it). */
  url: string;
  config: AppConfig;
  services: ServiceContext;
  /** The S3-compatible server the app's bucket is on (`store: 's3'`). */
  s3: TestS3 | undefined;
  /** A company with a team whose owner holds `token`. */
  tenant: BootstrapResult;
  dispose(): Promise<void>;
}

/** Builds the real app over a fresh database of `engine`, with one bootstrapped tenant. */
export async function buildTestApp(
  engine: Engine,
  options: {
    store?: StoreKind;
    config?: Partial<AppConfig>;
    rateLimiter?: RateLimiter | null;
    webhookDispatcher?: BuildOptions['webhookDispatcher'];
    clock?: Clock;
    notificationSender?: NotificationSender;
    /** The app's logger (default: none). */
    logger?: BuildOptions['logger'];
  } = {},
): Promise<TestApp> {
  const test = await openTestStorage(engine);
  const s3 = options.store === 's3' ? await startS3() : undefined;
  const config = testConfig({
    ...(s3 ? { attachments: s3.attachments(options.config?.attachments) } : {}),
    ...options.config,
    ...(s3 ? { attachments: s3.attachments(options.config?.attachments) } : {}),
  });
  const app = await buildApp({
    config,
    storage: test.storage,
    rateLimiter: options.rateLimiter ?? null,
    logger: options.logger ?? false,
    webhookDispatcher: options.webhookDispatcher,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.notificationSender ? { notificationSender: options.notificationSender } : {}),
  });
  try {
    await app.ready();
  } catch (error) {
    // a failed start must not leave the app's connections open behind the failing suite
    await app.close().catch(() => {});
    await test.dispose();
    await s3?.close();
    throw error;
  }
  const services = app.services;
  const tenant = await bootstrap(services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
  return {
    app,
    engine,
    storage: test.storage,
    url: test.url,
    config,
    services,
    tenant,
    s3,
    async dispose() {
      await app.close();
      await test.dispose();
      await s3?.close();
      rmSync(config.uploadDir, { recursive: true, force: true });
    },
  };
}

/** A service context over a test storage, for service-level tests without HTTP. */
export function serviceContext(storage: StorageConnection, uploadDir?: string): ServiceContext {
  return {
    db: storage.db,
    clock: systemClock,
    files: new AttachmentFiles(uploadDir ?? freshUploadDir()),
  };
}

export function bearer(token: string) {
  return { authorization: `Bearer ${token}` };
}

export type RecordingLimiter = RateLimiter & { seen: RateLimitRequest[] };

/** A limiter that admits everything and records what the rate-limit hook asked it: key, route, tier. */
export function recordingLimiter(): RecordingLimiter {
  const seen: RateLimitRequest[] = [];
  return {
    seen,
    consume: async (request) => {
      seen.push(request);
      return { allowed: true, tier: request.tier, limit: 1, windowSeconds: 3600, remaining: 0, resetSeconds: 0 };
    },
    close: async () => {},
  };
}

/** `api(method, url, body?)` as the holder of `key`: the shape most HTTP suites call the API in. */
export function apiClient(t: TestApp, key: string) {
  if (process.env.E2E_AUTH === 'session') return sessionClient(t, key);
  return (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: bearer(key), ...(payload !== undefined ? { payload: payload as object } : {}) });
}

/** Each app's signed-in users: one session per user, however many clients its keys make. */
const sessionsOfApps = new WeakMap<App, Map<string, Promise<Record<string, string>>>>();

/**
 * `E2E_AUTH=session`: the key's user signs in (a password given to it, then POST
 * /api/v1/auth/sign-in) and every request goes with the session cookie and CSRF token instead of
 * the key, as the web app sends them: the same suite then proves each operation works by session.
 */
function sessionClient(t: TestApp, key: string) {
  let sessions = sessionsOfApps.get(t.app);
  if (!sessions) sessionsOfApps.set(t.app, (sessions = new Map()));
  const known = sessions;
  let headers: Promise<Record<string, string>> | undefined;
  const signIn = async (): Promise<Record<string, string>> => {
    const row = await t.services.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .select(['users.id', 'users.email'])
      .where('token_hash', '=', hashToken(key))
      .executeTakeFirstOrThrow();
    let session = known.get(row.id);
    if (!session) {
      session = (async () => {
        const password = 'e2e session password 2026';
        await setPassword(t.services, row.id, password);
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: row.email, password } });
        if (res.statusCode !== 200) throw new Error(`session sign-in failed: ${res.body}`);
        return { cookie: String(res.headers['set-cookie']).split(';')[0]!, 'x-csrf-token': (res.json() as { csrfToken: string }).csrfToken };
      })();
      known.set(row.id, session);
    }
    return session;
  };
  return async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
    headers ??= signIn();
    return t.app.inject({ method, url, headers: await headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
  };
}

export type Api = ReturnType<typeof apiClient>;

/** The owner of a second company, with a client: the caller whose requests the scope tests refuse. */
export type OtherCompany = BootstrapResult & { api: Api };

/** Bootstraps the second company, Globex (team Ops, owner Gina Globex), in the app's database. */
export async function otherCompany(t: TestApp): Promise<OtherCompany> {
  const other = await bootstrap(t.services, { company: 'Globex', team: 'Ops', email: 'owner@globex.test', fullName: 'Gina Globex' });
  return { ...other, api: apiClient(t, other.apiKey) };
}

/** The app over `engine` with the tenant's client and another company's owner: the frame of the scope-checking suites. */
export async function buildTwoCompanyApp(engine: Engine, options?: Parameters<typeof buildTestApp>[1]): Promise<{ t: TestApp; api: Api; other: OtherCompany }> {
  const t = await buildTestApp(engine, options);
  return { t, api: apiClient(t, t.tenant.apiKey), other: await otherCompany(t) };
}
