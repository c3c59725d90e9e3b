/**
 * Database errors the callers act on, whatever the engine: the dialect turns the engine's own error
 * (kept as `cause`) into one of these at the connection, so every query throws them.
 */
export class StorageError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A row would repeat a unique key (a primary key too). */
export class UniqueViolation extends StorageError {}

/** A row names a row that does not exist (or no longer does). */
export class ForeignKeyViolation extends StorageError {}

/**
 * The database aborted the transaction to break a deadlock: it waited, in a circle, for locks
 * another transaction held. Running it again from the start may succeed.
 */
export class Deadlock extends StorageError {}
