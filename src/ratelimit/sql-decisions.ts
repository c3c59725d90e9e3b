/**
 * How the SQL rate limiter's decisions run on each engine. Where statements run synchronously in
 * this process (SQLite) the decisions of one turn of the event loop share one transaction (a group
 * commit); elsewhere (PostgreSQL) each decision is a transaction of its own, serialized per bucket
 * by the engine's lock.
 */
import { type CompiledQuery, type RawBuilder, sql } from 'kysely';
import type { Executor } from '../storage/database.ts';
import type { Dialect, ExclusiveRunner, SyncQueries } from '../storage/dialect.ts';
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

/** How decisions run on the database `db` runs on: in a group commit where it runs statements synchronously. */
export function rateLimitDecisions(db: Executor, dialect: Dialect): RateLimitDecisions {
  const runExclusive = dialect.exclusiveRunner;
  return runExclusive ? groupCommitDecisions(db, dialect, runExclusive) : transactionPerDecision(db, dialect);
}

/** One transaction per decision, serialized per bucket by the engine's lock. */
function transactionPerDecision(db: Executor, dialect: Dialect): RateLimitDecisions {
  return {
    decide: ({ bucket, limit, windowMs, decide, now: clock }) =>
      db.transaction().execute(async (trx) => {
        const { lockedAt } = await dialect.locks.lockInTransaction(trx, bucket);
        const now = clock?.() ?? lockedAt;
        const tail = toTail(await runCompiled<TailRow>(trx, dialect, 'tail', [bucket, now - windowMs, limit], tailQuery));
        const outcome = decide(tail, now);
        // A rejected request leaves the bucket as it was: 429s never count.
        if (outcome.hit) await runCompiled(trx, dialect, 'insert', [bucket, outcome.hit.seq, outcome.hit.at], insertHitQuery);
        return { outcome, now };
      }),
  };
}

/**
 * Decisions wait for the end of the current turn of the event loop, then all those that arrived in
 * it run synchronously, in arrival order, in ONE transaction (group commit, see `runExclusive`):
 * nothing can come between their statements, and the commit, which is most of a decision's cost,
 * is shared. Each request still goes on only once its hit is committed.
 */
function groupCommitDecisions(db: Executor, dialect: Dialect, runExclusive: ExclusiveRunner): RateLimitDecisions {
  type Waiting = { decision: BucketDecision<Admission>; resolve: (decided: { outcome: Admission; now: number }) => void; reject: (error: unknown) => void };
  let pending: Waiting[] = [];
  const commitPending = () => {
    const batch = pending;
    pending = [];
    runExclusive((queries: SyncQueries) => {
      const tail = dialect.compiledOnce('rate-limit tail', () => compiledWithValues(db, tailQuery));
      const insert = dialect.compiledOnce('rate-limit insert', () => compiledWithValues(db, insertHitQuery));
      return batch.map(({ decision: { bucket, limit, windowMs, decide, now: clock } }) => {
        const now = clock?.() ?? Date.now();
        const outcome = decide(toTail(queries.all<TailRow>(tail.sql, [bucket, now - windowMs, limit])), now);
        if (outcome.hit) queries.run(insert.sql, [bucket, outcome.hit.seq, outcome.hit.at]);
        return { outcome, now };
      });
    }).then(
      (decided) => batch.forEach((waiting, i) => waiting.resolve(decided[i] as { outcome: Admission; now: number })),
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
  };
  return {
    decide: <O extends Admission>(decision: BucketDecision<O>) =>
      new Promise<{ outcome: O; now: number }>((resolve, reject) => {
        pending.push({ decision, resolve: resolve as Waiting['resolve'], reject });
        if (pending.length === 1) setImmediate(commitPending);
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

async function runCompiled<R>(db: Executor, dialect: Dialect, name: 'tail' | 'insert', values: [unknown, unknown, unknown], build: QueryBuilder): Promise<R[]> {
  const compiled = dialect.compiledOnce(`rate-limit ${name}`, () => compiledWithValues(db, build));
  return (await db.executeQuery<R>({ ...compiled, parameters: values } as CompiledQuery<R>)).rows;
}
