/**
 * Notifications by email: people who turned on `emailNotifications` get theirs gathered into one
 * mail a minute at the most.
 *
 * A job reads the committed `notification.created` events from the event feed after its cursor (a
 * row of its own, locked for the pass, so of several instances one does the work) and, in the same
 * transaction that moves the cursor past them, writes one outbox row per notification of an
 * opted-in person: each notification becomes mail exactly once, and a notification that rolled
 * back never does (docs/decisions/0083-notification-mail-from-the-event-feed.md). A person's rows
 * share one due time, a minute after the first of them: the worker (./worker.ts) sends the rows of
 * a person due together as one digest.
 */
import type { Notification } from '../../schemas/notifications.ts';
import type { Language } from '../../schemas/records.ts';
import { allNotificationEventsAfter, feedEnd } from '../../storage/repositories/events.ts';
import { insertMail } from '../../storage/repositories/invitations.ts';
import { emailNotificationRecipients, lockMailFeed, type MailRow, moveMailFeed, notificationSubjects, openDigestDue } from '../../storage/repositories/mail.ts';
import type { ServiceContext } from '../context.ts';
import { newId } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { type MailMessage, mailLanguage, mailText } from './messages.ts';
import type { OutgoingMail } from './transport.ts';

/** A person's notifications are gathered this long after the first one before they are mailed. */
export const DIGEST_WINDOW_MS = 60_000;

/** Events read per transaction; a pass reads again until a page comes back short. */
const BATCH = 100;

type Subjects = Awaited<ReturnType<typeof notificationSubjects>>;

const MESSAGES: Record<Notification['type'], MailMessage> = {
  'card.assigned': 'assigned',
  'comment.created': 'commented',
  'comment.replied': 'replied',
  'cheer.received': 'cheered',
  'rule.notified': 'ruleNotified',
  'card.reminder': 'reminder',
  'card.mentioned': 'mentioned',
  'card.overdue': 'overdue',
};

/** One line saying what happened, in the recipient's language, and a link to the card when the public address is known. */
export function describeNotification(
  notification: Notification,
  subjects: Subjects,
  publicUrl: string | undefined,
  language: Language = 'en',
): { line: string; link: string | undefined } {
  const card = notification.card ? subjects.cards.get(notification.card) : undefined;
  const actor = (notification.actor && subjects.actors.get(notification.actor)) || mailText(language, 'someone');
  const line = mailText(language, MESSAGES[notification.type], {
    actor,
    hasCard: card ? 'yes' : 'no',
    card: card?.name ?? '',
    board: card?.board_name ?? '',
    reminder: notification.reminder ?? 'dueOneDay',
  });
  const link = card && publicUrl ? `${publicUrl.replace(/\/$/, '')}/boards/${card.board_id}?card=${card.id}` : undefined;
  return { line, link };
}

/**
 * Moves the job's cursor over the notifications committed since the last pass, writing the mail rows
 * of the opted-in people; answers how many rows it wrote. The first pass ever only sets the cursor
 * at the feed's end: turning mail on does not mail the past.
 */
export async function gatherNotificationMail(ctx: ServiceContext, publicUrl: string | undefined): Promise<number> {
  let written = 0;
  for (;;) {
    const step = await inTransaction(ctx, async (trx) => {
      const cursor = await lockMailFeed(trx);
      if (!cursor) return { written: 0, more: false };
      if (cursor.position === null) {
        await moveMailFeed(trx, await feedEnd(trx));
        return { written: 0, more: false };
      }
      const events = await allNotificationEventsAfter(trx, cursor.position, BATCH);
      const last = events.at(-1);
      if (!last) return { written: 0, more: false };
      const notifications = events.map((event) => (JSON.parse(event.data) as { notification: Notification }).notification);
      const recipients = new Map((await emailNotificationRecipients(trx, [...new Set(notifications.map((n) => n.user))])).map((user) => [user.id, user]));
      const wanted = notifications.filter((n) => recipients.has(n.user));
      const subjects = await notificationSubjects(
        trx,
        [...new Set(wanted.flatMap((n) => (n.card ? [n.card] : [])))],
        [...new Set(wanted.flatMap((n) => (n.actor ? [n.actor] : [])))],
      );
      const now = ctx.clock.now();
      const nowIso = new Date(now).toISOString();
      const dueOf = new Map<string, string>();
      for (const notification of wanted) {
        const recipient = recipients.get(notification.user);
        if (!recipient) continue;
        let due = dueOf.get(recipient.id);
        if (due === undefined) {
          due = (await openDigestDue(trx, recipient.id, nowIso)) ?? new Date(now + DIGEST_WINDOW_MS).toISOString();
          dueOf.set(recipient.id, due);
        }
        const language = mailLanguage(recipient.locale);
        const { line, link } = describeNotification(notification, subjects, publicUrl, language);
        await insertMail(trx, {
          id: newId(now),
          to_address: recipient.email,
          kind: 'notification',
          user_id: recipient.id,
          subject: line,
          body: link ? `${line}\n${link}` : line,
          created_at: nowIso,
          next_attempt_at: due,
          sent_at: null,
          last_error: null,
          language,
        });
      }
      await moveMailFeed(trx, last.position);
      return { written: wanted.length, more: events.length === BATCH };
    });
    written += step.written;
    if (!step.more) return written;
  }
}

/** The mail of one person's gathered notification rows (oldest first): the notification itself when alone, else a digest. */
export function digestMail(rows: readonly MailRow[]): OutgoingMail {
  const [first] = rows;
  if (!first) throw new Error('a digest of no notification');
  const language = mailLanguage(first.language);
  const footer = `\n\n--\n${mailText(language, 'digestFooter')}`;
  if (rows.length === 1) return { to: first.to_address, subject: first.subject, text: `${first.body}${footer}` };
  const items = rows.map((row) => `- ${row.body.replace(/\n/g, '\n  ')}`).join('\n');
  return { to: first.to_address, subject: mailText(language, 'digestSubject', { count: rows.length }), text: `${items}${footer}` };
}
