/**
 * The webhook dispatcher: runs inside every server instance, reads the event record (the outbox)
 * and delivers it, at least once.
 *
 * Fan-out: under the lock of the one feed cursor (skipped, not waited for, by another instance
 * holding it), the events committed after the cursor become one delivery row per receiving webhook,
 * numbered in feed order, and the cursor moves past them, in one transaction: an event is fanned
 * out exactly once, or not yet.
 *
 * Sending: each webhook's deliveries go one at a time, in their order: only the first pending one
 * (the head) may be claimed, and only once it is due; the claim takes the deliveries queued behind
 * it too (a run), sent in order until one fails. A claim is a lease (owner, until) taken by a
 * conditional update on rows the claim query locked, passing over rows another instance holds (the
 * storage's `skipLocked`), so two instances never send one delivery at once; a lease outlives the attempt's timeout, so a lease that expires
 * belongs to a dead instance, and its delivery is taken over. A 2xx marks it delivered; anything
 * else schedules the next attempt by the retry schedule, with jitter; after `giveUpAfterMs` of
 * failing it is marked failed and its webhook disabled, saying why. Outcomes are written only by
 * the lease's holder.
 *
 * It wakes when this instance commits events (`wake`, from `ctx.eventsCommitted`), when an attempt
 * ends, and every `pollMs` (changes made by other instances, retries that fell due).
 */
import { randomBytes } from 'node:crypto';
import type { Executor, NewRow } from '../../storage/database.ts';
import { feedEnd } from '../../storage/repositories/events.ts';
import * as store from '../../storage/repositories/webhooks.ts';
import type { ServiceContext } from '../context.ts';
import type { Clock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { PeriodicJob } from '../shared/periodic.ts';
import { inTransaction } from '../shared/transaction.ts';
import { deliveryBody, filterOf, receives } from './matching.ts';
import { WebhookSender } from './sender.ts';
import { previousSecretSigns, signedHeaders } from './signing.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delays before the 2nd, 3rd... attempt; the last one repeats until the delivery gives up. */
export const RETRY_SCHEDULE: readonly number[] = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, HOUR, 4 * HOUR];
/** How long a delivery (and so its endpoint) may fail before it is marked failed and the webhook disabled. */
export const GIVE_UP_AFTER_MS = 3 * 24 * HOUR;
/** Events read from the feed per fan-out transaction. */
const FAN_OUT_BATCH = 500;
/** Webhooks one instance sends to at once. */
const MAX_IN_FLIGHT = 16;
/** Deliveries of one webhook leased at once (its head and those behind it), sent one after another. */
const RUN_LENGTH = 50;
/** How long this instance trusts its last read of whether any webhook is enabled (see `EnabledWebhooks`). */
export const ENABLED_WEBHOOKS_TTL_MS = 1000;

export interface DispatcherLog {
  warn(detail: object, message: string): void;
  error(detail: object, message: string): void;
}

