/**
 * Which tables a statement writes, read from the query Kysely built (not from its SQL text), so that
 * a part of the app whose copy of some rows must not outlive their change (the authentication cache)
 * hears of every committed write to those tables, whichever code made it (see
 * `Dialect.onCommittedWrites`). Raw SQL carries no tables and counts as no write: the tables that
 * such a listener watches are written through the query builder only.
 */
import type { OperationNode, RootOperationNode } from 'kysely';

/** A table a statement writes: `columns` lists what an UPDATE sets (null: rows inserted or deleted). */
export interface TableWrite {
  table: string;
  columns: readonly string[] | null;
}

const NONE: readonly TableWrite[] = [];
/** Statements compiled once are run again and again with the same tree: read each tree once. */
const known = new WeakMap<RootOperationNode, readonly TableWrite[]>();

/** The writes of the statement whose tree is `query` (those of its WITH parts too). */
export function tableWrites(query: RootOperationNode): readonly TableWrite[] {
  let writes = known.get(query);
  if (!writes) {
    const found: TableWrite[] = [];
    collect(query, found);
    writes = found.length ? found : NONE;
    known.set(query, writes);
  }
  return writes;
}

/**
 * A statement writes at its root, or in the parts of its WITH (PostgreSQL allows data-modifying
 * statements only there, at the top level; SQLite not at all): nothing deeper needs reading.
 */
function collect(node: unknown, found: TableWrite[]): void {
  const operation = node as (OperationNode & Record<string, unknown>) | undefined;
  switch (operation?.kind) {
    case 'InsertQueryNode':
      add(found, operation['into'], null);
      break;
    case 'UpdateQueryNode':
      add(
        found,
        operation['table'],
        ((operation['updates'] as readonly { column: unknown }[] | undefined) ?? []).map((update) => nameOf(update.column)),
      );
      break;
    case 'DeleteQueryNode':
      for (const from of (operation['from'] as { froms?: unknown[] } | undefined)?.froms ?? []) add(found, from, null);
      break;
  }
  const parts = (operation?.['with'] as { expressions?: readonly { expression: unknown }[] } | undefined)?.expressions ?? [];
  for (const part of parts) collect(part.expression, found);
}

function add(found: TableWrite[], table: unknown, columns: string[] | null) {
  const name = tableName(table);
  if (name) found.push({ table: name, columns });
}

/** The table a TableNode names, through an alias. */
function tableName(node: unknown): string | undefined {
  const operation = node as { kind?: string; node?: unknown; table?: { identifier?: { name?: string } } } | undefined;
  if (operation?.kind === 'AliasNode') return tableName(operation.node);
  if (operation?.kind === 'TableNode') return operation.table?.identifier?.name;
  return undefined;
}

/** A column's name (ColumnNode, or a reference to one). */
function nameOf(node: unknown): string {
  const operation = node as { kind?: string; column?: unknown; name?: string } | undefined;
  if (operation?.kind === 'ColumnNode') return nameOf(operation.column);
  if (operation?.kind === 'ReferenceNode') return nameOf(operation.column);
  if (operation?.kind === 'IdentifierNode') return operation.name ?? '';
  return '';
}
