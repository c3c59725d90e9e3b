/**
 * Kysely's driver, with every error of the database classified on its way out (src/storage/engine/errors.ts),
 * and the writes of each connection told to the dialect's write listeners once they commit (at once
 * outside a transaction). The dialect wraps the engine's own driver in it (`Dialect.createDriver`).
 */
import type { AbortableOperationOptions, CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';
import type { TableWrite } from '../table-writes.ts';

/** What the driver asks of the dialect that made it. */
export interface DriverHooks {
  classifyError(error: unknown): unknown;
  /** What `query` writes, where anyone listens. */
  writesOf(query: CompiledQuery): readonly TableWrite[];
  /** Tells the write listeners of writes that have committed. */
  committed(writes: readonly TableWrite[]): void;
}

export class ClassifyingDriver implements Driver {
  readonly #driver: Driver;
  readonly #dialect: DriverHooks;
  readonly #inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  /** The writes of each connection's open transaction, told when it commits. */
  readonly #uncommitted = new WeakMap<DatabaseConnection, TableWrite[]>();

  constructor(driver: Driver, dialect: DriverHooks) {
    this.#driver = driver;
    this.#dialect = dialect;
  }

  async #classified<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.#dialect.classifyError(error);
    }
  }

  /** The driver's own connection: its methods rely on what only that object holds. */
  #unwrap(connection: DatabaseConnection): DatabaseConnection {
    return this.#inner.get(connection) ?? connection;
  }

  init(options?: AbortableOperationOptions): Promise<void> {
    return this.#driver.init(options);
  }

  async acquireConnection(options?: AbortableOperationOptions): Promise<DatabaseConnection> {
    const connection = await this.#driver.acquireConnection(options);
    const dialect = this.#dialect;
    const wrapped: DatabaseConnection = {
      executeQuery: async <R>(query: CompiledQuery, options?: AbortableOperationOptions): Promise<QueryResult<R>> => {
        const result = await this.#classified(() => connection.executeQuery<R>(query, options));
        const writes = this.#dialect.writesOf(query);
        if (writes.length) {
          const uncommitted = this.#uncommitted.get(wrapped);
          if (uncommitted) uncommitted.push(...writes);
          else this.#dialect.committed(writes);
        }
        return result;
      },
      async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
        try {
          yield* connection.streamQuery<R>(query, chunkSize);
        } catch (error) {
          throw dialect.classifyError(error);
        }
      },
    };
    this.#inner.set(wrapped, connection);
    return wrapped;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.#classified(() => this.#driver.beginTransaction(this.#unwrap(connection), settings));
    this.#uncommitted.set(connection, []);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.#classified(() => this.#driver.commitTransaction(this.#unwrap(connection)));
    } finally {
      // told even when the commit failed: its outcome may be unknown (a connection lost meanwhile)
      const writes = this.#uncommitted.get(connection);
      this.#uncommitted.delete(connection);
      if (writes) this.#dialect.committed(writes);
    }
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.#uncommitted.delete(connection);
    return this.#driver.rollbackTransaction(this.#unwrap(connection));
  }

  releaseConnection(connection: DatabaseConnection, options?: AbortableOperationOptions): Promise<void> {
    return this.#driver.releaseConnection(this.#unwrap(connection), options);
  }

  destroy(options?: AbortableOperationOptions): Promise<void> {
    return this.#driver.destroy(options);
  }
}
