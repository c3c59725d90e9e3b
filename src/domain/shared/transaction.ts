import type { Transaction } from '../../storage/database.ts';
import { Deadlock } from '../../storage/errors.ts';
import type { ServiceContext } from '../context.ts';
import { type CommittedEvents, openEventLog, takeEventLog, writeEvents } from '../events/record.ts';
import { ConflictError } from './errors.ts';

/**
 * Thrown by a transaction's work when rows it read before taking its locks changed before it got
 * them (another request moved the card meanwhile): `inTransaction` runs the work again, from the
 * start. Escaping a last attempt (or any other caller), it answers 409.
 */
export class ChangedMeanwhile extends ConflictError {
  constructor(what: string) {
    super(`${what} changed while this request waited for it; try again`);
  }
}

/** How often `inTransaction` runs a piece of work at the most. */
const ATTEMPTS = 3;

/**
 * Runs `work` in one transaction. The lock rule (src/domain/access/access.ts) keeps transactions from
 * waiting on each other in a circle; where a request learns what to lock only from what it reads, a
 * race can still make it wrong, so the work runs again (at most ATTEMPTS times in all) when it
 * throws `ChangedMeanwhile` or when the database broke a deadlock by aborting it. The transaction
 * rolled back first, so a second run starts from nothing; the work must not have effects outside
 * the database that a second run would repeat.
 *
 * With `ctx.transaction` set, the work joins that transaction (see ServiceContext.transaction).
 *
 * The events the work records (src/domain/events/record.ts) are written at its end, in the same
 * transaction; once it has committed, `ctx.eventsCommitted` is told.
 */
export async function inTransaction<T>(ctx: ServiceContext, work: (trx: Transaction) => Promise<T>): Promise<T> {
  // joined: the outer transaction writes the events, commits, and runs everything again on a retry
  if (ctx.transaction) return work(ctx.transaction);
  for (let attempt = 1; ; attempt++) {
    try {
      let recorded: CommittedEvents | undefined;
      const result = await ctx.db.transaction().execute(async (trx) => {
        openEventLog(trx);
        const done = await work(trx);
        const log = takeEventLog(trx);
        recorded = ctx.recordEvents === false ? undefined : await writeEvents(trx, log);
        return done;
      });
      if (recorded) ctx.eventsCommitted?.(recorded);
      return result;
    } catch (error) {
      const again = error instanceof ChangedMeanwhile || error instanceof Deadlock;
      if (!again) throw error;
      if (attempt >= ATTEMPTS) {
        throw error instanceof ChangedMeanwhile ? error : new ConflictError('Concurrent requests changed the same records; try again');
      }
    }
  }
}
