/**
 * SQLite re-prepares a statement on every execution when its planner looked at a bound value: an
 * equality `col = ?` on an index column ahead of the ORDER BY's column is enough (the planner asks
 * whether the value makes the ORDER BY redundant). better-sqlite3 binds anew on each run, which
 * expires such a statement, so each call parses, plans and compiles the SQL again and rebuilds its
 * row function, a large share of a card read (measured in docs/benchmarks.md), and of every board,
 * list and My Tasks read.
 *
 * Written as `+?`, a parameter is an expression the planner does not look into: the same value, the
 * same affinity rules (a bare `?` has none either) and the same index use (`EXPLAIN QUERY PLAN`
 * unchanged), but the plan no longer depends on the value, so a statement is prepared once.
 * `test/integration/prepared-statements.test.ts` fails when a hot statement re-prepares.
 */
import { type Driver, SqliteDialect, SqliteQueryCompiler } from 'kysely';
import { QueuedSqliteAdapter } from './engine/sqlite-driver.ts';

class PlanStableQueryCompiler extends SqliteQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return '+?';
  }
}

/**
 * Kysely's SQLite dialect, with every parameter written as `+?` (see above), running on our own
 * driver (src/storage/engine/sqlite-driver.ts), which queues the users of the connection itself.
 */
export class PlanStableSqliteDialect extends SqliteDialect {
  readonly #driver: Driver;

  constructor(driver: Driver) {
    super({ database: {} as never });
    this.#driver = driver;
  }

  override createDriver(): Driver {
    return this.#driver;
  }

  override createAdapter() {
    return new QueuedSqliteAdapter();
  }

  override createQueryCompiler() {
    return new PlanStableQueryCompiler();
  }
}
