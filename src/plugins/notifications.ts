/**
 * The reminder scheduler and notification delivery of this process: started when the app is ready,
 * stopped when it closes (src/domain/notifications/).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { type Clock, ReminderScheduler, systemClock } from '../domain/notifications/reminders.ts';
import type { NotificationSender } from '../domain/notifications/sender.ts';
import type { Notification } from '../schemas/notifications.ts';
import { dialectOf } from '../storage/dialect.ts';
import type { FeedPosition } from '../storage/event-feed.ts';

declare module 'fastify' {
  interface FastifyInstance {
    reminders: ReminderScheduler;
  }
}

export interface NotificationsOptions {
  config: AppConfig;
  clock?: Clock | undefined;
  sender?: NotificationSender | undefined;
}

/** How often delivery looks for new notifications when a sender is configured. */
const DELIVERY_POLL_MS = 1000;
const DELIVERY_BATCH = 100;

/**
 * Hands each committed notification to the sender, in the event record's order, from the feed's
 * end at start (at most once per process: a delivery log of its own would be the sender's to keep).
 */
function startDelivery(app: FastifyInstance, sender: NotificationSender): () => Promise<void> {
  const db = app.services.db;
  const feed = dialectOf(db).eventFeed;
  let position: FeedPosition | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = async () => {
    position ??= await feed.end(db);
    for (;;) {
      const events = await feed.committedAfter(db, position, DELIVERY_BATCH, (q) => q.where('type', '=', 'notification.created'));
      for (const event of events) {
        position = event.position;
        const { notification } = JSON.parse(event.data) as { notification: Notification };
        await sender.send(notification).catch((err: unknown) => app.log.error({ err, notification: notification._id }, 'notification sender failed'));
      }
      if (events.length < DELIVERY_BATCH) return;
    }
  };
  const loop = () => {
    running = pass()
      .catch((err: unknown) => app.log.error({ err }, 'notification delivery pass failed'))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(loop, DELIVERY_POLL_MS).unref();
      });
  };
  loop();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

export default fp(
  async function notificationsPlugin(app: FastifyInstance, opts: NotificationsOptions) {
    const scheduler = new ReminderScheduler(app.services, opts.clock ?? systemClock, opts.config.reminders.intervalMs, app.log);
    app.decorate('reminders', scheduler);
    let stopDelivery: (() => Promise<void>) | undefined;
    app.addHook('onReady', async () => {
      if (opts.config.reminders.intervalMs > 0) scheduler.start();
      if (opts.sender) stopDelivery = startDelivery(app, opts.sender);
    });
    app.addHook('onClose', async () => {
      await scheduler.stop();
      await stopDelivery?.();
    });
  },
  { name: 'notifications', dependencies: ['services'] },
);
