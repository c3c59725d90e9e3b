/**
 * How small hot decisions on the rows of one key run on each engine (the rate limiter's, see
 * src/ratelimit/sql-decisions.ts): each one reads, decides from what it read, and writes what it
 * decided, with no other decision on its key in between. Where statements run synchronously in this
 * process (SQLite) the decisions of one turn of the event loop share one transaction (a group
 * commit); elsewhere (PostgreSQL) each decision is a transaction of its own, serialized per key by
 * the engine's lock.
 */
import type { CompiledQuery } from 'kysely';
import type { Executor } from '../database.ts';
import type { Locks } from './locks.ts';

/** Runs SQL synchronously, with statements prepared once per text. */
export interface SyncQueries {
  all<R>(source: string, parameters: readonly unknown[]): R[];
  run(source: string, parameters: readonly unknown[]): void;
}

export type ExclusiveRunner = <T>(work: (queries: SyncQueries) => T) => Promise<T>;

/** One decision on the rows of `key`: a read, the choice made from its rows, and the write the choice asks for. */
export interface KeyedDecision<O, R> {
  key: string;
  /** The read, compiled once; its values are `readValues(now)`. */
  read: CompiledQuery<R>;
  readValues(now: number): readonly unknown[];
  /** The outcome, and the values of `write` when it writes. */
  decide(rows: R[], now: number): { outcome: O; write?: readonly unknown[] | undefined };
  /** The write, compiled once. */
  write: CompiledQuery;
  /** Epoch ms; default: the clock the instances share (see `Locks.lockInTransaction`). */
  now?: (() => number) | undefined;
}

export interface KeyedDecisions {
  /** Runs `decision` exactly, serialized with every other one on its key. */
  decide<O, R>(decision: KeyedDecision<O, R>): Promise<{ outcome: O; now: number }>;
}

/** One transaction per decision, serialized per key by the engine's lock (PostgreSQL). */
export function transactionPerDecision(db: Executor, locks: Locks): KeyedDecisions {
  return {
    decide: <O, R>({ key, read, readValues, decide, write, now: clock }: KeyedDecision<O, R>) =>
      db.transaction().execute(async (trx) => {
        const { lockedAt } = await locks.lockInTransaction(trx, key);
        const now = clock?.() ?? lockedAt;
        const { rows } = await trx.executeQuery<R>({ ...read, parameters: readValues(now) });
        const decided = decide(rows, now);
        if (decided.write) await trx.executeQuery({ ...write, parameters: decided.write });
        return { outcome: decided.outcome, now };
      }),
  };
}

/**
 * Decisions wait for the end of the current turn of the event loop, then all those that arrived in
 * it run synchronously, in arrival order, in ONE transaction (group commit, see `runExclusive`):
 * nothing can come between their statements, and the commit, which is most of a decision's cost,
 * is shared. Each caller still goes on only once its write is committed (SQLite).
 */
export function groupCommitDecisions(runExclusive: ExclusiveRunner): KeyedDecisions {
  type Waiting = {
    decision: KeyedDecision<unknown, unknown>;
    resolve: (decided: { outcome: unknown; now: number }) => void;
    reject: (error: unknown) => void;
  };
  let pending: Waiting[] = [];
  const commitPending = () => {
    const batch = pending;
    pending = [];
    runExclusive((queries: SyncQueries) =>
      batch.map(({ decision: { read, readValues, decide, write, now: clock } }) => {
        const now = clock?.() ?? Date.now();
        const decided = decide(queries.all(read.sql, readValues(now)), now);
        if (decided.write) queries.run(write.sql, decided.write);
        return { outcome: decided.outcome, now };
      }),
    ).then(
      (decided) => batch.forEach((waiting, i) => waiting.resolve(decided[i] as { outcome: unknown; now: number })),
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
  };
  return {
    decide: <O, R>(decision: KeyedDecision<O, R>) =>
      new Promise<{ outcome: O; now: number }>((resolve, reject) => {
        pending.push({ decision: decision as KeyedDecision<unknown, unknown>, resolve: resolve as Waiting['resolve'], reject });
        if (pending.length === 1) setImmediate(commitPending);
      }),
  };
}
