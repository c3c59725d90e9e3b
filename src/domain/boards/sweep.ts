/**
 * The sweep of deleted lists and boards. Deleting one marks it and its cards in one short transaction
 * (src/storage/repositories/lifecycle.ts), after which every read leaves them out; the sweep then
 * removes the marked rows in batches of `batchCards` cards, each batch its own transaction, and the
 * emptied lists and boards last. A crash between batches leaves the rest marked, still hidden, for
 * the next sweep: a board is never half visible. Boards an import is still writing are marked too,
 * and left alone while its lease holds (src/domain/imports). It runs in the server process on start and on a
 * schedule (one of the app's jobs, src/plugins/jobs.ts), and from the purge command.
 */
import * as lifecycle from '../../storage/repositories/lifecycle.ts';
import type { ServiceContext } from '../context.ts';
import { nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';

export const DEFAULT_SWEEP_BATCH = 200;

export interface SweepResult {
  cards: number;
  lists: number;
  boards: number;
  /** Transactions the sweep committed. */
  batches: number;
}

export interface SweepOptions {
  batchCards?: number;
  /** Asked before each batch: false stops the sweep there (the server is closing). */
  goOn?: () => boolean;
}

/** Removes everything marked deleted, batch by batch, until nothing is left (or `goOn` says stop). */
export async function sweepDeleted(ctx: ServiceContext, options: SweepOptions = {}): Promise<SweepResult> {
  const batch = options.batchCards ?? DEFAULT_SWEEP_BATCH;
  const goOn = options.goOn ?? (() => true);
  const result: SweepResult = { cards: 0, lists: 0, boards: 0, batches: 0 };
  if (!(await lifecycle.anythingMarked(ctx.db))) return result;
  await inTransaction(ctx, (trx) => lifecycle.markStragglers(trx, nowIso()));
  while (goOn()) {
    const removed = await inTransaction(ctx, async (trx) => {
      const at = nowIso();
      return lifecycle.removeCards(trx, await lifecycle.markedCards(trx, batch, at), at);
    });
    result.batches += 1;
    result.cards += removed;
    if (removed === 0) break;
  }
  while (goOn()) {
    const emptied = await inTransaction(ctx, (trx) => lifecycle.removeEmptiedMarks(trx, batch, nowIso()));
    result.batches += 1;
    result.lists += emptied.lists;
    result.boards += emptied.boards;
    if (emptied.lists + emptied.boards === 0) break;
  }
  return result;
}
