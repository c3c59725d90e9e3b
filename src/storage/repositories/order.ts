import { type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from '../database.ts';

/** Oldest first, and by id among those made in the same second: the one order of "in creation order". */
export function inCreationOrder<TB extends keyof Database, O>(query: SelectQueryBuilder<Database, TB, O>): SelectQueryBuilder<Database, TB, O> {
  return query.orderBy(sql.ref('created_at')).orderBy(sql.ref('id'));
}
