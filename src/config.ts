import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDatabaseUrl } from './storage/dialect.ts';
import { DEFAULT_DATABASE_TIMEOUTS, DEFAULT_POOL_SIZE, type DatabaseTimeouts } from './storage/postgres-pool.ts';

/** The rate-limit tiers of the contract, cheapest last. */
export const TIERS = ['secure', 'high', 'medium', 'low', 'very-low'] as const;
export type Tier = (typeof TIERS)[number];

export interface AppConfig {
  host: string;
  port: number;
  databaseUrl: string;
  /** Bounds on every wait on the database, and the PostgreSQL pool's size. */
  database: DatabaseTimeouts & { poolSize: number };
  redisUrl: string | undefined;
  /** Prefix of every Redis key the service writes, so deployments can share one Redis. */
  redisKeyPrefix: string;
  uploadDir: string;
  /** Largest accepted attachment, bytes. */
  maxUploadBytes: number;
  /** Largest accepted JSON body, bytes. */
  bodyLimitBytes: number;
  logLevel: string;
  trustProxy: boolean;
  /** Bounds on what one client can hold open. */
  http: {
    /** Whole request, headers and body, from the first byte (0: none). */
    requestTimeoutMs: number;
    /** Request headers, from the first byte. */
    headersTimeoutMs: number;
    /** An idle keep-alive connection between requests. */
    keepAliveTimeoutMs: number;
    /** Requests on one connection before the server closes it (0: no limit). */
    maxRequestsPerSocket: number;
    /** On SIGINT/SIGTERM, how long in-flight requests may finish before their connections are cut. */
    shutdownTimeoutMs: number;
  };
  /** Live streams of a board's events (GET /api/v1/boards/:boardId/events). */
  stream: {
    /** Between heartbeats (an SSE comment), and between checks of the caller's reach. */
    heartbeatMs: number;
    /** Bytes a stream may hold for a client that does not read, before it is dropped. */
    bufferBytes: number;
  };
  /** `/metrics`: off unless a token or a port of its own is configured. */
  metrics: {
    /** Bearer token `/metrics` on the main port requires. */
    token: string | undefined;
    /** A port of its own for `/metrics` (bound to `host`), needing no token. */
    port: number | undefined;
    host: string;
  };
  cors: {
    /** Origins allowed to call the API from a browser: a list, `*` for any, or none. */
    origins: string[] | '*';
    /** How long a browser may cache a preflight answer. */
    maxAgeSeconds: number;
  };
  /** Webhook deliveries (src/domain/webhooks): see the README, Webhooks. */
  webhooks: {
    /** Deliver to loopback, private, link-local and metadata addresses too (tests, closed networks). */
    allowPrivateNetworks: boolean;
    /** Bound on one delivery attempt, connect to response headers and body. */
    timeoutMs: number;
    /** How often the dispatcher looks at the event feed without being told of a commit (other instances' changes). */
    pollMs: number;
  };
  /** The sweeper of deleted lists and boards: how often it looks, and how many cards one transaction removes. */
  sweep: { intervalMs: number; batchCards: number };
  /** The reminder scheduler: a pass every `intervalMs` (0: none in this process). */
  reminders: { intervalMs: number };
  /** Delivery to a NotificationSender (src/domain/notifications/sender.ts). */
  notifications: {
    /** Bound on one `send`: past it the send is abandoned (its signal aborted), logged and counted. */
    sendTimeoutMs: number;
  };
  /** The event record (README, "Events"). */
  events: {
    /** Events older than this many days are pruned (the purge command, and the server's schedule). */
    retentionDays: number;
    /** How often the server prunes (0: never; the purge command still does). */
    pruneIntervalMs: number;
  };
  /** People sign in (docs/people.md): sessions, sign-in throttling, mail, single sign-on. */
  people: PeopleConfig;
  rateLimit: {
    enabled: boolean;
    windowSeconds: number;
    tiers: Record<Tier, number>;
    /** `METHOD /path/template` → tier, replacing a route's own tier. */
    routeTiers: Record<string, Tier>;
  };
}

