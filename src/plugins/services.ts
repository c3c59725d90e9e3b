import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { AuthCache } from '../domain/account/auth-cache.ts';
import type { ServiceContext } from '../domain/context.ts';
import { type Clock, systemClock } from '../domain/shared/clock.ts';
import { openAttachmentStore } from '../storage/open-attachment-store.ts';
import { changeAuthentication } from '../storage/repositories/api-keys.ts';

declare module 'fastify' {
  interface FastifyInstance {
    services: ServiceContext;
    config: AppConfig;
  }
}

/** The context the domain services run in, built once from the storage and the configuration. */
export default fp(
  async function servicesPlugin(app: FastifyInstance, opts: { config: AppConfig; clock?: Clock | undefined; recordEvents?: false | undefined }) {
    const clock = opts.clock ?? systemClock;
    const authCache = new AuthCache({ clock });
    // Every committed write of this instance to what authentication reads empties the cache.
    const stopListening = app.storage.dialect.onCommittedWrites((writes) => {
      if (changeAuthentication(writes)) authCache.invalidate();
    });
    app.addHook('onClose', async () => stopListening());
    const files = await openAttachmentStore(opts.config, app.storage.db);
    // runs once the server has closed (its connections ended or cut): no upload is still wanted
    app.addHook('onClose', async () => files.close());
    app.decorate('config', opts.config);
    app.decorate('services', {
      db: app.storage.db,
      clock,
      files,
      authCache,
      recordEvents: opts.recordEvents,
    });
  },
  { name: 'services', dependencies: ['storage'] },
);
