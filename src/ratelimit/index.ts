import type { AppConfig } from '../config.ts';
import type { StorageConnection } from '../storage/open.ts';
import { FailoverRateLimiter } from './failover.ts';
import type { RateLimiter } from './limiter.ts';
import type { LimiterLog } from './policy.ts';
import { RedisRateLimiter } from './redis.ts';
import { SqlRateLimiter } from './sql.ts';

export { FailoverRateLimiter } from './failover.ts';
export type { LimiterLog, RateLimitSettings } from './policy.ts';
export { RedisRateLimiter } from './redis.ts';
export { SqlRateLimiter } from './sql.ts';

export interface RateLimiterSetup {
  config: AppConfig;
  /** The app's database: the limiter's store, or the fallback when Redis is configured. */
  storage: Pick<StorageConnection, 'db' | 'dialect'>;
  log: LimiterLog;
  /** Epoch ms for the buckets (tests); default: the store's clock. */
  now?: () => number;
}

/**
 * The limiter the configuration asks for: none when RATE_LIMIT_ENABLED=false; Redis (falling back
 * to the database) when REDIS_URL is set; else the database. Connects before it answers, so the
 * first requests do not find Redis still connecting.
 */
export async function createRateLimiter(setup: RateLimiterSetup): Promise<RateLimiter | null> {
  const { config, storage, log, now } = setup;
  const { windowSeconds, tiers } = config.rateLimit;
  if (!config.rateLimit.enabled) {
    log.warn({ rateLimits: 'off' }, 'rate limits are off (RATE_LIMIT_ENABLED=false): every API-key request is admitted');
    return null;
  }
  const database = new SqlRateLimiter({ storage, settings: config.rateLimit, log, ...(now ? { now } : {}) });
  if (!config.redisUrl) {
    log.info({ rateLimits: storage.dialect.name, windowSeconds, tiers }, `rate limits: kept in the database (${storage.dialect.name})`);
    return database;
  }
  log.info({ rateLimits: 'redis', windowSeconds, tiers }, `rate limits: kept in Redis, the database (${storage.dialect.name}) when Redis is unavailable`);
  const redis = new RedisRateLimiter({
    url: config.redisUrl,
    settings: config.rateLimit,
    keyPrefix: config.redisKeyPrefix,
    ...(now ? { now } : {}),
  });
  const limiter = new FailoverRateLimiter(redis, database, { log });
  await limiter.start();
  return limiter;
}
