/**
 * Counts what a piece of code asks of the database, never timing it: the statements SQLite runs,
 * the queries sent to PostgreSQL, and the round trips they took.
 */
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { ANNOUNCE_SQL } from '../../src/storage/commit-listener.ts';

/**
 * The SQL texts run while counting: SQLite statements run, or queries sent to PostgreSQL; and the
 * round trips to PostgreSQL: a query sent while its connection waits on none starts one, a query
 * written while an earlier one is still unanswered (pipelined) rides on it. The event bell's
 * announcements are not counted: sent on a connection of their own when a window of commits ends
 * (src/events/bell.ts), they belong to no piece of code, and may fall in any count.
 */
export function countStatements() {
  const seen: string[] = [];
  let roundTrips = 0;
  const unanswered = new WeakMap<pg.Client, number>();
  let counting = false;
  const restore: (() => void)[] = [];
  const statementPrototype = Object.getPrototypeOf(new SqliteDatabase(':memory:').prepare('select 1'));
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = statementPrototype[method] as (...args: unknown[]) => unknown;
    statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
      if (counting) seen.push(this.source);
      return original.apply(this, args);
    };
    restore.push(() => (statementPrototype[method] = original));
  }
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first] = args as [string | { text: string }];
    const text = typeof first === 'string' ? first : first?.text;
    if (!counting || text === ANNOUNCE_SQL) return (query as (...a: unknown[]) => unknown).apply(this, args);
    seen.push(text);
    const waiting = unanswered.get(this) ?? 0;
    if (waiting === 0) roundTrips++;
    unanswered.set(this, waiting + 1);
    const answered = () => unanswered.set(this, (unanswered.get(this) ?? 1) - 1);
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) result.then(answered, answered);
    return result;
  } as typeof query;
  restore.push(() => (pg.Client.prototype.query = query));
  return {
    async during<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[]; roundTrips: number }> {
      seen.length = 0;
      roundTrips = 0;
      counting = true;
      try {
        return { result: await work(), statements: [...seen], roundTrips };
      } finally {
        counting = false;
      }
    },
    stop: () => restore.forEach((undo) => undo()),
  };
}
