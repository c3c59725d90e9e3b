import { reindexBatch, removeOrphans, SEARCH_TABLES } from '../../storage/repositories/search.ts';
import type { ServiceContext } from '../context.ts';

export interface ReindexResult {
  /** Rows indexed again, by source table. */
  tables: Record<string, number>;
  /** Entries removed whose source row was gone. */
  orphans: number;
}

/**
 * Rebuilds the search index from the source tables, `batch` rows per transaction, so it may run
 * while the server serves (the triggers keep indexing the changes made meanwhile). Running it again
 * changes nothing.
 */
export async function reindexSearch(
  ctx: ServiceContext,
  options: { batch?: number; progress?: (table: string, done: number) => void } = {},
): Promise<ReindexResult> {
  const batch = options.batch ?? 1000;
  const tables: Record<string, number> = {};
  for (const table of SEARCH_TABLES) {
    let done = 0;
    for (let after: string | undefined = ''; after !== undefined; ) {
      const step: { last: string; rows: number } | undefined = await reindexBatch(ctx.db, table, after, batch);
      done += step?.rows ?? 0;
      after = step?.last;
      options.progress?.(table, done);
    }
    tables[table] = done;
  }
  return { tables, orphans: await removeOrphans(ctx.db) };
}
