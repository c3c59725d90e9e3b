/**
 * How a statement's text says that its answer is not waited for (`Dialect.sentWithCommit`,
 * `Dialect.sentWithNext`): a write whose answer nobody reads. Each driver holds it
 * (src/storage/engine/postgres-driver.ts, sqlite-driver.ts) and answers it at once, empty; it goes
 * out with the transaction's COMMIT (the event record's INSERT) or with the transaction's next
 * statement (a card's change), and its failure fails that statement.
 */
export const SENT_WITH_COMMIT = '/* sent with commit */ ';
export const SENT_WITH_NEXT = '/* sent with next */ ';

/** `query` marked to go out with its transaction's COMMIT. */
export function sentWithCommit<Q extends { sql: string }>(query: Q): Q {
  return { ...query, sql: `${SENT_WITH_COMMIT}${query.sql}` };
}

/** `query` marked to go out with its transaction's next statement. */
export function sentWithNext<Q extends { sql: string }>(query: Q): Q {
  return { ...query, sql: `${SENT_WITH_NEXT}${query.sql}` };
}
