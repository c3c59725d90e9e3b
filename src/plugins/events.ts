import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { createEventBell, type EventBell } from '../events/bell.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Rings when events commit, here or on another instance (src/events/bell.ts). */
    eventBell: EventBell;
    /** Ends every open live stream: run before the server closes, so a close is not held by them. */
    liveStreams: Set<{ end(reason: string): void; left?(): Promise<void> }>;
  }
}

/** The event bell, rung by every commit that recorded events and heard by the feed's readers. */
export default fp(
  async function eventsPlugin(app: FastifyInstance, opts: { config: AppConfig }) {
    const bell = createEventBell(opts.config, app.storage, app.log);
    app.decorate('eventBell', bell);
    app.services.eventsCommitted = (committed) => bell.ring(committed);
    const streams = new Set<{ end(reason: string): void; left?(): Promise<void> }>();
    app.decorate('liveStreams', streams);
    // Streams never finish on their own: ended first, they let the close go on at once (once their
    // viewers have left, so the others see them go now rather than at their expiry).
    app.addHook('preClose', async () => {
      const open = [...streams];
      for (const stream of open) stream.end('server closing');
      await Promise.all(open.map((stream) => stream.left?.()));
    });
    app.addHook('onClose', async () => bell.close());
    // Listening before the app answers (bounded by the transport's connect timeout; a failure retries
    // in the background): a start that fails later closes a connection that exists (src/app.ts).
    await bell.started();
  },
  { name: 'events', dependencies: ['services', 'storage'] },
);
