import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { pruneExpiredEvents } from '../domain/events/events.ts';

/**
 * Event retention on a schedule: every `events.pruneIntervalMs` the server prunes the events older
 * than EVENT_RETENTION_DAYS, and the webhook deliveries that ended before then (the purge command
 * does the same on demand). The timer does not keep the
 * process alive (unref), a run never overlaps the previous one, and closing the app stops the timer
 * and waits for a run in progress. `now` is the clock (tests move it forward).
 */
export default fp(
  async function eventRetention(app: FastifyInstance, opts: { config: AppConfig; now?: (() => Date) | undefined }) {
    const { retentionDays, pruneIntervalMs } = opts.config.events;
    if (pruneIntervalMs <= 0) return;
    const now = opts.now ?? (() => new Date());
    let running: Promise<void> | undefined;
    const prune = () => {
      running ??= pruneExpiredEvents(app.services, retentionDays, now())
        .then(({ events, deliveries, before }) => {
          if (events > 0 || deliveries > 0) app.log.info({ events, deliveries, before }, 'pruned expired events and ended webhook deliveries');
        })
        .catch((error: unknown) => app.log.warn({ err: error }, 'event pruning failed; it runs again at the next interval'))
        .finally(() => (running = undefined));
    };
    const timer = setInterval(prune, pruneIntervalMs).unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await running;
    });
  },
  { name: 'event-retention', dependencies: ['services'] },
);
