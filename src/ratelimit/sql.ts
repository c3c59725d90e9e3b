import type { RateLimitDecision, RateLimiter, RateLimitRequest } from '../plugins/rate-limit.ts';
import { type ExclusiveRunner, lockInTransaction, type StorageConnection } from '../storage/dialect.ts';
import { decideOnSqliteBucket, deleteHitsUpTo, insertHit, readBucketTail } from '../storage/repositories/rate-limit.ts';
import { bucketOf, decisionOf, type LimiterLog, limitOf, type RateLimitSettings } from './policy.ts';
import { decideOnTail, type SlidingLogOutcome } from './sliding-log.ts';

export interface SqlRateLimiterOptions {
  storage: Pick<StorageConnection, 'db' | 'engine' | 'runExclusive'>;
  settings: RateLimitSettings;
  /** Epoch ms; tests move time with it. Default: the shared clock (see `lockInTransaction`). */
  now?: () => number;
  /** How often, at most, hits that left the window are deleted. */
  sweepEveryMs?: number;
  /** Hits deleted per statement while sweeping. */
  sweepBatch?: number;
  log?: LimiterLog;
}

/**
 * The sliding-log limiter over the configured database (SQLite or PostgreSQL): every decision runs
 * in a transaction, serialized per bucket, so it is exact under concurrent requests, across restarts
 * and across instances that share one PostgreSQL. A decision costs one lock (PostgreSQL only), one
 * read of index look-ups and, when admitted, one insert; on SQLite the decisions of one turn of the
 * event loop share one transaction.
 */
export class SqlRateLimiter implements RateLimiter {
  readonly #options: SqlRateLimiterOptions;
  readonly #windowMs: number;
  readonly #sweepEveryMs: number;
  readonly #sweepBatch: number;
  #nextSweepAt = Number.NEGATIVE_INFINITY;
  #sweeping: Promise<void> | null = null;
  #closed = false;
  /** SQLite: decisions waiting for the next group commit. */
  #pending: {
    bucket: string;
    limit: number;
    resolve: (decided: { outcome: SlidingLogOutcome; now: number }) => void;
    reject: (error: unknown) => void;
  }[] = [];

  constructor(options: SqlRateLimiterOptions) {
    this.#options = options;
    this.#windowMs = options.settings.windowSeconds * 1000;
    this.#sweepEveryMs = options.sweepEveryMs ?? 60_000;
    this.#sweepBatch = options.sweepBatch ?? 1000;
  }

  async consume(request: RateLimitRequest): Promise<RateLimitDecision> {
    const { storage, settings } = this.#options;
    const bucket = bucketOf(request);
    const limit = limitOf(settings, request);
    const { outcome, now } = storage.runExclusive
      ? await this.#decideOnSqlite(storage.runExclusive, bucket, limit)
      : await this.#decideInTransaction(bucket, limit);
    this.#maybeSweep(now);
    return decisionOf(settings, request, outcome);
  }

  /** PostgreSQL: one transaction per decision, serialised per bucket by an advisory lock. */
  async #decideInTransaction(bucket: string, limit: number) {
    const { storage } = this.#options;
    return storage.db.transaction().execute(async (trx) => {
      const { lockedAt } = await lockInTransaction(trx, storage.engine, bucket);
      const now = this.#options.now?.() ?? lockedAt;
      const tail = await readBucketTail(trx, storage.engine, bucket, now - this.#windowMs, limit);
      const outcome = decideOnTail(tail, now, limit, this.#windowMs);
      // A rejected request leaves the bucket as it was: 429s never count.
      if (outcome.hit) await insertHit(trx, storage.engine, bucket, outcome.hit.seq, outcome.hit.at);
      return { outcome, now };
    });
  }

  /**
   * SQLite: decisions wait for the end of the current turn of the event loop, then all those that
   * arrived in it run synchronously, in arrival order, in ONE transaction on the one connection
   * (group commit). Nothing can come between their statements, and the commit, which is most of a
   * decision's cost, is shared. Each request still goes on only once its hit is committed.
   */
  #decideOnSqlite(run: ExclusiveRunner, bucket: string, limit: number): Promise<{ outcome: SlidingLogOutcome; now: number }> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ bucket, limit, resolve, reject });
      if (this.#pending.length === 1) setImmediate(() => this.#commitPending(run));
    });
  }

  #commitPending(run: ExclusiveRunner): void {
    const batch = this.#pending;
    this.#pending = [];
    const { db } = this.#options.storage;
    run((queries) =>
      batch.map(({ bucket, limit }) => {
        const now = this.#options.now?.() ?? Date.now();
        const outcome = decideOnSqliteBucket(db, queries, bucket, now - this.#windowMs, limit, (tail) =>
          decideOnTail(tail, now, limit, this.#windowMs),
        );
        return { outcome, now };
      }),
    ).then(
      (decided) => batch.forEach((waiting, i) => waiting.resolve(decided[i] as { outcome: SlidingLogOutcome; now: number })),
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
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
