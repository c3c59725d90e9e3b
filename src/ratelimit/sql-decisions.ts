/**
 * The SQL rate limiter's decisions: each reads its bucket's tail, decides, and logs the hit it
 * admits, serialized with every other decision on its bucket in the way the engine runs such
 * decisions (`Dialect.keyedDecisions`, src/storage/engine/keyed-decisions.ts).
 */
import { type CompiledQuery, type RawBuilder, sql } from 'kysely';
import type { Executor } from '../storage/database.ts';
import type { Dialect } from '../storage/dialect.ts';
import type { BucketTail } from './sliding-log.ts';

/** One rate-limit decision on a bucket: `decide` answers from the bucket's tail at `now`. */
export interface BucketDecision<O extends Admission> {
  bucket: string;
  limit: number;
  windowMs: number;
  decide(tail: BucketTail | null, now: number): O;
  /** Epoch ms; default: the clock the instances share (see `Locks.lockInTransaction`). */
  now?: (() => number) | undefined;
}

/** What a decision logs when it admits the request. */
export interface Admission {
  hit?: { seq: number; at: number } | undefined;
}

/** How decisions run on a database (`rateLimitDecisions` picks one). */
export interface RateLimitDecisions {
  /** Runs `decision` exactly, serialized with every other one on its bucket; logs the hit it admits. */
  decide<O extends Admission>(decision: BucketDecision<O>): Promise<{ outcome: O; now: number }>;
}

/** How decisions run on the database `db` runs on. */
export function rateLimitDecisions(db: Executor, dialect: Dialect): RateLimitDecisions {
  const decisions = dialect.keyedDecisions(db);
  return {
    decide: ({ bucket, limit, windowMs, decide, now }) =>
      decisions.decide({
        key: bucket,
        read: dialect.compiledOnce('rate-limit tail', () => compiledWithValues(db, tailQuery)) as CompiledQuery<TailRow>,
        readValues: (at) => [bucket, at - windowMs, limit],
        decide: (rows, at) => {
          const outcome = decide(toTail(rows), at);
          // A rejected request leaves the bucket as it was: 429s never count.
          return { outcome, write: outcome.hit ? [bucket, outcome.hit.seq, outcome.hit.at] : undefined };
        },
        write: dialect.compiledOnce('rate-limit insert', () => compiledWithValues(db, insertHitQuery)),
        now,
      }),
  };
}

interface TailRow {
  last_seq: number | null;
  last_at: number | null;
  first_live_seq: number | null;
  blocking_at: number | null;
  next_blocking_at: number | null;
}

/**
 * What one decision needs of a bucket, in one query of index look-ups whatever the limit: the last
 * hit, the oldest one after `horizon`, and the hits `limit` and `limit - 1` back from the last (see
 * BucketTail). Its values are the bucket, the horizon and the limit.
 *
 * The values come in through the one-row `params` table (typed by its casts on PostgreSQL). It
 * predates `src/storage/sqlite-parameters.ts`, which now keeps every SQLite statement from being
 * prepared again on each run, so the table is no longer what keeps this one prepared once.
 */
function tailQuery(b: unknown, h: unknown, l: unknown) {
  return sql`
    select
      t.last_seq,
      t.first_live_seq,
      (select h.admitted_at from rate_limit_hits h where h.bucket = t.bucket and h.seq = t.last_seq) as last_at,
      (select h.admitted_at from rate_limit_hits h where h.bucket = t.bucket and h.seq = t.last_seq + 1 - t.lim) as blocking_at,
      (select h.admitted_at from rate_limit_hits h where h.bucket = t.bucket and h.seq = t.last_seq + 2 - t.lim) as next_blocking_at
    from (
      select
        params.bucket,
        params.lim,
        (select h.seq from rate_limit_hits h where h.bucket = params.bucket order by h.seq desc limit 1) as last_seq,
        (select h.seq from rate_limit_hits h where h.bucket = params.bucket and h.admitted_at > params.horizon
          order by h.admitted_at, h.seq limit 1) as first_live_seq
      from (select cast(${b} as text) as bucket, cast(${h} as bigint) as horizon, cast(${l} as bigint) as lim) as params
    ) as t`;
}

const insertHitQuery = (b: unknown, s: unknown, a: unknown) => sql`insert into rate_limit_hits (bucket, seq, admitted_at) values (${b}, ${s}, ${a})`;

function toTail(rows: TailRow[]): BucketTail | null {
  const row = rows[0];
  if (!row || row.last_seq === null) return null;
  const number = (value: number | null) => (value === null ? null : Number(value));
  return {
    lastSeq: Number(row.last_seq),
    lastAt: Number(row.last_at),
    firstLiveSeq: number(row.first_live_seq),
    blockingAt: number(row.blocking_at),
    nextBlockingAt: number(row.next_blocking_at),
  };
}

/**
 * Every request runs these two queries: they are compiled once per dialect and run with the
 * values swapped in, since compiling costs more than running them.
 */
type QueryBuilder = (a: unknown, b: unknown, c: unknown) => RawBuilder<unknown>;

function compiledWithValues(db: Executor, build: QueryBuilder): CompiledQuery {
  const compiled = build(0, 1, 2).compile(db);
  // The values must be the query's parameters, in this order.
  if (compiled.parameters.join() !== '0,1,2') throw new Error('rate-limit query: unexpected parameters');
  return compiled;
}
