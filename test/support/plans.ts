/**
 * What the plan tests share: the statements a piece of code runs, and each engine's plan of one
 * (SQLite's EXPLAIN QUERY PLAN steps, PostgreSQL's EXPLAIN in JSON).
 */
import { CompiledQuery, type KyselyPlugin } from 'kysely';
import type { Executor } from '../../src/storage/database.ts';
import { dialectOf } from '../../src/storage/dialect.ts';

/**
 * The statements `work` runs on `db`, compiled, in the order they answered: those it builds (a
 * plugin sees them, and keeps those that ran) and those compiled once (`executeCompiledOnce`: `db`
 * is seen as a transaction, so they go through `executeQuery` instead of straight to the driver).
 * For reads: writes would run in no transaction.
 */
export async function statementsOf(db: Executor, work: (db: Executor) => Promise<unknown>): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  const built = new Map<unknown, CompiledQuery>();
  const compiler = dialectOf(db).createQueryCompiler();
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      built.set(args.queryId, compiler.compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args) => {
      // a query built (and compiled once) but run through executeQuery is kept there instead
      const query = built.get(args.queryId);
      if (query && !seen.some((statement) => statement.queryId === args.queryId)) seen.push(query);
      return args.result;
    },
  };
  const recorder = new Proxy(db.withPlugin(plugin), {
    get(target, property) {
      if (property === 'isTransaction') return true;
      if (property === 'executeQuery') {
        return (query: CompiledQuery) => {
          seen.push(query);
          return target.executeQuery(query);
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  await work(recorder);
  return seen;
}

/** SQLite's plan of `query`: the details of its steps (EXPLAIN QUERY PLAN). */
export async function sqlitePlan(db: Executor, query: CompiledQuery): Promise<string[]> {
  const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
  return plan.rows.map((row) => row.detail);
}

/** A node of PostgreSQL's plan in JSON, with the fields the tests read. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  Plans?: PlanNode[];
}

/** PostgreSQL's plan of `query` (EXPLAIN in JSON, with `options` such as `analyze`): its root. */
export async function postgresPlan(db: Executor, query: CompiledQuery, options: readonly string[] = []): Promise<PlanNode> {
  const explain = `explain (${[...options, 'format json'].join(', ')}) ${query.sql}`;
  const plan = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(CompiledQuery.raw(explain, [...query.parameters]));
  return (plan.rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
}

/** Every node of a PostgreSQL plan, the root first. */
export function planNodes(root: PlanNode): PlanNode[] {
  return [root, ...(root.Plans ?? []).flatMap(planNodes)];
}
