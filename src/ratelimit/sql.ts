import type { StorageConnection } from '../storage/open.ts';
import { deleteHitsUpTo } from '../storage/repositories/rate-limit.ts';
import type { RateLimitDecision, RateLimiter, RateLimitRequest } from './limiter.ts';
import { bucketOf, decisionOf, type LimiterLog, limitOf, type RateLimitSettings } from './policy.ts';
import { decideOnTail } from './sliding-log.ts';
import { type RateLimitDecisions, rateLimitDecisions } from './sql-decisions.ts';

export interface SqlRateLimiterOptions {
  storage: Pick<StorageConnection, 'db' | 'dialect'>;
  settings: RateLimitSettings;
  /** Epoch ms; tests move time with it. Default: the shared clock (src/storage/engine/locks.ts). */
  now?: () => number;
  /** How often, at most, hits that left the window are deleted. */
  sweepEveryMs?: number;
  /** Hits deleted per statement while sweeping. */
  sweepBatch?: number;
  log?: LimiterLog;
}

/**
 * The sliding-log limiter over the configured database: every decision runs in a transaction,
 * serialized per bucket, so it is exact under concurrent requests, across restarts and across
 * instances that share one database server. A decision costs one lock, one read of index look-ups
 * and, when admitted, one insert; how decisions share transactions depends on the engine
 * (src/ratelimit/sql-decisions.ts).
 */
export class SqlRateLimiter implements RateLimiter {
  readonly #options: SqlRateLimiterOptions;
  readonly #windowMs: number;
  readonly #sweepEveryMs: number;
  readonly #sweepBatch: number;
  #nextSweepAt = Number.NEGATIVE_INFINITY;
  #sweeping: Promise<void> | null = null;
  #closed = false;
  readonly #decisions: RateLimitDecisions;

  constructor(options: SqlRateLimiterOptions) {
    this.#options = options;
    this.#windowMs = options.settings.windowSeconds * 1000;
    this.#sweepEveryMs = options.sweepEveryMs ?? 60_000;
    this.#sweepBatch = options.sweepBatch ?? 1000;
    this.#decisions = rateLimitDecisions(options.storage.db, options.storage.dialect);
  }

  async consume(request: RateLimitRequest): Promise<RateLimitDecision> {
    const { settings } = this.#options;
    const bucket = bucketOf(request);
    const limit = limitOf(settings, request);
    const windowMs = this.#windowMs;
    const { outcome, now } = await this.#decisions.decide({
      bucket,
      limit,
      windowMs,
      decide: (tail, at) => decideOnTail(tail, at, limit, windowMs),
      now: this.#options.now,
    });
    this.#maybeSweep(now);
    return decisionOf(settings, request, outcome);
  }

  /**
   * Deletes every hit that left the window as of `now`; answers how many. Decisions never need
   * them, so this only keeps the table to about one window's worth of hits.
   */
  async sweep(now: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await deleteHitsUpTo(this.#options.storage.db, now - this.#windowMs, this.#sweepBatch);
      deleted += batch;
      if (batch < this.#sweepBatch || this.#closed) return deleted;
    }
  }

  /** Resolves once a sweep in progress (started by `consume`) is over. */
  async idle(): Promise<void> {
    await this.#sweeping;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.idle();
  }

  // Off the request's path: the decision that starts it does not wait for it.
  #maybeSweep(now: number): void {
    if (this.#sweeping || this.#closed || now < this.#nextSweepAt) return;
    this.#nextSweepAt = now + this.#sweepEveryMs;
    this.#sweeping = this.sweep(now)
      .then(
        () => undefined,
        (error: unknown) => this.#options.log?.warn({ err: error }, 'rate limiter: deleting old hits failed'),
      )
      .finally(() => {
        this.#sweeping = null;
      });
  }
}
