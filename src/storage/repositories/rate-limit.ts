/** The rate limiter's stored hits (src/ratelimit/sql-decisions.ts decides and writes them). */
import type { Executor } from '../database.ts';

/**
 * Deletes up to `batch` hits admitted at or before `upTo`; answers how many. Batches keep each
 * statement short, so requests are not held up behind a large sweep.
 */
export async function deleteHitsUpTo(db: Executor, upTo: number, batch: number): Promise<number> {
  const result = await db
    .deleteFrom('rate_limit_hits')
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('bucket', 'seq'),
        'in',
        selectFrom('rate_limit_hits').select(['bucket', 'seq']).where('admitted_at', '<=', upTo).limit(batch).$asTuple('bucket', 'seq'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** How many hits are stored (tests and diagnostics). */
export async function countHits(db: Executor, bucket?: string): Promise<number> {
  const row = await db
    .selectFrom('rate_limit_hits')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .$if(bucket !== undefined, (qb) => qb.where('bucket', '=', bucket as string))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The buckets that hold hits (tests and diagnostics). */
export async function listBuckets(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('rate_limit_hits').select('bucket').distinct().orderBy('bucket').execute();
  return rows.map((row) => row.bucket);
}
