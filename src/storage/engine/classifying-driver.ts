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
  /** The writes of each (engine driver's) connection's open transaction, told when it commits. */
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
        this.wrote(connection, query);
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

  /**
   * Notes what `query`, run on the engine driver's `connection`, wrote: told when its transaction
   * commits, or at once outside one. Also for statements run without Kysely (`Dialect.runDirectly`).
   */
  wrote(connection: DatabaseConnection, query: CompiledQuery): void {
    const writes = this.#dialect.writesOf(query);
    if (!writes.length) return;
    const uncommitted = this.#uncommitted.get(connection);
    if (uncommitted) uncommitted.push(...writes);
    else this.#dialect.committed(writes);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const inner = this.#unwrap(connection);
    await this.#classified(() => this.#driver.beginTransaction(inner, settings));
    this.#uncommitted.set(inner, []);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const inner = this.#unwrap(connection);
    try {
      await this.#classified(() => this.#driver.commitTransaction(inner));
    } finally {
      // told even when the commit failed: its outcome may be unknown (a connection lost meanwhile)
      const writes = this.#uncommitted.get(inner);
      this.#uncommitted.delete(inner);
      if (writes) this.#dialect.committed(writes);
    }
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const inner = this.#unwrap(connection);
    this.#uncommitted.delete(inner);
    return this.#driver.rollbackTransaction(inner);
  }

  releaseConnection(connection: DatabaseConnection, options?: AbortableOperationOptions): Promise<void> {
    return this.#driver.releaseConnection(this.#unwrap(connection), options);
  }

  destroy(options?: AbortableOperationOptions): Promise<void> {
    return this.#driver.destroy(options);
  }
}
