/**
 * Notification delivery: hands each committed notification to the NotificationSender, in the event
 * record's order, from what commits after its start (at most once per process: a delivery log of its
 * own would be the sender's to keep). Each send is bounded (`sendTimeoutMs`), so a sender that hangs
 * delays delivery by that much per notification and never holds the pass, nor the stop (which
 * abandons a send under way).
 */
import type { Notification } from '../../schemas/notifications.ts';
import type { FeedPosition } from '../../storage/event-feed.ts';
import { allNotificationEventsAfter, feedNow } from '../../storage/repositories/events.ts';
import type { ServiceContext } from '../context.ts';
import { type JobLog, PeriodicJob } from '../shared/periodic.ts';
import type { NotificationSender } from './sender.ts';

/** Failed sends by outcome (`taskboard_notification_send_failures_total` reads them). */
export interface NotificationSends {
  /** The sender threw or rejected. */
  failed: number;
  /** The sender did not answer within NOTIFICATION_SEND_TIMEOUT_MS: abandoned, its signal aborted. */
  timedOut: number;
}

/** How often delivery looks for new notifications. */
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
  if (result.outcome !== 'sent')
    controller.abort(
      new Error(
        `notification send ${result.outcome === 'failed' ? 'failed' : result.outcome === 'closed' ? 'abandoned: the server is closing' : `timed out after ${timeoutMs} ms`}`,
      ),
    );
  return result;
}

/** The delivery job: a pass sends what committed since the last one; `sends` counts the failures. */
export function notificationDelivery(
  ctx: ServiceContext,
  sender: NotificationSender,
  options: { sendTimeoutMs: number; log: JobLog; sends: NotificationSends },
): PeriodicJob<void> {
  const { sendTimeoutMs, log, sends } = options;
  let position: FeedPosition | null = null;
  const pass = async (stopping: AbortSignal) => {
    position ??= await feedNow(ctx.db);
    for (;;) {
      const events = await allNotificationEventsAfter(ctx.db, position, DELIVERY_BATCH);
      for (const event of events) {
        if (stopping.aborted) return;
        position = event.position;
        const { notification } = JSON.parse(event.data) as { notification: Notification };
        const result = await sendWithin(sender, notification, sendTimeoutMs, stopping);
        if (result.outcome === 'timedOut') {
          sends.timedOut++;
          log.error({ notification: notification._id, timeoutMs: sendTimeoutMs }, 'notification sender did not answer in time; abandoned');
        } else if (result.outcome === 'failed') {
          sends.failed++;
          log.error({ err: result.error, notification: notification._id }, 'notification sender failed');
        }
      }
      if (events.length < DELIVERY_BATCH) return;
    }
  };
  return new PeriodicJob({ name: 'notification delivery', everyMs: DELIVERY_POLL_MS, pass }, log);
}
