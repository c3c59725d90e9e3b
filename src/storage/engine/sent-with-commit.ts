/**
 * How a statement's text says that its answer is not waited for (`Dialect.sentWithCommit`,
 * `Dialect.sentWithNext`): a write whose answer nobody reads. Each driver holds it
 * (src/storage/engine/postgres-driver.ts, sqlite-driver.ts) and answers it at once, empty; it goes
 * out with the transaction's COMMIT (the event record's INSERT) or with the transaction's next
 * statement (a card's change), and its failure fails that statement. The drivers take the mark
 * off (`sendingOf`): the engine gets, prepares and names the statement's own text.
 */
const SENT_WITH_COMMIT = '/* sent with commit */ ';
const SENT_WITH_NEXT = '/* sent with next */ ';

/** `query` marked to go out with its transaction's COMMIT. */
export function sentWithCommit<Q extends { sql: string }>(query: Q): Q {
  return { ...query, sql: `${SENT_WITH_COMMIT}${query.sql}` };
}

/** `query` marked to go out with its transaction's next statement. */
export function sentWithNext<Q extends { sql: string }>(query: Q): Q {
  return { ...query, sql: `${SENT_WITH_NEXT}${query.sql}` };
}

/** When a statement of a transaction goes out, and the statement without its mark. */
export function sendingOf<Q extends { sql: string }>(query: Q): { when: 'now' | 'with commit' | 'with next'; query: Q } {
  if (query.sql.startsWith(SENT_WITH_COMMIT)) return { when: 'with commit', query: { ...query, sql: query.sql.slice(SENT_WITH_COMMIT.length) } };
  if (query.sql.startsWith(SENT_WITH_NEXT)) return { when: 'with next', query: { ...query, sql: query.sql.slice(SENT_WITH_NEXT.length) } };
  return { when: 'now', query };
}
