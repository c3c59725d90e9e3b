import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { migrateToLatest } from '../storage/migrator.ts';
import { openStorage, type StorageConnection } from '../storage/open.ts';
import { reachingDatabase } from '../storage/unavailable.ts';

declare module 'fastify' {
  interface FastifyInstance {
    storage: StorageConnection;
    /** Database faults met since start, for the metrics (`taskboard_db_faults_total`). */
    databaseFaults: { idleConnectionLost: number; requestUnavailable: number };
  }
}

/**
 * Opens the configured database, applies migrations, and closes it with the app. A database that
 * cannot be reached stops the start within the connect timeout, with an error that names it.
 */
export default fp(
  async function storagePlugin(app: FastifyInstance, opts: { config: AppConfig; storage?: StorageConnection }) {
    const faults = { idleConnectionLost: 0, requestUnavailable: 0 };
    app.decorate('databaseFaults', faults);
    const storage =
      opts.storage ??
      openStorage(opts.config.databaseUrl, {
        ...opts.config.database,
        onIdleError: (error) => {
          faults.idleConnectionLost++;
          app.log.warn({ err: error }, 'database: an idle connection was lost; the pool opens a new one when needed');
        },
        // SQLite: the log's copies back into the file run off the thread that answers requests
        backgroundCheckpoints: {
          onStarted: () => app.log.info('database: checkpoints of the write-ahead log now run in a thread of their own'),
          onFailed: (error) => app.log.warn({ err: error }, 'database: the checkpoint thread failed; checkpoints run on the main thread'),
        },
      });
    try {
      await reachingDatabase(storage.description, () => migrateToLatest(storage));
    } catch (error) {
      if (!opts.storage) await storage.close().catch(() => {});
      throw error;
    }
    app.decorate('storage', storage);
    // A storage handed in by the caller (tests) belongs to the caller.
    if (!opts.storage) app.addHook('onClose', async () => storage.close());
  },
  { name: 'storage' },
);
