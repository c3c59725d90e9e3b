/**
 * Opens the database `DATABASE_URL` names: the connection (a SQLite file, or a PostgreSQL pool), its
 * dialect (src/storage/dialect.ts) and the Kysely instance over both.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely } from 'kysely';
import type pg from 'pg';
import { type CommitListener, type CommitListenerOptions, listenForCommits } from './commit-listener.ts';
import type { Database } from './database.ts';
import { maskUrl, parseDatabaseUrl } from './database-url.ts';
import { type Dialect, PostgresDialect, SqliteDialect, withStatementCache } from './dialect.ts';
import { createPostgresPool, type DatabaseTimeouts, DEFAULT_DATABASE_TIMEOUTS, DEFAULT_POOL_SIZE } from './postgres-pool.ts';
import { type BackgroundCheckpointOptions, type BackgroundCheckpoints, backgroundCheckpoints } from './sqlite-checkpoints.ts';

export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

export interface StorageConnection {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The URL with any password masked, for logs. */
  description: string;
  /** SQLite in a file, opened with `backgroundCheckpoints`: its checkpoint thread. */
  checkpoints?: BackgroundCheckpoints;
  /**
   * Hears the commits of events by every instance on this database, for the event bell
   * (src/events/bell.ts); absent where the engine cannot tell (SQLite: the bell rings in process).
   */
  listenForCommits?: (options: CommitListenerOptions) => CommitListener;
  /** Connections of the pool, for the metrics; absent where there is no pool (SQLite: one connection). */
  poolUse?: () => PoolUse;
  close(): Promise<void>;
}

export interface OpenOptions extends Partial<DatabaseTimeouts> {
  poolSize?: number;
  /** PostgreSQL: told about a connection that died while idle (the pool drops it and goes on). */
  onIdleError?: (error: Error) => void;
  /** SQLite in a file: checkpoint in a thread of its own once the log grows (the server; src/storage/sqlite-checkpoints.ts). */
  backgroundCheckpoints?: BackgroundCheckpointOptions;
}

export function openStorage(url: string, options: OpenOptions = {}): StorageConnection {
  const parsed = parseDatabaseUrl(url);
  if (parsed.engine === 'sqlite') {
    if (parsed.location !== ':memory:') mkdirSync(dirname(resolve(parsed.location)), { recursive: true });
    const sqlite = new SqliteDatabase(parsed.location);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // Checkpoint here every 10,000 pages of WAL instead of SQLite's 1,000: a page changed again and
    // again between two checkpoints (a busy card's row, the tail of the event record's indexes) is
    // copied back once (docs/benchmarks.md). With
    // `backgroundCheckpoints` (the server) a thread copies the log first; this bounds it if that
    // falls behind.
    sqlite.pragma('wal_autocheckpoint = 10000');
    // A savepoint's undo copies (the statement journal) spill to a temporary file past 64 KiB unless
    // temporary storage is in memory: a group commit of toggles with their events did, opening,
    // writing and closing a file at every commit.
    sqlite.pragma('temp_store = MEMORY');
    const dialect = new SqliteDialect(sqlite, withStatementCache(sqlite));
    const db = new Kysely<Database>({ dialect });
    const checkpoints =
      options.backgroundCheckpoints && parsed.location !== ':memory:' ? backgroundCheckpoints(sqlite.name, options.backgroundCheckpoints) : undefined;
    const close = async () => {
      await checkpoints?.stop();
      await db.destroy();
    };
    return { db, dialect, description: `sqlite:${parsed.location}`, ...(checkpoints ? { checkpoints } : {}), close };
  }
  const pool = createPostgresPool({
    ...DEFAULT_DATABASE_TIMEOUTS,
    ...options,
    connectionString: parsed.location,
    schema: parsed.schema,
    poolSize: options.poolSize ?? DEFAULT_POOL_SIZE,
  });
  const dialect = new PostgresDialect(pool, parsed.schema);
  const db = new Kysely<Database>({ dialect });
  return {
    db,
    dialect,
    description: maskUrl(url),
    // a connection of its own, configured as the pool's are (src/storage/commit-listener.ts)
    listenForCommits: (listening) => {
      const { Client: _client, max: _max, ...config } = pool.options as pg.PoolConfig;
      return listenForCommits(config, listening);
    },
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}
