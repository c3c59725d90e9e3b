import { sql } from 'kysely';
import type { Executor, Transaction } from '../database.ts';
import { REMINDER_INDEXES, reminderIndexPredicate } from '../migrations/0008_notifications.ts';
import { OVERDUE_INDEX } from '../migrations/0091_overdue.ts';

/** The four reminders of a card, by the name its record's `isNotified` gives them. */
export type ReminderKey = 'startOneHour' | 'startOneDay' | 'dueOneHour' | 'dueOneDay';

type FlagColumn = 'notified_start_one_hour' | 'notified_start_one_day' | 'notified_due_one_hour' | 'notified_due_one_day';

interface ReminderColumns {
  date: 'start_date' | 'due_date';
  flag: FlagColumn;
  /** Its partial index's predicate (migration 0008), written as literals so the planners match it. */
  pending: string;
}

function columns(name: (typeof REMINDER_INDEXES)[number]['name'], flag: FlagColumn): ReminderColumns {
  const index = REMINDER_INDEXES.find((i) => i.name === name);
  if (!index) throw new Error(`no reminder index ${name}`);
  return { date: index.date, flag, pending: reminderIndexPredicate(index) };
}

const REMINDERS: Record<ReminderKey, ReminderColumns> = {
  startOneHour: columns('cards_reminder_start_one_hour', 'notified_start_one_hour'),
  startOneDay: columns('cards_reminder_start_one_day', 'notified_start_one_day'),
  dueOneHour: columns('cards_reminder_due_one_hour', 'notified_due_one_hour'),
  dueOneDay: columns('cards_reminder_due_one_day', 'notified_due_one_day'),
};

/** When a reminder is due: its date lies in (after, until]. */
export interface ReminderWindow {
  after: string;
  until: string;
}

export interface OwedReminder {
  cardId: string;
  /** The date the reminder is about, as the card had it when found. */
  date: string;
}

/**
 * The card owes the reminder: its index's predicate, the date in the window, and not deleted (a card
 * whose list or board was deleted waits for the sweep marked; claiming its flag would say a reminder
 * was sent that nobody received). Few cards are marked at once, so the filter costs the range scan nothing.
 */
function owing(key: ReminderKey, window: ReminderWindow) {
  const { date, pending } = REMINDERS[key];
  return sql<boolean>`${sql.raw(pending)} and ${sql.ref(date)} > ${window.after} and ${sql.ref(date)} <= ${window.until} and deleted_at is null`;
}

/**
 * The cards that owe the reminder now (unarchived, incomplete, not deleted, not sent, the date in its window),
 * oldest date first, at most `limit`: a range scan of the reminder's partial index. Exported for
 * EXPLAIN (test/integration/reminder-index.test.ts), so the plan checked is the one that runs.
 */
export function owingQuery(db: Executor, key: ReminderKey, window: ReminderWindow, limit: number) {
  const { date } = REMINDERS[key];
  return db
    .selectFrom('cards')
    .select(['id', sql.ref<string>(date).as('date')])
    .where(owing(key, window))
    .orderBy(date)
    .limit(limit);
}

export async function cardsOwingReminder(db: Executor, key: ReminderKey, window: ReminderWindow, limit: number): Promise<OwedReminder[]> {
  const rows = await owingQuery(db, key, window, limit).execute();
  return rows.map((row) => ({ cardId: row.id, date: row.date }));
}

/**
 * Claims the reminder: sets its flag if the card still owes it with the date it was found with.
 * The row's lock makes a second claimant (another instance) wait, then find the flag set: exactly
 * one claim succeeds. True for the one that did.
 */
export async function claimReminder(trx: Transaction, key: ReminderKey, owed: OwedReminder, window: ReminderWindow): Promise<boolean> {
  const { date, flag } = REMINDERS[key];
  const result = await trx
    .updateTable('cards')
    .set({ [flag]: 1 })
    .where('id', '=', owed.cardId)
    .where(sql.ref(date), '=', owed.date)
    .where(owing(key, window))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The overdue notice's predicate (migration 0091's partial index, repeated as literals) with the due date in the window, not deleted. */
function owingOverdue(window: ReminderWindow) {
  return sql<boolean>`${sql.raw(OVERDUE_INDEX.pending)} and due_date > ${window.after} and due_date <= ${window.until} and deleted_at is null`;
}

/** The cards that owe the overdue notice now, oldest due date first, at most `limit`: a range scan of its partial index. */
export async function cardsOwingOverdue(db: Executor, window: ReminderWindow, limit: number): Promise<OwedReminder[]> {
  const rows = await db.selectFrom('cards').select(['id', 'due_date']).where(owingOverdue(window)).orderBy('due_date').limit(limit).execute();
  return rows.map((row) => ({ cardId: row.id, date: row.due_date ?? '' }));
}

/** Claims the overdue notice as claimReminder claims a reminder: of two claimants, exactly one succeeds. */
export async function claimOverdue(trx: Transaction, owed: OwedReminder, window: ReminderWindow): Promise<boolean> {
  const result = await trx
    .updateTable('cards')
    .set({ notified_overdue: 1 })
    .where('id', '=', owed.cardId)
    .where('due_date', '=', owed.date)
    .where(owingOverdue(window))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
