import type { Executor, GroupCommit } from './database.ts';
import { dialectOf } from './dialect.ts';

/**
 * The group commit of the database `db` runs on (`Dialect.groupCommit`), for services whose writes
 * can run synchronously; undefined where the database has none.
 */
export function groupCommitOf(db: Executor): GroupCommit | undefined {
  return dialectOf(db).groupCommit;
}
