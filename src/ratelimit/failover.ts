import type { RateLimitDecision, RateLimiter, RateLimitRequest } from './limiter.ts';
import type { LimiterLog } from './policy.ts';
import type { RedisRateLimiter } from './redis.ts';

export interface FailoverOptions {
  log: LimiterLog;
  /** After a failed decision, how long to decide with the fallback before trying Redis again. */
  retryAfterMs?: number;
  /** A monotonic clock in ms for that pause (tests move it). */
  clock?: () => number;
}

/**
 * Fault policy for Redis: while Redis is unreachable, failing or slower than its command timeout,
 * decide with the database limiter instead, and go back to Redis by itself once it answers.
 * The service neither stops nor waits on Redis. What it costs: the two stores do not know each
 * other's hits, so across a switch a bucket can admit up to N from each within one window; the
 * database limiter is itself exact across the instances that share its PostgreSQL.
 * Logged once per incident (when it starts and when it ends), never per request.
 */
export class FailoverRateLimiter implements RateLimiter {
  readonly primary: RedisRateLimiter;
  readonly fallback: RateLimiter;
  readonly #log: LimiterLog;
  readonly #retryAfterMs: number;
  readonly #clock: () => number;
  #degraded = false;
  #retryAt = 0;

  constructor(primary: RedisRateLimiter, fallback: RateLimiter, options: FailoverOptions) {
    this.primary = primary;
    this.fallback = fallback;
    this.#log = options.log;
    this.#retryAfterMs = options.retryAfterMs ?? 1000;
    this.#clock = options.clock ?? (() => performance.now());
    // A (re)connected Redis is worth trying with the very next request.
    primary.client.on('ready', () => {
      this.#retryAt = 0;
    });
  }

  /** True while decisions go to the fallback. */
  get degraded(): boolean {
    return this.#degraded;
  }

  /** Connects to Redis; when that fails the service starts anyway, on the fallback. */
  async start(): Promise<void> {
    try {
      await this.primary.connect();
    } catch (error) {
      this.#fail(error);
    }
  }

  async consume(request: RateLimitRequest): Promise<RateLimitDecision> {
    if (!this.#degraded || (this.primary.ready && this.#clock() >= this.#retryAt)) {
      try {
        const decision = await this.primary.consume(request);
        if (this.#degraded) {
          this.#degraded = false;
          this.#log.info({ redis: 'available' }, 'rate limiter: Redis is back, deciding with Redis again');
        }
        return decision;
      } catch (error) {
        this.#fail(error);
      }
    }
    return this.fallback.consume(request);
  }

  ping(): Promise<unknown> {
    return this.primary.client.ping();
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }

  #fail(error: unknown): void {
    this.#retryAt = this.#clock() + this.#retryAfterMs;
    if (this.#degraded) return;
    this.#degraded = true;
    this.#log.warn({ redis: 'unavailable', err: error }, 'rate limiter: Redis is unavailable or too slow, deciding with the database until it is back');
  }
}
