/**
 * The app's background jobs (src/domain/shared/periodic.ts), all in one place: started together
 * once the app is ready, stopped together before it closes (before the storage closes under them).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { pruneAuditLog } from '../domain/audit/service.ts';
import { sweepDeleted } from '../domain/boards/sweep.ts';
import { pruneExpiredEvents } from '../domain/events/events.ts';
import { smtpTransport } from '../domain/mail/transport.ts';
import { type MailPass, type MailSends, mailWorker } from '../domain/mail/worker.ts';
import { type NotificationSends, notificationDelivery } from '../domain/notifications/delivery.ts';
import { overdueJob, reminderJob } from '../domain/notifications/reminders.ts';
import type { NotificationSender } from '../domain/notifications/sender.ts';
import { type RecurrencePass, recurrenceJob } from '../domain/recurrences/maker.ts';
import { type RulePass, ruleWorker } from '../domain/rules/runner.ts';
import { PeriodicJob, PeriodicJobs } from '../domain/shared/periodic.ts';
import { pruneExpiredKeys } from '../http/idempotency.ts';

declare module 'fastify' {
  interface FastifyInstance {
    jobs: PeriodicJobs;
    /** The reminder scheduler (its passes run only when REMINDER_INTERVAL_MS is not 0; `tick` runs one). */
    reminders: PeriodicJob<number>;
    /** The overdue notices' scheduler, run as the reminders' is (`tick` runs one pass). */
    overdue: PeriodicJob<number>;
    /** Sends to the NotificationSender since start, by outcome (for the metrics and the tests). */
    notificationSends: NotificationSends;
    /** The mail worker, when SMTP_URL is set (`tick` runs one pass). */
    mailer: PeriodicJob<MailPass> | undefined;
    /** Mails sent and failed attempts since start (for the metrics). */
    mailSends: MailSends;
    /** The board rules' worker (`tick` runs one pass; its passes run only when RULES_POLL_MS is not 0). */
    rules: PeriodicJob<RulePass>;
    /** The maker of recurring cards (`tick` runs one pass; passes run only when RECURRENCES_POLL_MS is not 0). */
    recurrences: PeriodicJob<RecurrencePass>;
  }
}

export interface JobsOptions {
  config: AppConfig;
  /** Where notifications go besides the API (email...); default: nowhere. */
  sender?: NotificationSender | undefined;
}

/** Expired idempotency keys are removed this often (by whichever instance gets there). */
const IDEMPOTENCY_PRUNE_EVERY_MS = 3600_000;

export default fp(
  async function jobsPlugin(app: FastifyInstance, opts: JobsOptions) {
    const { config, sender } = opts;
    if (sender && typeof sender.send !== 'function') throw new TypeError('notificationSender must have a send(notification, { signal }) method');
    const ctx = app.services;
    const log = app.log;
    const jobs = new PeriodicJobs();
    app.decorate('jobs', jobs);

    const reminders = reminderJob(ctx, config.reminders.intervalMs, log);
    app.decorate('reminders', reminders);
    if (config.reminders.intervalMs > 0) jobs.add(reminders);
    const overdue = overdueJob(ctx, config.reminders.intervalMs, log);
    app.decorate('overdue', overdue);
    if (config.reminders.intervalMs > 0) jobs.add(overdue);

    const sends: NotificationSends = { failed: 0, timedOut: 0 };
    app.decorate('notificationSends', sends);
    if (sender) jobs.add(notificationDelivery(ctx, sender, { sendTimeoutMs: config.notifications.sendTimeoutMs, log, sends }));

    if (app.webhookDispatcher) jobs.add(app.webhookDispatcher.job);

    const rules = ruleWorker(ctx, { ...config.rules, log });
    app.decorate('rules', rules);
    if (config.rules.pollMs > 0) {
      jobs.add(rules);
      // every commit, here or on another instance, may have triggered a rule
      const unsubscribe = app.eventBell.subscribe(() => rules.wake());
      app.addHook('onClose', async () => unsubscribe());
    }

    const recurrences = recurrenceJob(ctx, config.recurrences.pollMs, log);
    app.decorate('recurrences', recurrences);
    if (config.recurrences.pollMs > 0) jobs.add(recurrences);

    const { mail, publicUrl } = config.people;
    const mailSends: MailSends = { sent: 0, failed: 0 };
    app.decorate('mailSends', mailSends);
    const transport = mail.smtpUrl ? smtpTransport({ url: mail.smtpUrl, from: mail.from, timeoutMs: mail.timeoutMs }) : undefined;
    const mailer = transport && mailWorker(ctx, transport, { pollMs: mail.pollMs, timeoutMs: mail.timeoutMs, publicUrl, log, sends: mailSends });
    app.decorate('mailer', mailer);
    if (mailer) jobs.add(mailer);

    const { retentionDays, pruneIntervalMs } = config.events;
    if (pruneIntervalMs > 0) {
      jobs.add(
        new PeriodicJob(
          {
            name: 'event retention',
            everyMs: pruneIntervalMs,
            atStart: false,
            pass: async () => {
              const { events, deliveries, before } = await pruneExpiredEvents(ctx, retentionDays);
              if (events > 0 || deliveries > 0) log.info({ events, deliveries, before }, 'pruned expired events and ended webhook deliveries');
            },
          },
          log,
        ),
      );
      jobs.add(
        new PeriodicJob(
          {
            name: 'audit log retention',
            everyMs: pruneIntervalMs,
            atStart: false,
            pass: async () => {
              const { entries, before } = await pruneAuditLog(ctx, config.audit.retentionDays);
              if (entries > 0) log.info({ entries, before }, 'pruned audit log entries past retention');
            },
          },
          log,
        ),
      );
    }

    jobs.add(
      new PeriodicJob(
        {
          name: 'idempotency keys',
          everyMs: IDEMPOTENCY_PRUNE_EVERY_MS,
          atStart: false,
          pass: async () => {
            const removed = await pruneExpiredKeys(ctx.db, ctx.clock);
            if (removed) log.info({ removed }, 'idempotency keys: expired keys removed');
          },
        },
        log,
      ),
    );

    // The sweep of deleted lists and boards runs in a server that listens (finishing what a crash
    // left), not in an app that only answers injected requests (tests, which sweep when they mean to).
    const sweeper = new PeriodicJob(
      {
        name: 'sweeper',
        everyMs: config.sweep.intervalMs,
        pass: async (stopping) => {
          const result = await sweepDeleted(ctx, { batchCards: config.sweep.batchCards, goOn: () => !stopping.aborted });
          if (result.cards + result.lists + result.boards > 0) log.info({ sweep: result }, 'sweep: removed deleted lists and boards');
        },
      },
      log,
    );
    app.addHook('onListen', async () => {
      jobs.add(sweeper);
    });

    app.addHook('onReady', async () => jobs.start());
    app.addHook('preClose', () => jobs.stop());
  },
  { name: 'jobs', dependencies: ['services', 'webhooks', 'events'] },
);
