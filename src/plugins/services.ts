import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceContext } from '../domain/context.ts';
import { AttachmentFiles } from '../storage/files.ts';
import type { AppConfig } from '../config.ts';

declare module 'fastify' {
  interface FastifyInstance {
    services: ServiceContext;
    config: AppConfig;
  }
}

/** The context the domain services run in, built once from the storage and the configuration. */
export default fp(
  async function servicesPlugin(app: FastifyInstance, opts: { config: AppConfig }) {
    app.decorate('config', opts.config);
    app.decorate('services', {
      db: app.storage.db,
      files: new AttachmentFiles(opts.config.uploadDir),
    });
  },
  { name: 'services', dependencies: ['storage'] },
);
