import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { openStorage, type StorageConnection } from '../storage/dialect.ts';
import { migrateToLatest } from '../storage/migrator.ts';
import type { AppConfig } from '../config.ts';

declare module 'fastify' {
  interface FastifyInstance {
    storage: StorageConnection;
  }
}

/** Opens the configured database, applies migrations, and closes it with the app. */
export default fp(
  async function storagePlugin(app: FastifyInstance, opts: { config: AppConfig; storage?: StorageConnection }) {
    const storage = opts.storage ?? openStorage(opts.config.databaseUrl);
    await migrateToLatest(storage);
    app.decorate('storage', storage);
    // A storage handed in by the caller (tests) belongs to the caller.
    if (!opts.storage) app.addHook('onClose', async () => storage.close());
  },
  { name: 'storage' },
);
