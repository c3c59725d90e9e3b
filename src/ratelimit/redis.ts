import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { DEFAULT_REDIS_KEY_PREFIX } from '../config.ts';
import type { RateLimitDecision, RateLimiter, RateLimitRequest } from './limiter.ts';
import { bucketOf, decisionOf, limitOf, type RateLimitSettings } from './policy.ts';

/**
 * The sliding-log rule of sliding-log.ts on a sorted set (score: admitted time, ms), in one atomic
 * script per decision. Without a time from the caller it uses Redis's own clock, which every
 * instance shares. KEYS[1] bucket; ARGV: now ('' = Redis time), window ms, limit, unique member.
 * Returns { admitted 0/1, live hits after the decision, ms until the bucket admits one more }.
 */
const SLIDING_LOG = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local admitted = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('PEXPIRE', key, window)
  count = count + 1
  admitted = 1
end
local reset = 0
if count >= limit then
  local blocking = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  reset = math.max(0, tonumber(blocking[2]) + window - now)
end
return { admitted, count, reset }
`;

type SlidingLogCommand = (key: string, now: string, windowMs: number, limit: number, member: string) => Promise<[number, number, number]>;

export interface RedisRateLimiterOptions {
  url: string;
  settings: RateLimitSettings;
  /** Prepended to every bucket's key, so deployments (and tests) sharing a Redis stay apart. */
  keyPrefix?: string;
  /** Epoch ms; tests move time with it. Default: Redis's clock. */
  now?: () => number;
  /** Longest wait for one decision before it counts as a failure. */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
}

/**
 * The limiter for several instances sharing one Redis. It never waits for Redis beyond
 * `commandTimeoutMs`: no offline queue, no retries of a command; a decision Redis cannot make
 * fails at once, and the caller (FailoverRateLimiter) decides what then. The client reconnects on
 * its own in the background.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly client: Redis;
  readonly keyPrefix: string;
  readonly #settings: RateLimitSettings;
  readonly #windowMs: number;
  readonly #now: (() => number) | undefined;
  readonly #memberPrefix = randomBytes(6).toString('hex');
  #sequence = 0;

  constructor(options: RedisRateLimiterOptions) {
    this.#settings = options.settings;
    this.#windowMs = options.settings.windowSeconds * 1000;
    this.#now = options.now;
    this.keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
    const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.client = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 250,
      connectTimeout: options.connectTimeoutMs ?? 2000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
      scripts: { slidingLog: { numberOfKeys: 1, lua: SLIDING_LOG } },
    });
    // Connection failures surface through consume(); without a listener ioredis prints each retry.
    this.client.on('error', () => {});
  }

  /** Connects; rejects when the first attempt fails (the client keeps retrying in the background). */
  async connect(): Promise<void> {
    await this.client.connect();
  }

  get ready(): boolean {
    return this.client.status === 'ready';
  }

  async consume(request: RateLimitRequest): Promise<RateLimitDecision> {
    if (!this.ready) throw new Error(`Redis connection is ${this.client.status}`);
    const limit = limitOf(this.#settings, request);
    const slidingLog = (this.client as unknown as { slidingLog: SlidingLogCommand }).slidingLog.bind(this.client);
    const [admitted, count, resetMs] = await slidingLog(
      this.keyPrefix + bucketOf(request),
      this.#now ? String(this.#now()) : '',
      this.#windowMs,
      limit,
      `${this.#memberPrefix}:${(this.#sequence++).toString(36)}`,
    );
    return decisionOf(this.#settings, request, {
      allowed: admitted === 1,
      remaining: Math.max(0, limit - count),
      resetMs,
    });
  }

  async close(): Promise<void> {
    if (this.client.status === 'ready') {
      await this.client.quit().catch(() => this.client.disconnect());
    } else {
      this.client.disconnect();
    }
  }
}
