/**
 * Reminders: one day and one hour before a card's start date and due date, each sent once.
 *
 * A reminder is due while its date lies in its window: the one-hour reminder while the date is
 * (now, now + 1 h], the one-day reminder while it is (now + 1 h, now + 1 day]. So a date set (or a
 * server started) inside the last hour sends the one-hour reminder at once and never the one-day
 * one; a reminder whose moment passed while no server ran is sent when one starts if its date is
 * still ahead, and never once the date has passed. Completed and archived cards owe nothing (their
 * reminders resume if they are reopened while a window is open); a new date clears its two flags
 * (src/domain/cards/update.ts), which re-arms them.
 *
 * Sending claims the reminder in the database (its flag set by an UPDATE that matches only while the
 * card still owes it: src/storage/repositories/reminders.ts), so each is sent once across restarts
 * and across instances sharing one database; the same transaction records the card's change
 * (`__v` + 1 and a `card.reminder` event, by the recorder) and notifies its members and watchers
 * (its creator when it has none).
 *
 * The overdue notice is a fifth, sent by a job of its own (`overdueJob`) the same way: once, when the
 * due date of an incomplete card has passed, while it passed within the last day (a date long past
 * when the server starts, or when this notice first shipped, tells nobody); its flag
 * (`notified_overdue`) is cleared by a new due date as the reminders' are.
 */
import {
  cardsOwingOverdue,
  cardsOwingReminder,
  claimOverdue,
  claimReminder,
  type OwedReminder,
  type ReminderKey,
  type ReminderWindow,
} from '../../storage/repositories/reminders.ts';
import { cardAudience } from '../access/people.ts';
import { lockCards } from '../cards/locks.ts';
import { recordCardChange } from '../cards/recorder.ts';
import type { ServiceContext } from '../context.ts';
import { type JobLog, PeriodicJob } from '../shared/periodic.ts';
import { inTransaction } from '../shared/transaction.ts';
import { notify } from './notify.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Each reminder's window at `now`: the dates it is due for, as (after, until] offsets from now. */
const WINDOWS: Record<ReminderKey, [after: number, until: number]> = {
  startOneHour: [0, HOUR],
  startOneDay: [HOUR, DAY],
  dueOneHour: [0, HOUR],
  dueOneDay: [HOUR, DAY],
};

export const REMINDER_KEYS = Object.keys(WINDOWS) as ReminderKey[];

function windowAt(key: ReminderKey, now: number): ReminderWindow {
  const [after, until] = WINDOWS[key];
  return { after: new Date(now + after).toISOString(), until: new Date(now + until).toISOString() };
}

/** Cards read per query; the scheduler reads again until a page comes back short. */
const BATCH = 100;

/** Sends one reminder if this call claims it; false when it is no longer owed (sent elsewhere, date changed, card closed). */
async function sendReminder(ctx: ServiceContext, key: ReminderKey, owed: OwedReminder): Promise<boolean> {
  return inTransaction(ctx, async (trx) => {
    const now = ctx.clock.now();
    if (!(await claimReminder(trx, key, owed, windowAt(key, now)))) return false;
    const at = new Date(now).toISOString();
    // the system reaches every card: no access check, only the card's lock
    const card = (await lockCards(trx, [owed.cardId])).get(owed.cardId);
    if (!card) return false;
    await recordCardChange(trx, card, { caller: null, kind: 'card.reminder', at, data: { reminder: key, date: owed.date } });
    const audience = await cardAudience(trx, card);
    await notify(trx, null, 'card.reminder', audience.length > 0 ? audience : [card.creator_id], { card, reminder: key }, at);
    return true;
  });
}

/** Sends every reminder due at the context clock's now; answers how many this call sent. */
export async function sendDueReminders(ctx: ServiceContext): Promise<number> {
  let sent = 0;
  for (const key of REMINDER_KEYS) {
    for (;;) {
      const owed = await cardsOwingReminder(ctx.db, key, windowAt(key, ctx.clock.now()), BATCH);
      let claimed = 0;
      for (const reminder of owed) if (await sendReminder(ctx, key, reminder)) claimed++;
      sent += claimed;
      // a short page was the last; a page of which nothing could be claimed would come back the same
      if (owed.length < BATCH || claimed === 0) break;
    }
  }
  return sent;
}

/**
 * The reminder scheduler of one server process: a pass at start (what came due while no server ran),
 * then one every `intervalMs`; a pass answers how many reminders it sent. Several processes may run
 * it on one database: the claims keep every reminder to one send.
 */
export function reminderJob(ctx: ServiceContext, intervalMs: number, log: JobLog): PeriodicJob<number> {
  return new PeriodicJob({ name: 'reminders', everyMs: intervalMs, pass: () => sendDueReminders(ctx) }, log);
}

/** The overdue notice is owed while the due date lies in (now - 1 day, now]. */
function overdueWindow(now: number): ReminderWindow {
  return { after: new Date(now - DAY).toISOString(), until: new Date(now).toISOString() };
}

/** Sends one overdue notice if this call claims it. */
async function sendOverdue(ctx: ServiceContext, owed: OwedReminder): Promise<boolean> {
  return inTransaction(ctx, async (trx) => {
    const now = ctx.clock.now();
    if (!(await claimOverdue(trx, owed, overdueWindow(now)))) return false;
    const at = new Date(now).toISOString();
    const card = (await lockCards(trx, [owed.cardId])).get(owed.cardId);
    if (!card) return false;
    await recordCardChange(trx, card, { caller: null, kind: 'card.overdue', at, data: { date: owed.date } });
    const audience = await cardAudience(trx, card);
    await notify(trx, null, 'card.overdue', audience.length > 0 ? audience : [card.creator_id], { card }, at);
    return true;
  });
}

/** Sends every overdue notice owed at the context clock's now; answers how many this call sent. */
export async function sendOverdueNotices(ctx: ServiceContext): Promise<number> {
  let sent = 0;
  for (;;) {
    const owed = await cardsOwingOverdue(ctx.db, overdueWindow(ctx.clock.now()), BATCH);
    let claimed = 0;
    for (const notice of owed) if (await sendOverdue(ctx, notice)) claimed++;
    sent += claimed;
    if (owed.length < BATCH || claimed === 0) return sent;
  }
}

/** The overdue scheduler of one server process, run as the reminders' is; a pass answers how many notices it sent. */
export function overdueJob(ctx: ServiceContext, intervalMs: number, log: JobLog): PeriodicJob<number> {
  return new PeriodicJob({ name: 'overdue notices', everyMs: intervalMs, pass: () => sendOverdueNotices(ctx) }, log);
}
