import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../database.ts';

/** Oldest first, and by id among those made in the same second: the one order of "in creation order". */
export function inCreationOrder<TB extends keyof Database, O>(query: SelectQueryBuilder<Database, TB, O>): SelectQueryBuilder<Database, TB, O> {
  return query.orderBy(sql.ref('created_at')).orderBy(sql.ref('id'));
}

/**
 * Where a keyset page starts: the rows strictly past the last one shown, in the order (`key`, `id`)
 * (`>` ascending, `<` descending). Written out rather than as a row comparison, the form both
 * engines' plans walk an index on (`key`, `id`) with.
 */
export function pastKey(
  columns: readonly [key: string, id: string],
  last: readonly [key: unknown, id: unknown],
  direction: '>' | '<' = '>',
): RawBuilder<SqlBool> {
  const [key, id] = columns.map((column) => sql.ref(column));
  const comparison = sql.raw(direction);
  return sql<SqlBool>`(${key} ${comparison} ${last[0]} or (${key} = ${last[0]} and ${id} ${comparison} ${last[1]}))`;
}
