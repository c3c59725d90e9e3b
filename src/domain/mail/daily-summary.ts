/**
 * The daily summary (docs/decisions/0253-daily-summary-mail.md): a person who chose it (`emailCadence`
 * `daily`, with email notifications on) gets one mail each morning instead of the digest a minute
 * after each notification: their open cards due today, due this week and overdue, and what changed
 * on their cards since the last summary (their notifications, each in a line as the digest says it).
 *
 * It is written from SUMMARY_HOUR in the person's time zone (`timeZone`, UTC unless set), in their
 * language, by the mail worker's pass; claiming the local date on the person's row (a conditional
 * update, src/storage/repositories/summaries.ts) in the transaction that writes the mail to the
 * outbox makes it once a day across restarts and instances. A day with nothing to say claims the day
 * and sends nothing.
 */
import type { DateTime } from 'luxon';
import type { Language } from '../../schemas/records.ts';
import { insertMail } from '../../storage/repositories/invitations.ts';
import { notificationSubjects } from '../../storage/repositories/mail.ts';
import { cardsDueFor, claimDailySummary, dailySummaryPeople, notificationsSince } from '../../storage/repositories/summaries.ts';
import type { ServiceContext } from '../context.ts';
import { toNotification } from '../notifications/records.ts';
import { newId } from '../shared/ids.ts';
import { luxon } from '../shared/luxon.ts';
import { inTransaction } from '../shared/transaction.ts';
import { mailLanguage, mailText } from './messages.ts';
import { describeNotification } from './notification-mail.ts';

/** The local hour from which a day's summary is written. */
export const SUMMARY_HOUR = 8;
/** Lines a section holds at the most (a summary is read, not searched). */
const SECTION_LINES = 50;

/** A stored time zone, or UTC when it is no longer one the server knows. */
export function zoneOf(timeZone: string | null): string {
  return timeZone !== null && luxon().DateTime.local().setZone(timeZone).isValid ? timeZone : 'UTC';
}

type Person = Awaited<ReturnType<typeof dailySummaryPeople>>[number];

function cardLink(publicUrl: string | undefined, card: { id: string; board_id: string }): string | undefined {
  return publicUrl ? `${publicUrl.replace(/\/$/, '')}/boards/${card.board_id}?card=${card.id}` : undefined;
}

/** Writes the person's summary of the local day `local` if this call claims it; true when a mail was written. */
async function writeSummary(ctx: ServiceContext, person: Person, local: DateTime, publicUrl: string | undefined): Promise<boolean> {
  return inTransaction(ctx, async (trx) => {
    const day = local.toISODate() ?? '';
    if (!(await claimDailySummary(trx, person.id, day))) return false;
    const language: Language = mailLanguage(person.locale);
    const now = local.toMillis();
    const startOfDay = local.startOf('day');
    const tomorrow = startOfDay.plus({ days: 1 }).toMillis();
    const weekEnd = startOfDay.plus({ days: 7 }).toMillis();
    const cards = await cardsDueFor(trx, person.id, new Date(weekEnd).toISOString(), 3 * SECTION_LINES);
    // what changed since the last summary's morning (the day before, for a first one)
    const since = person.summary_sent_on
      ? luxon().DateTime.fromISO(person.summary_sent_on, { zone: local.zone }).set({ hour: SUMMARY_HOUR }).toMillis()
      : now - 86_400_000;
    const changes = await notificationsSince(trx, person.id, new Date(since).toISOString(), SECTION_LINES);
    const due = (at: number) => (at < now ? 'overdue' : at < tomorrow ? 'today' : 'week');
    const sections = { overdue: [] as string[], today: [] as string[], week: [] as string[] };
    for (const card of cards) {
      const at = Date.parse(card.due_date ?? '');
      const when = luxon().DateTime.fromMillis(at, { zone: local.zone }).setLocale(language).toLocaleString(luxon().DateTime.DATETIME_MED);
      const line = mailText(language, 'summaryCard', { card: card.name, board: card.board_name, due: when });
      const link = cardLink(publicUrl, card);
      const list = sections[due(at)];
      if (list.length < SECTION_LINES) list.push(link ? `- ${line}\n  ${link}` : `- ${line}`);
    }
    const notifications = changes.map(toNotification);
    const subjects = await notificationSubjects(
      trx,
      [...new Set(notifications.flatMap((n) => (n.card ? [n.card] : [])))],
      [...new Set(notifications.flatMap((n) => (n.actor ? [n.actor] : [])))],
    );
    const changed = notifications.map((notification) => {
      const { line, link } = describeNotification(notification, subjects, publicUrl, language);
      return link ? `- ${line}\n  ${link}` : `- ${line}`;
    });
    if (cards.length === 0 && changed.length === 0) return false;
    const section = (title: 'summaryDueToday' | 'summaryDueThisWeek' | 'summaryOverdue' | 'summaryChanges', lines: string[]) =>
      `${mailText(language, title)}\n${lines.length ? lines.join('\n') : mailText(language, 'summaryNothing')}`;
    const body = [
      section('summaryDueToday', sections.today),
      section('summaryDueThisWeek', sections.week),
      section('summaryOverdue', sections.overdue),
      section('summaryChanges', changed),
    ].join('\n\n');
    const nowIso = new Date(ctx.clock.now()).toISOString();
    await insertMail(trx, {
      id: newId(ctx.clock.now()),
      to_address: person.email,
      kind: 'message',
      user_id: person.id,
      subject: mailText(language, 'summarySubject', { dueToday: sections.today.length, overdue: sections.overdue.length }),
      body: `${body}\n\n--\n${mailText(language, 'summaryFooter')}`,
      created_at: nowIso,
      next_attempt_at: nowIso,
      sent_at: null,
      last_error: null,
      language,
    });
    return true;
  });
}

/**
 * Writes the summaries due at the clock's now (for each person whose local time has reached
 * SUMMARY_HOUR of a day not summarised yet) to the outbox; answers how many it wrote.
 */
export async function writeDailySummaries(ctx: ServiceContext, publicUrl: string | undefined): Promise<number> {
  const now = ctx.clock.now();
  let written = 0;
  for (const person of await dailySummaryPeople(ctx.db)) {
    const local = luxon().DateTime.fromMillis(now, { zone: zoneOf(person.time_zone) });
    if (local.hour < SUMMARY_HOUR) continue;
    if (person.summary_sent_on !== null && person.summary_sent_on >= (local.toISODate() ?? '')) continue;
    if (await writeSummary(ctx, person, local, publicUrl)) written++;
  }
  return written;
}
