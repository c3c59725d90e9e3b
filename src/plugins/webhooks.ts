import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { type DispatcherOptions, WebhookDispatcher } from '../domain/webhooks/dispatcher.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The webhook dispatcher of this instance (undefined when the app runs without one). */
    webhookDispatcher: WebhookDispatcher | undefined;
  }
}

export interface WebhooksPluginOptions {
  config: AppConfig;
  /** Overrides for tests (retry schedule, jitter); `false`: no dispatcher in this app. */
  dispatcher?: Partial<Omit<DispatcherOptions, 'log'>> | false | undefined;
}

/**
 * The webhook dispatcher of the app, told of every commit that recorded events; its rounds are one
 * of the app's jobs (src/plugins/jobs.ts), started and stopped with them.
 */
export default fp(
  async function webhooksPlugin(app: FastifyInstance, opts: WebhooksPluginOptions) {
    if (opts.dispatcher === false) {
      app.decorate('webhookDispatcher', undefined);
      return;
    }
    const dispatcher = new WebhookDispatcher(app.services, {
      ...opts.config.webhooks,
      log: app.log,
      ...opts.dispatcher,
    });
    app.decorate('webhookDispatcher', dispatcher);
    // the event bell rings for this instance's commits and for other instances' (src/events/bell.ts)
    const unsubscribe = app.eventBell.subscribe(() => dispatcher.wake());
    // every committed write of this instance to the webhooks: the dispatcher asks again whether any is enabled
    const stopListening = app.storage.dialect.onCommittedWrites((writes) => {
      if (writes.some((write) => write.table === 'webhooks')) dispatcher.enabledWebhooks.changed();
    });
    app.addHook('onClose', async () => {
      unsubscribe();
      stopListening();
    });
  },
  { name: 'webhooks', dependencies: ['services', 'events'] },
);
