/**
 * PostgreSQL interleavings without sleeping: a transaction of the test's own takes row locks and
 * holds them while the request under test runs into them; the test sees the request wait (in
 * pg_stat_activity), then lets the holder finish.
 */
import { type Kysely, sql } from 'kysely';
import type { Database, Transaction } from '../../src/storage/database.ts';

export interface HeldLocks {
  /** The holder's backend. */
  pid: number;
  /** Runs `beforeCommit` inside the holder, commits it and waits for that. */
  release(): Promise<void>;
}

/** Opens a transaction that runs `take` (the locks) and holds them until `release()`. */
export async function holdLocks(
  db: Kysely<Database>,
  take: (trx: Transaction) => Promise<unknown>,
  beforeCommit: (trx: Transaction) => Promise<unknown> = async () => {},
): Promise<HeldLocks> {
  let holding!: (pid: number) => void;
  let failed!: (error: unknown) => void;
  let release!: () => void;
  const held = new Promise<number>((resolve, reject) => {
    holding = resolve;
    failed = reject;
  });
  const released = new Promise<void>((resolve) => (release = resolve));
  const holder = db.transaction().execute(async (trx) => {
    await take(trx);
    holding((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid);
    await released;
    await beforeCommit(trx);
  });
  holder.catch(failed);
  const pid = await held;
  return {
    pid,
    async release() {
      release();
      await holder;
    },
  };
}

/** The backends waiting for a lock `pid` holds. */
export async function waitingFor(db: Kysely<Database>, pid: number): Promise<number[]> {
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`.execute(db);
  return rows.map((row) => row.pid);
}

/**
 * Runs `request` while `held` holds its locks: watches until the request either waits for the holder
 * (seen in pg_stat_activity) or settles, then releases the holder. Answers whether it waited, and
 * its answer once it settled.
 */
export async function runAgainst<T>(db: Kysely<Database>, held: HeldLocks, request: () => Promise<T>): Promise<{ waited: boolean; answer: T }> {
  let settled = false;
  const answer = request().finally(() => (settled = true));
  let waited = false;
  try {
    while (!settled && !waited) waited = (await waitingFor(db, held.pid)).length > 0;
  } finally {
    await held.release();
  }
  return { waited, answer: await answer };
}