export interface DispatcherOptions {
  timeoutMs: number;
  pollMs: number;
  allowPrivateNetworks: boolean;
  /** Jitter source in [0, 1). */
  random?: () => number;
  retrySchedule?: readonly number[];
  giveUpAfterMs?: number;
  log: DispatcherLog;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Whether any webhook is enabled, as this instance last read it. The dispatcher asks at every ring,
 * that is after every commit: where statements are round trips, a read per write (two syscalls and
 * the database server's work), as costly as a small request. So the answer is read at most once per
 * `ttlMs`, and again at once after this instance writes webhooks (`changed`, told by the storage's
 * committed writes). A webhook enabled by another instance is fanned out here within `ttlMs`, and by
 * that instance at once (it hears every ring). A stale "yes" costs one fan-out that finds nothing.
 */
export class EnabledWebhooks {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  #known: { answer: boolean; until: number } | undefined;
  /** Moved by `changed`: a read under way meanwhile is not kept. */
  #generation = 0;

  constructor(clock: Clock, ttlMs = ENABLED_WEBHOOKS_TTL_MS) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  /** This instance wrote webhooks: the next question reads the database. */
  changed(): void {
    this.#generation++;
    this.#known = undefined;
  }

  async any(db: Executor): Promise<boolean> {
    const at = this.#clock.now();
    if (this.#known && at < this.#known.until) return this.#known.answer;
    const generation = this.#generation;
    const answer = await store.anyEnabledWebhook(db);
    if (generation === this.#generation) this.#known = { answer, until: at + this.#ttlMs };
    return answer;
  }
}

export class WebhookDispatcher {
  /** This instance, as a lease owner. */
  readonly owner = `${process.pid}-${randomBytes(6).toString('hex')}`;
  readonly #ctx: ServiceContext;
  readonly #options: Required<DispatcherOptions> & { clock: Clock };
  readonly #sender: WebhookSender;
  /** Told by the webhooks plugin when this instance writes webhooks. */
  readonly enabledWebhooks: EnabledWebhooks;
  /** Runs being sent now, by webhook id. */
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Its rounds: every `pollMs`, and at once when woken. */
  readonly job: PeriodicJob<void>;

  constructor(ctx: ServiceContext, options: DispatcherOptions) {
    this.#ctx = ctx;
    this.#options = {
      random: Math.random,
      retrySchedule: RETRY_SCHEDULE,
      giveUpAfterMs: GIVE_UP_AFTER_MS,
      ...options,
      clock: ctx.clock,
    };
    this.#sender = new WebhookSender(options);
    this.enabledWebhooks = new EnabledWebhooks(ctx.clock);
    this.job = new PeriodicJob(
      {
        name: 'webhook dispatcher',
        everyMs: options.pollMs,
        pass: async (signal) => {
          if (signal.aborted) return;
          try {
            await this.round();
          } catch (error) {
            // a round that failed is tried again at the next one; a warning, not the job's error
            this.#options.log.warn({ err: error }, 'webhook dispatcher round failed; trying again at the next one');
          }
        },
        stopped: async () => {
          await Promise.all(this.#inFlight.values());
          await this.#sender.close();
        },
      },
      options.log,
    );
  }

  /** How long a claim holds a delivery: its attempt's whole timeout, and as much again for the writes around it. */
  get leaseMs(): number {
    return 2 * this.#options.timeoutMs;
  }

  /** Look now (events committed, an attempt ended, a delivery made due). */
  wake(): void {
    this.job.wake();
  }

  /** One look: fan out what committed, then start sending what is due. With no webhook enabled, nothing (no write). */
  async round(): Promise<void> {
    if (!(await this.enabledWebhooks.any(this.#ctx.db))) return;
    while (await this.#fanOutBatch()) {}
    await this.#sendDue();
  }

  /**
   * Fans out one batch of the feed; answers whether there may be more. Only events some enabled
   * webhook may receive are read (their companies, since the oldest one was created); when none
   * is left, the cursor moves to the feed's end as read before, so what no webhook wants is
   * passed over once. (While no webhook is enabled the cursor rests, and is caught up this way.)
   */
  #fanOutBatch(): Promise<boolean> {
    return inTransaction(this.#ctx, async (trx) => {
      const cursor = await store.lockFeedCursor(trx);
      if (!cursor) return false;
      const filters = (await store.enabledWebhooks(trx)).map(filterOf);
      if (!filters.length) return false;
      const end = await feedEnd(trx);
      const since = filters.map((filter) => filter.row.receiving_since).reduce((a, b) => (a < b ? a : b));
      const companies = [...new Set(filters.map((filter) => filter.row.company_id))];
      const events = await store.eventsAfter(trx, cursor.position, FAN_OUT_BATCH, { companies, since });
      const last = events.at(-1);
      if (!last) {
        if (cursor.position !== end) await store.moveFeedCursor(trx, { ...cursor, position: end });
        return false;
      }
      const now = iso(this.#options.clock.now());
      let ordinal = cursor.nextOrdinal;
      const rows: NewRow<'webhook_deliveries'>[] = [];
      for (const event of events) {
        const receivers = filters.filter((filter) => receives(filter, event));
        if (!receivers.length) continue;
        const payload = deliveryBody(event);
        for (const { row } of receivers) {
          rows.push({
            id: newId(),
            webhook_id: row.id,
            event_id: event.id,
            event_type: event.type,
            ordinal: ordinal++,
            payload,
            status: 'pending',
            attempts: 0,
            next_attempt_at: now,
            created_at: now,
          });
        }
      }
      await store.insertDeliveries(trx, rows);
      await store.moveFeedCursor(trx, { position: last.position, nextOrdinal: ordinal });
      return events.length === FAN_OUT_BATCH;
    });
  }

  /** Claims the due heads of webhooks' queues (as many as may be in flight) and starts sending them. */
  async #sendDue(): Promise<void> {
    const room = MAX_IN_FLIGHT - this.#inFlight.size;
    if (room <= 0 || this.job.stopping) return;
    const now = this.#options.clock.now();
    const leaseUntil = now + this.leaseMs;
    const runs = await inTransaction(this.#ctx, async (trx) => {
      const mine: store.DeliveryRow[][] = [];
      for (const head of await store.dueHeads(trx, iso(now), room)) {
        if (!(await store.leaseDelivery(trx, head.id, this.owner, iso(now), iso(leaseUntil)))) continue;
        mine.push([head, ...(await store.leaseRun(trx, head, this.owner, iso(now), iso(leaseUntil), RUN_LENGTH - 1))]);
      }
      return mine;
    });
    if (!runs.length) return;
    const webhooks = new Map(
      (
        await store.findWebhooks(
          this.#ctx.db,
          runs.map(([head]) => (head as store.DeliveryRow).webhook_id),
        )
      ).map((w) => [w.id, w]),
    );
    for (const run of runs) {
      const webhookId = (run[0] as store.DeliveryRow).webhook_id;
      const webhook = webhooks.get(webhookId);
      if (!webhook) continue; // deleted meanwhile, with its deliveries
      const sending = this.#sendRun(run, webhook, leaseUntil)
        .catch((error) => this.#options.log.warn({ err: error, webhook: webhookId }, 'webhook attempt could not be recorded; its lease will expire'))
        .finally(() => {
          this.#inFlight.delete(webhookId);
          this.wake();
        });
      this.#inFlight.set(webhookId, sending);
    }
  }

  /**
   * Sends a leased run in order, stopping at the first failed attempt (what follows waits behind
   * it), when stopping, or when the lease no longer covers a whole attempt; the rest is released.
   */
  async #sendRun(run: readonly store.DeliveryRow[], webhook: store.WebhookRow, leaseUntil: number): Promise<void> {
    let sent = 0;
    try {
      for (const delivery of run) {
        if (this.job.stopping || this.#options.clock.now() + this.#options.timeoutMs >= leaseUntil) break;
        sent++;
        if (!(await this.#attempt(delivery, webhook))) break;
      }
    } finally {
      await store.releaseLeases(
        this.#ctx.db,
        run.slice(sent).map((delivery) => delivery.id),
        this.owner,
      );
    }
  }

  /** The secrets that sign now: the current one, and a rotated-out one until it expires. */
  #secrets(webhook: store.WebhookRow, at: number): string[] {
    return previousSecretSigns(webhook, iso(at)) ? [webhook.secret, webhook.previous_secret as string] : [webhook.secret];
  }

  /** One attempt, its outcome written; answers whether it was delivered. */
  async #attempt(delivery: store.DeliveryRow, webhook: store.WebhookRow): Promise<boolean> {
    const { clock } = this.#options;
    const startedAt = clock.now();
    // the delivery's id is the message id: the same on every attempt, so receivers can deduplicate
    const headers = signedHeaders(this.#secrets(webhook, startedAt), delivery.id, startedAt, delivery.payload);
    const outcome = await this.#sender.post(webhook.url, headers, delivery.payload);
    const at = clock.now();
    const attempts = delivery.attempts + 1;
    const firstAttemptAt = delivery.first_attempt_at ?? iso(startedAt);
    const common = { attempts, first_attempt_at: firstAttemptAt, last_attempt_at: iso(at), last_status_code: outcome.statusCode, last_error: outcome.error };
    if (outcome.error === null) {
      return store.finishAttempt(this.#ctx.db, delivery.id, this.owner, { ...common, status: 'delivered', delivered_at: iso(at) });
    }
    if (at - Date.parse(firstAttemptAt) >= this.#options.giveUpAfterMs) {
      await inTransaction(this.#ctx, async (trx) => {
        if (!(await store.finishAttempt(trx, delivery.id, this.owner, { ...common, status: 'failed' }))) return;
        const reason = `Disabled at ${iso(at)}: deliveries to this endpoint failed since ${firstAttemptAt} (last: ${outcome.error})`;
        await store.updateWebhook(trx, webhook.id, { enabled: 0, disabled_reason: reason, updated_at: iso(at) });
      });
      return false;
    }
    await store.finishAttempt(this.#ctx.db, delivery.id, this.owner, { ...common, next_attempt_at: iso(at + this.#backoff(attempts)) });
    return false;
  }

  /** The wait after the `attempts`-th failed attempt: the schedule's step, ±20 %. */
  #backoff(attempts: number): number {
    const schedule = this.#options.retrySchedule;
    const step = schedule[Math.min(attempts, schedule.length) - 1] ?? 0;
    return Math.round(step * (0.8 + 0.4 * this.#options.random()));
  }
}
