/**
 * The reminder scheduler and notification delivery of this process: started when the app is ready,
 * stopped when it closes (src/domain/notifications/).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { ReminderScheduler } from '../domain/notifications/reminders.ts';
import { type Clock, systemClock } from '../domain/shared/clock.ts';
import type { NotificationSender } from '../domain/notifications/sender.ts';
import type { Notification } from '../schemas/notifications.ts';
import { dialectOf } from '../storage/dialect.ts';
import type { FeedPosition } from '../storage/event-feed.ts';

declare module 'fastify' {
  interface FastifyInstance {
    reminders: ReminderScheduler;
    /** Sends to the NotificationSender since start, by outcome (for the metrics and the tests). */
    notificationSends: NotificationSends;
  }
}

/** Failed sends by outcome (`taskboard_notification_send_failures_total` reads them). */
export interface NotificationSends {
  /** The sender threw or rejected. */
  failed: number;
  /** The sender did not answer within NOTIFICATION_SEND_TIMEOUT_MS: abandoned, its signal aborted. */
  timedOut: number;
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
 * One send, bounded: answers 'sent', 'failed' (it threw), 'timedOut' (no answer within `timeoutMs`)
 * or 'closed' (`closing` aborted first). Unless it was sent, the sender's signal is aborted; a send
 * that never settles is left behind, never waited for.
 */
async function sendWithin(
  sender: NotificationSender,
  notification: Notification,
  timeoutMs: number,
  closing: AbortSignal,
): Promise<{ outcome: 'sent' | 'timedOut' | 'closed' } | { outcome: 'failed'; error: unknown }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onClosing = () => {};
  const bound = new Promise<{ outcome: 'timedOut' | 'closed' }>((resolve) => {
    timer = setTimeout(() => resolve({ outcome: 'timedOut' }), timeoutMs);
    onClosing = () => resolve({ outcome: 'closed' });
    if (closing.aborted) onClosing();
    closing.addEventListener('abort', onClosing, { once: true });
  });
  const send = Promise.resolve()
    .then(() => sender.send(notification, { signal: controller.signal }))
    .then(
      () => ({ outcome: 'sent' as const }),
      (error: unknown) => ({ outcome: 'failed' as const, error }),
    );
  const result = await Promise.race([send, bound]);
  clearTimeout(timer);
  closing.removeEventListener('abort', onClosing);
  if (result.outcome !== 'sent') controller.abort(new Error(`notification send ${result.outcome === 'failed' ? 'failed' : result.outcome === 'closed' ? 'abandoned: the server is closing' : `timed out after ${timeoutMs} ms`}`));
  return result;
}

/**
 * Hands each committed notification to the sender, in the event record's order, from what commits
 * after its start (at most once per process: a delivery log of its own would be the sender's to keep).
 * Each send is bounded (`sendTimeoutMs`), so a sender that hangs delays delivery by that much per
 * notification and never holds the pass, nor the close (which abandons a send under way).
 */
function startDelivery(app: FastifyInstance, sender: NotificationSender, sendTimeoutMs: number, sends: NotificationSends): () => Promise<void> {
  const db = app.services.db;
  const feed = dialectOf(db).eventFeed;
  const closing = new AbortController();
  let position: FeedPosition | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const pass = async () => {
    position ??= await feed.now(db);
    for (;;) {
      const events = await feed.committedAfter(db, position, DELIVERY_BATCH, (q) => q.where('type', '=', 'notification.created'));
      for (const event of events) {
        if (closing.signal.aborted) return;
        position = event.position;
        const { notification } = JSON.parse(event.data) as { notification: Notification };
        const result = await sendWithin(sender, notification, sendTimeoutMs, closing.signal);
        if (result.outcome === 'timedOut') {
          sends.timedOut++;
          app.log.error({ notification: notification._id, timeoutMs: sendTimeoutMs }, 'notification sender did not answer in time; abandoned');
        } else if (result.outcome === 'failed') {
          sends.failed++;
          app.log.error({ err: result.error, notification: notification._id }, 'notification sender failed');
        }
      }
      if (events.length < DELIVERY_BATCH) return;
    }
  };
  const loop = () => {
    running = pass()
      .catch((err: unknown) => app.log.error({ err }, 'notification delivery pass failed'))
      .finally(() => {
        running = undefined;
        if (!closing.signal.aborted) timer = setTimeout(loop, DELIVERY_POLL_MS).unref();
      });
  };
  loop();
  return async () => {
    closing.abort();
    clearTimeout(timer);
    await running;
  };
}

export default fp(
  async function notificationsPlugin(app: FastifyInstance, opts: NotificationsOptions) {
    if (opts.sender && typeof opts.sender.send !== 'function') throw new TypeError('notificationSender must have a send(notification, { signal }) method');
    const scheduler = new ReminderScheduler(app.services, opts.clock ?? systemClock, opts.config.reminders.intervalMs, app.log);
    app.decorate('reminders', scheduler);
    const sends: NotificationSends = { failed: 0, timedOut: 0 };
    app.decorate('notificationSends', sends);
    let stopDelivery: (() => Promise<void>) | undefined;
    app.addHook('onReady', async () => {
      if (opts.config.reminders.intervalMs > 0) scheduler.start();
      if (opts.sender) stopDelivery = startDelivery(app, opts.sender, opts.config.notifications.sendTimeoutMs, sends);
    });
    app.addHook('onClose', async () => {
      await scheduler.stop();
      await stopDelivery?.();
    });
  },
  { name: 'notifications', dependencies: ['services'] },
);
