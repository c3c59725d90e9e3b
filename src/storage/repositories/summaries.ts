import type { Executor, Transaction } from '../database.ts';
import type { NotificationRow } from './notifications.ts';

/** The people who chose a daily summary of their notifications, with what writing it needs. */
export function dailySummaryPeople(db: Executor) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'locale', 'time_zone', 'summary_sent_on'])
    .where('email_notifications', '=', 1)
    .where('email_cadence', '=', 'daily')
    .orderBy('id')
    .execute();
}

/**
 * Claims the person's summary of `localDate` (YYYY-MM-DD in their time zone): sets the day if no
 * summary of it or a later day was sent. The row's lock makes a second claimant wait, then find the
 * day set: of several instances exactly one claims it. True for the one that did.
 */
export async function claimDailySummary(trx: Transaction, userId: string, localDate: string): Promise<boolean> {
  const result = await trx
    .updateTable('users')
    .set({ summary_sent_on: localDate })
    .where('id', '=', userId)
    .where('email_cadence', '=', 'daily')
    .where((eb) => eb.or([eb('summary_sent_on', 'is', null), eb('summary_sent_on', '<', localDate)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The open cards the person is on or watches that are due before `until` (overdue ones included),
 * soonest first, with their boards' names; at most `limit`.
 */
export function cardsDueFor(db: Executor, userId: string, until: string, limit: number) {
  return db
    .selectFrom('cards as c')
    .innerJoin('boards as b', 'b.id', 'c.board_id')
    .select(['c.id', 'c.name', 'c.board_id', 'c.due_date', 'b.name as board_name'])
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('card_members as m').select('m.user_id').whereRef('m.card_id', '=', 'c.id').where('m.user_id', '=', userId)),
        eb.exists(eb.selectFrom('card_watchers as w').select('w.user_id').whereRef('w.card_id', '=', 'c.id').where('w.user_id', '=', userId)),
      ]),
    )
    .where('c.archived', '=', 0)
    .where('c.complete_status', '=', 0)
    .where('c.deleted_at', 'is', null)
    .where('c.due_date', 'is not', null)
    .where('c.due_date', '<', until)
    .orderBy('c.due_date')
    .orderBy('c.id')
    .limit(limit)
    .execute();
}

/** The person's notifications created after `since`, oldest first, at most `limit`. */
export function notificationsSince(db: Executor, userId: string, since: string, limit: number): Promise<NotificationRow[]> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('user_id', '=', userId)
    .where('created_at', '>', since)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
