import { resolve } from 'node:path';
import { parseDatabaseUrl } from '../storage/dialect.ts';
import { DEFAULT_DATABASE_TIMEOUTS, DEFAULT_POOL_SIZE, type DatabaseTimeouts } from '../storage/postgres-pool.ts';

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
  rateLimit: {
    enabled: boolean;
    windowSeconds: number;
    tiers: Record<Tier, number>;
    /** `METHOD /path/template` → tier, replacing a route's own tier. */
    routeTiers: Record<string, Tier>;
  };
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

function databaseUrl(raw: string | undefined): string {
  const url = raw || 'sqlite:./data/taskboard.db';
  try {
    parseDatabaseUrl(url);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return url;
}

export const DEFAULT_REDIS_KEY_PREFIX = 'taskboard:ratelimit:';

function redisKeyPrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULT_REDIS_KEY_PREFIX;
  if (!/^[\x21-\x7e]{1,100}$/.test(raw)) throw new ConfigError(`REDIS_KEY_PREFIX must be 1 to 100 printable characters without spaces, got "${raw}"`);
  return raw;
}

/** Reads and validates the configuration; throws ConfigError with a message a person can act on. */
export function loadConfig(env: Env = process.env): AppConfig {
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

  return {
    host: env.HOST || '0.0.0.0',
    port: integer(env, 'PORT', 3000, 0, 65535),
    databaseUrl: databaseUrl(env.DATABASE_URL),
    database: {
      connectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectTimeoutMs, 100, 600_000),
      statementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementTimeoutMs, 100, 3_600_000),
      idleInTransactionTimeoutMs: integer(env, 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.idleInTransactionTimeoutMs, 100, 3_600_000),
      poolSize: integer(env, 'DB_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
    },
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: redisKeyPrefix(env.REDIS_KEY_PREFIX),
    uploadDir: resolve(env.UPLOAD_DIR || './data/uploads'),
    maxUploadBytes: integer(env, 'MAX_UPLOAD_BYTES', 25 * 1024 * 1024, 1, 2 ** 40),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 2 ** 30),
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: flag(env, 'TRUST_PROXY', false),
    rateLimit: {
      enabled: flag(env, 'RATE_LIMIT_ENABLED', true),
      windowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 3600, 1, 31 * 24 * 3600),
      tiers,
      routeTiers,
    },
  };
}
