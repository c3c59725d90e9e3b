/**
 * The per-key transaction lock and the clock every server instance shares. SQLite: one connection
 * runs one transaction at a time already, and the host's clock is the shared one. PostgreSQL: an
 * advisory lock and the database server's clock.
 */
import { sql } from 'kysely';
import type { Executor } from '../database.ts';

export class Locks {
  /**
   * Serializes the transactions that lock the same `key`, until each one ends, and answers the time
   * (epoch ms) by the clock every server instance shares, read once the lock is held.
   */
  async lockInTransaction(_trx: Executor, _key: string): Promise<{ lockedAt: number }> {
    return { lockedAt: Date.now() };
  }
}

/** Our class of PostgreSQL advisory locks (the two-key form), apart from anyone else's. */
const ADVISORY_LOCK_CLASS = 0x7462; // "tb"

export class PostgresLocks extends Locks {
  /**
   * A transaction-scoped advisory lock, so instances sharing the database queue per key (keys whose
   * hashes collide merely queue together), and the database server's clock, so instances with
   * skewed clocks still agree.
   */
  override async lockInTransaction(trx: Executor, key: string): Promise<{ lockedAt: number }> {
    // The clock is read in the outer query, so only after the inner one got the lock.
    const { rows } = await sql<{ locked_at: number }>`
      select (extract(epoch from clock_timestamp()) * 1000)::bigint as locked_at
      from (select pg_advisory_xact_lock(${sql.lit(ADVISORY_LOCK_CLASS)}, hashtext(${key}))) as held`.execute(trx);
    return { lockedAt: Number(rows[0]?.locked_at) };
  }
}
