/**
 * Kysely's driver for PostgreSQL over a pg pool, in fewer round trips. pg's pipeline mode (the
 * pool's `pipeline` option) writes a query without waiting for the answer of the one before; each
 * query keeps its own Sync, so each succeeds or fails on its own as it would alone. This driver
 * uses it for:
 * - a transaction's BEGIN, sent with the transaction's first statement (one that runs nothing sends
 *   nothing);
 * - the statements marked as sent with the commit or with the next statement (./sent-with-commit.ts:
 *   writes whose answer nobody reads, such as the events' INSERT and a card's change), held and
 *   written with the COMMIT or with the transaction's next statement;
 * - named statements for the texts the dialect names (`statementNames`): parsed and planned once per
 *   connection, then only bound and run.
 * In a transaction a failed statement aborts it, so what follows fails too (a COMMIT answers
 * ROLLBACK); the caller sees the first failure. Kysely still awaits each statement before the next,
 * so nothing else is ever pipelined. Below Kysely's executor: the domain and the repositories see
 * plain Kysely transactions.
 */
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';
import type pg from 'pg';
import { pgModule } from './pg-module.ts';

import { sendingOf } from './sent-with-commit.ts';

type Outgoing = { sql: string; parameters: readonly unknown[] };

class PooledConnection implements DatabaseConnection {
  readonly #client: pg.PoolClient;
  readonly #names: ReadonlyMap<string, string>;
  /** The BEGIN of the open transaction while it has not been sent yet. */
  #begin: string | undefined;
  #inTransaction = false;
  /** Statements held until the COMMIT. */
  #held: Outgoing[] = [];
  /** Statements held until the transaction's next statement. */
  #beforeNext: Outgoing[] = [];
  /** Set once the connection may be left mid-answer (a query timed out, the socket failed): it is closed, not reused. */
  broken = false;

  constructor(client: pg.PoolClient, names: ReadonlyMap<string, string>) {
    this.#client = client;
    this.#names = names;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const sending = sendingOf(query);
    if (this.#inTransaction && sending.when !== 'now') {
      (sending.when === 'with commit' ? this.#held : this.#beforeNext).push(sending.query);
      return { rows: [] };
    }
    return this.#sendTogether([...this.#takeWaiting(), sending.query]);
  }

  /** The BEGIN not sent yet and the statements waiting for the next one, in order. */
  #takeWaiting(): Outgoing[] {
    const begin = this.#begin;
    const waiting = this.#beforeNext;
    this.#begin = undefined;
    this.#beforeNext = [];
    return [...(begin === undefined ? [] : [{ sql: begin, parameters: [] }]), ...waiting];
  }

  // biome-ignore lint/correctness/useYield: pipeline mode cannot stream (a cursor's portal would take other queries' rows)
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the PostgreSQL driver does not stream results');
  }

  begin(settings: TransactionSettings): void {
    this.#inTransaction = true;
    this.#begin = settings.isolationLevel ? `start transaction isolation level ${settings.isolationLevel}` : 'begin';
  }

  /** Ends the transaction: the held statements and the COMMIT in one write, or the ROLLBACK. */
  async end(command: 'commit' | 'rollback'): Promise<void> {
    const [begin, waiting, held] = [this.#begin, this.#beforeNext, this.#held];
    this.#inTransaction = false;
    this.#begin = undefined;
    this.#beforeNext = [];
    this.#held = [];
    const writes = command === 'commit' ? [...waiting, ...held] : [];
    // never begun on the server (nothing was sent): nothing to commit or undo there
    if (begin !== undefined && writes.length === 0) return;
    const opening = begin === undefined ? [] : [{ sql: begin, parameters: [] }];
    await this.#sendTogether([...opening, ...writes, { sql: command, parameters: [] }]);
  }

  /** Writes the queries in one go; answers the last one's result once all have answered, or throws the first failure. */
  async #sendTogether<R>(queries: Outgoing[]): Promise<QueryResult<R>> {
    const outcomes = await Promise.allSettled(queries.map((query) => this.#send(query)));
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) {
      // an error the server sent leaves the connection in step; any other (a timeout, a socket that failed) may not
      if (!(failed.reason instanceof pgModule().DatabaseError)) this.broken = true;
      throw failed.reason;
    }
    const { command, rowCount, rows } = (outcomes.at(-1) as PromiseFulfilledResult<pg.QueryResult>).value;
    const counted = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return { rows: (rows ?? []) as R[], ...(counted ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}) };
  }

  #send({ sql, parameters }: Outgoing): Promise<pg.QueryResult> {
    const name = this.#names.get(sql);
    const values = [...parameters];
    return name ? this.#client.query({ name, text: sql, values }) : this.#client.query(sql, values);
  }

  release(): void {
    // a broken connection is closed and the pool opens a fresh one
    this.#client.release(this.broken || undefined);
  }
}

export class PipelinedPostgresDriver implements Driver {
  readonly #pool: pg.Pool;
  readonly #names: ReadonlyMap<string, string>;

  /** `statementNames`: SQL text -> statement name, for the texts sent as named statements. */
  constructor(pool: pg.Pool, statementNames: ReadonlyMap<string, string>) {
    this.#pool = pool;
    this.#names = statementNames;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.#pool.connect();
    return new PooledConnection(client, this.#names);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    (connection as PooledConnection).begin(settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PooledConnection).end('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PooledConnection).end('rollback');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PooledConnection).release();
  }

  async destroy(): Promise<void> {
    await this.#pool.end();
  }
}