export interface PeopleConfig {
  /** The address people open the app at (links in mails and in the setup line); default: from each request. */
  publicUrl: string | undefined;
  /** A session ends after this long unused, and this long after sign-in whatever its use. */
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  /** A session's requests are limited per user at the contract's tier sizes times this. */
  sessionRateLimitFactor: number;
  /** Failed sign-ins admitted per email and per client address within the window. */
  signInFailures: { perEmail: number; perAddress: number; windowSeconds: number };
  /** Outgoing mail; no URL: no mail (links are shown to the admin instead). */
  mail: { smtpUrl: string | undefined; from: string; timeoutMs: number; pollMs: number };
  /** OpenID Connect sign-in; undefined unless the issuer, client and redirect are all set. */
  oidc: { issuer: string; clientId: string; clientSecret: string | undefined; redirectUrl: string; allowSignUp: boolean } | undefined;
}

/** A route's tier: the configured override for its `METHOD /path/template`, else the route's own. */
export function tierOfRoute(rateLimit: AppConfig['rateLimit'], route: string, own: Tier | undefined): Tier | undefined {
  return rateLimit.routeTiers[route] ?? own;
}

export const DEFAULT_TIER_LIMITS: Record<Tier, number> = {
  secure: 5,
  high: 15,
  medium: 35,
  low: 75,
  'very-low': 140,
};

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** The variable that sizes a tier: `RATE_LIMIT_SECURE` ... `RATE_LIMIT_VERY_LOW`. */
export function tierEnvName(tier: Tier): string {
  return `RATE_LIMIT_${tier.toUpperCase().replace('-', '_')}`;
}

/** Days the event record keeps an event (EVENT_RETENTION_DAYS). */
export const DEFAULT_EVENT_RETENTION_DAYS = 90;

export const DEFAULT_DATABASE_URL = 'sqlite:./data/taskboard.db';

/**
 * A SQLite file whose folder is missing is most likely a typo, which would silently start an empty
 * database: refused unless asked for (`taskboard migrate --create`). The default `./data` folder is
 * created, so a fresh clone starts with `npm start`.
 */
function databaseUrl(raw: string | undefined, createDatabase: boolean): string {
  const url = raw || DEFAULT_DATABASE_URL;
  let parsed;
  try {
    parsed = parseDatabaseUrl(url);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (parsed.engine === 'sqlite' && parsed.location !== ':memory:' && url !== DEFAULT_DATABASE_URL && !createDatabase) {
    const folder = dirname(resolve(parsed.location));
    if (!existsSync(folder)) {
      throw new ConfigError(`DATABASE_URL names a SQLite file in ${folder}, a folder that does not exist (create it, or run taskboard migrate --create)`);
    }
  }
  return url;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'info';
  if (!LOG_LEVELS.includes(raw)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
}

function redisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError('REDIS_URL must be a URL like redis://host:6379 or rediss://host:6380');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ConfigError(`REDIS_URL must start with redis:// or rediss:// (got "${parsed.protocol}")`);
  }
  if (!parsed.hostname) throw new ConfigError('REDIS_URL needs a host, e.g. redis://127.0.0.1:6379');
  return raw;
}

function corsOrigins(raw: string | undefined): string[] | '*' {
  if (raw === undefined || raw.trim() === '') return [];
  if (raw.trim() === '*') return '*';
  const origins = raw.split(',').map((origin) => origin.trim()).filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {}
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(`CORS_ORIGINS must be * or a comma-separated list of origins like https://app.example.com, got "${origin}"`);
    }
  }
  return origins;
}

function optionalText(env: Env, name: string, pattern: RegExp, rule: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!pattern.test(raw)) throw new ConfigError(`${name} must be ${rule}`);
  return raw;
}

export const DEFAULT_REDIS_KEY_PREFIX = 'taskboard:ratelimit:';

function redisKeyPrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULT_REDIS_KEY_PREFIX;
  if (!/^[\x21-\x7e]{1,100}$/.test(raw)) throw new ConfigError(`REDIS_KEY_PREFIX must be 1 to 100 printable characters without spaces, got "${raw}"`);
  return raw;
}

function url(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  try {
    const parsed = new URL(raw);
    if (!/^(https?|smtps?):$/.test(parsed.protocol)) throw new Error();
  } catch {
    throw new ConfigError(`${name} must be a URL like https://host or smtp://host:587, got "${raw}"`);
  }
  return raw.replace(/\/$/, '');
}

const DAY_MS = 86_400_000;

function peopleConfig(env: Env): PeopleConfig {
  const oidcIssuer = url(env, 'OIDC_ISSUER');
  const oidcClientId = env.OIDC_CLIENT_ID?.trim();
  const oidcRedirect = url(env, 'OIDC_REDIRECT_URL');
  if (oidcIssuer && (!oidcClientId || !oidcRedirect)) throw new ConfigError('OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_REDIRECT_URL too');
  return {
    publicUrl: url(env, 'PUBLIC_URL'),
    sessionIdleMs: integer(env, 'SESSION_IDLE_DAYS', 14, 1, 3650) * DAY_MS,
    sessionAbsoluteMs: integer(env, 'SESSION_ABSOLUTE_DAYS', 90, 1, 3650) * DAY_MS,
    sessionRateLimitFactor: integer(env, 'SESSION_RATE_LIMIT_FACTOR', 10, 1, 10_000),
    signInFailures: {
      perEmail: integer(env, 'SIGN_IN_FAILURES_PER_EMAIL', 10, 1, 1_000_000),
      perAddress: integer(env, 'SIGN_IN_FAILURES_PER_ADDRESS', 50, 1, 1_000_000),
      windowSeconds: integer(env, 'SIGN_IN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
    },
    mail: {
      smtpUrl: url(env, 'SMTP_URL'),
      from: env.MAIL_FROM?.trim() || 'Taskboard <taskboard@localhost>',
      timeoutMs: integer(env, 'MAIL_TIMEOUT_MS', 10_000, 100, 600_000),
      pollMs: integer(env, 'MAIL_POLL_MS', 5_000, 10, 600_000),
    },
    oidc:
      oidcIssuer && oidcClientId && oidcRedirect
        ? { issuer: oidcIssuer, clientId: oidcClientId, clientSecret: env.OIDC_CLIENT_SECRET || undefined, redirectUrl: oidcRedirect, allowSignUp: flag(env, 'OIDC_ALLOW_SIGN_UP', false) }
        : undefined,
  };
}

/** Reads and validates the configuration; throws ConfigError with a message a person can act on. */
export function loadConfig(env: Env = process.env, options: { createDatabase?: boolean } = {}): AppConfig {
  const tiers = Object.fromEntries(
    TIERS.map((tier) => [tier, integer(env, tierEnvName(tier), DEFAULT_TIER_LIMITS[tier], 1, 1_000_000)]),
  ) as Record<Tier, number>;

  let routeTiers: Record<string, Tier> = {};
  if (env.RATE_LIMIT_ROUTE_TIERS) {
    try {
      routeTiers = JSON.parse(env.RATE_LIMIT_ROUTE_TIERS) as Record<string, Tier>;
    } catch {
      throw new ConfigError('RATE_LIMIT_ROUTE_TIERS must be a JSON object like {"GET /api/v1/me":"low"}');
    }
    if (typeof routeTiers !== 'object' || routeTiers === null || Array.isArray(routeTiers)) {
      throw new ConfigError('RATE_LIMIT_ROUTE_TIERS must be a JSON object');
    }
    for (const [route, tier] of Object.entries(routeTiers)) {
      if (!/^(GET|POST|PUT|PATCH|DELETE) \/\S*$/.test(route)) {
        throw new ConfigError(`RATE_LIMIT_ROUTE_TIERS key "${route}" must be "METHOD /path/template"`);
      }
      if (!TIERS.includes(tier)) {
        throw new ConfigError(`RATE_LIMIT_ROUTE_TIERS["${route}"] must be one of ${TIERS.join(', ')}`);
      }
    }
  }

  const http = {
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 0, 3_600_000),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 1, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 1, 3_600_000),
    maxRequestsPerSocket: integer(env, 'MAX_REQUESTS_PER_SOCKET', 0, 0, 1_000_000_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 3_600_000),
  };
  // Node refuses a header bound longer than the whole request's.
  if (http.requestTimeoutMs > 0 && http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${http.headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`);
  }

  return {
    host: env.HOST || '0.0.0.0',
    port: integer(env, 'PORT', 3000, 0, 65535),
    databaseUrl: databaseUrl(env.DATABASE_URL, options.createDatabase ?? false),
    database: {
      connectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectTimeoutMs, 100, 600_000),
      statementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementTimeoutMs, 100, 3_600_000),
      idleInTransactionTimeoutMs: integer(env, 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.idleInTransactionTimeoutMs, 100, 3_600_000),
      poolSize: integer(env, 'DB_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
    },
    redisUrl: redisUrl(env.REDIS_URL),
    redisKeyPrefix: redisKeyPrefix(env.REDIS_KEY_PREFIX),
    uploadDir: resolve(env.UPLOAD_DIR || './data/uploads'),
    maxUploadBytes: integer(env, 'MAX_UPLOAD_BYTES', 25 * 1024 * 1024, 1, 2 ** 40),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 2 ** 30),
    logLevel: logLevel(env.LOG_LEVEL),
    trustProxy: flag(env, 'TRUST_PROXY', false),
    http,
    stream: {
      heartbeatMs: integer(env, 'STREAM_HEARTBEAT_MS', 15_000, 10, 3_600_000),
      bufferBytes: integer(env, 'STREAM_BUFFER_BYTES', 1024 * 1024, 1024, 2 ** 30),
    },
    metrics: {
      token: optionalText(env, 'METRICS_TOKEN', /^[\x21-\x7e]{16,200}$/, '16 to 200 printable characters without spaces'),
      port: env.METRICS_PORT ? integer(env, 'METRICS_PORT', 0, 1, 65535) : undefined,
      host: env.METRICS_HOST || '127.0.0.1',
    },
    cors: {
      origins: corsOrigins(env.CORS_ORIGINS),
      maxAgeSeconds: integer(env, 'CORS_MAX_AGE_SECONDS', 600, 0, 86_400),
    },
    webhooks: {
      allowPrivateNetworks: flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 600_000),
      pollMs: integer(env, 'WEBHOOK_POLL_MS', 500, 10, 60_000),
    },
    sweep: {
      intervalMs: integer(env, 'SWEEP_INTERVAL_MS', 60_000, 100, 86_400_000),
      batchCards: integer(env, 'SWEEP_BATCH_CARDS', 200, 1, 10_000),
    },
    reminders: { intervalMs: integer(env, 'REMINDER_INTERVAL_MS', 15_000, 0, 3_600_000) },
    notifications: { sendTimeoutMs: integer(env, 'NOTIFICATION_SEND_TIMEOUT_MS', 10_000, 10, 600_000) },
    events: {
      retentionDays: integer(env, 'EVENT_RETENTION_DAYS', DEFAULT_EVENT_RETENTION_DAYS, 1, 36_500),
      pruneIntervalMs: integer(env, 'EVENT_PRUNE_INTERVAL_SECONDS', 3600, 0, 7 * 86_400) * 1000,
    },
    people: peopleConfig(env),
    rateLimit: {
      enabled: flag(env, 'RATE_LIMIT_ENABLED', true),
      windowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 3600, 1, 31 * 24 * 3600),
      tiers,
      routeTiers,
    },
  };
}
