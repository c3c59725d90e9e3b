/**
 * The mail worker: sends what the outbox holds (src/domain/people/mail.ts writes messages in the
 * transaction of their cause, ./notification-mail.ts the notifications of opted-in people), apart
 * from every request.
 *
 * A pass claims the due rows with a conditional update that moves their next attempt out by a
 * lease (src/storage/repositories/mail.ts: of two instances each row goes to one), sends each
 * message alone and each person's due notifications as one digest, then marks them sent; a failed
 * or timed-out send keeps the rows, with the error and a later attempt (30 s, doubling, at most an
 * hour apart, for as long as it takes: nothing is dropped). A process that dies mid-send leaves its
 * rows to be sent again once the lease ends: a mail may then arrive twice, never not at all.
 *
 * Logs name a mail by its id, never by its text (a link in it may sign someone in).
 */
import { claimMails, dueMails, type MailRow, markMailsFailed, markMailsSent } from '../../storage/repositories/mail.ts';
import type { ServiceContext } from '../context.ts';
import { PeriodicJob } from '../shared/periodic.ts';
import { writeDailySummaries } from './daily-summary.ts';
import { digestMail, gatherNotificationMail } from './notification-mail.ts';
import type { MailTransport, OutgoingMail } from './transport.ts';

export interface MailLog {
  info(detail: object, message: string): void;
  warn(detail: object, message: string): void;
  error(detail: object, message: string): void;
}

/** Mails handed over and attempts that failed, since start (`taskboard_mail_sends_total` reads them). */
export interface MailSends {
  sent: number;
  failed: number;
}

export interface MailWorkerOptions {
  /** Between two passes (MAIL_POLL_MS). */
  pollMs: number;
  /** Bound on each wait of a send (MAIL_TIMEOUT_MS); a whole send is cut at SEND_BOUND times it. */
  timeoutMs: number;
  /** The address links in notification mails start with (PUBLIC_URL); none: no links. */
  publicUrl: string | undefined;
  log: MailLog;
  /** Counted into, when given. */
  sends?: MailSends | undefined;
}

/** What one pass did. */
export interface MailPass {
  /** Notification rows written from the event feed. */
  gathered: number;
  /** Daily summaries written. */
  summaries: number;
  /** Mails handed to the server. */
  sent: number;
  /** Mails that failed this time (kept for a later attempt). */
  failed: number;
}

const BATCH = 100;
const RETRY_FIRST_MS = 30_000;
const RETRY_MOST_MS = 3_600_000;
/** A send (connection, greeting, each command) is cut after this many MAIL_TIMEOUT_MS in all. */
const SEND_BOUND = 3;

/** The delay before attempt `attempts + 1`, after `attempts` failed ones. */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, attempts - 1), RETRY_MOST_MS);
}

/** The error as the outbox and the log keep it: its message, short, without the mail's text. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 500);
}

/**
 * The send, or an error once `ms` have passed or the server is stopping (a stop must not wait out a
 * slow mail server; the abandoned send is ended by its own socket timeout).
 */
async function within(send: Promise<void>, ms: number, stopping: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onStop = () => {};
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the mail server did not finish within ${ms} ms`)), ms);
    onStop = () => reject(new Error('abandoned: the server is stopping'));
    if (stopping.aborted) onStop();
    stopping.addEventListener('abort', onStop, { once: true });
  });
  try {
    await Promise.race([send, bound]);
  } finally {
    clearTimeout(timer);
    stopping.removeEventListener('abort', onStop);
  }
}

/** The due rows in the groups that go as one mail each: a message alone, a person's notifications together. */
function groupsOf(rows: readonly MailRow[]): MailRow[][] {
  const groups = new Map<string, MailRow[]>();
  for (const row of rows) {
    const key = row.kind === 'notification' && row.user_id ? `user:${row.user_id}` : `mail:${row.id}`;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.values()];
}

function mailOf(rows: readonly MailRow[]): OutgoingMail {
  const [first] = rows;
  if (first?.kind === 'message') return { to: first.to_address, subject: first.subject, text: first.body };
  return digestMail([...rows].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)));
}

/** Sends every mail due at the clock's now; answers how many went and how many failed. */
export async function sendDueMail(
  ctx: ServiceContext,
  transport: MailTransport,
  options: Pick<MailWorkerOptions, 'timeoutMs' | 'log' | 'sends'>,
  stopping: AbortSignal,
): Promise<{ sent: number; failed: number }> {
  const { timeoutMs, log } = options;
  let sent = 0;
  let failed = 0;
  for (;;) {
    const now = ctx.clock.now();
    const nowIso = new Date(now).toISOString();
    const due = await dueMails(ctx.db, nowIso, BATCH);
    for (const group of groupsOf(due)) {
      if (stopping.aborted) return { sent, failed };
      const leaseUntil = new Date(ctx.clock.now() + (SEND_BOUND + 1) * timeoutMs).toISOString();
      const claimed = await claimMails(
        ctx.db,
        group.map((row) => row.id),
        nowIso,
        leaseUntil,
      );
      if (claimed.length === 0) continue;
      const ids = claimed.map((row) => row.id);
      // only the send's own failure is the mail's: a database error after it fails the pass instead
      const outcome = await within(transport.send(mailOf(claimed)), SEND_BOUND * timeoutMs, stopping).then(
        () => undefined,
        (error: unknown) => ({ reason: describe(error) }),
      );
      if (!outcome) {
        await markMailsSent(ctx.db, ids, new Date(ctx.clock.now()).toISOString());
        sent++;
        if (options.sends) options.sends.sent++;
      } else {
        const attempts = Math.max(...claimed.map((row) => row.attempts));
        const next = new Date(ctx.clock.now() + retryDelayMs(attempts)).toISOString();
        await markMailsFailed(ctx.db, ids, outcome.reason, next);
        failed++;
        if (options.sends) options.sends.failed++;
        log.warn({ mails: ids, attempts, nextAttemptAt: next, reason: outcome.reason }, 'mail not sent; it will be tried again');
      }
    }
    if (due.length < BATCH) return { sent, failed };
  }
}

/** The daily summaries are looked for once in each minute of the clock (a pass may come every few seconds). */
const SUMMARY_EVERY_MS = 60_000;

/**
 * The worker's job: each pass gathers new notifications into the outbox, writes the daily summaries
 * due (at most once a minute), then sends what is due.
 */
export function mailWorker(ctx: ServiceContext, transport: MailTransport, options: MailWorkerOptions): PeriodicJob<MailPass> {
  let summaryMinute = Number.NEGATIVE_INFINITY;
  return new PeriodicJob<MailPass>(
    {
      name: 'mail',
      everyMs: options.pollMs,
      pass: async (stopping) => {
        const gathered = await gatherNotificationMail(ctx, options.publicUrl);
        let summaries = 0;
        const minute = Math.floor(ctx.clock.now() / SUMMARY_EVERY_MS);
        if (minute !== summaryMinute) {
          summaryMinute = minute;
          summaries = await writeDailySummaries(ctx, options.publicUrl);
        }
        const { sent, failed } = await sendDueMail(ctx, transport, options, stopping);
        if (sent > 0) options.log.info({ sent }, 'mail sent');
        return { gathered, summaries, sent, failed };
      },
      stopped: async () => transport.close(),
    },
    options.log,
  );
}
