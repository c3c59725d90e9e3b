import type { Executor, Row, Transaction } from '../database.ts';
import { dialectOf } from '../dialect.ts';
import type { FeedPosition } from '../event-feed.ts';

/** The mail outbox (migration 0013) and the notification mail job's feed cursor (migration 0030). */

export type MailRow = Row<'mail_outbox'>;

/** Mails not sent whose next attempt is due at `now`, oldest due first. */
export function dueMails(db: Executor, now: string, limit: number): Promise<MailRow[]> {
  return db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('sent_at', 'is', null)
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Claims these mails for one attempt: each still unsent and due at `now` moves its next attempt to
 * `leaseUntil` and counts the attempt, in one conditional statement, so of two workers (instances)
 * reading the same due rows each row goes to one. Answers the rows this call claimed.
 */
export async function claimMails(db: Executor, ids: readonly string[], now: string, leaseUntil: string): Promise<MailRow[]> {
  if (ids.length === 0) return [];
  return db
    .updateTable('mail_outbox')
    .set((eb) => ({ next_attempt_at: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', [...ids])
    .where('sent_at', 'is', null)
    .where('next_attempt_at', '<=', now)
    .returningAll()
    .execute();
}

export async function markMailsSent(db: Executor, ids: readonly string[], at: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('mail_outbox')
    .set({ sent_at: at, last_error: null })
    .where('id', 'in', [...ids])
    .execute();
}

export async function markMailsFailed(db: Executor, ids: readonly string[], error: string, nextAttemptAt: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('mail_outbox')
    .set({ last_error: error, next_attempt_at: nextAttemptAt })
    .where('id', 'in', [...ids])
    .where('sent_at', 'is', null)
    .execute();
}

/**
 * When the person's open digest goes: the due time of their notification mails not sent nor tried
 * yet whose time is still ahead of `now` (undefined: none is open).
 */
export async function openDigestDue(db: Executor, userId: string, now: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('user_id', '=', userId)
    .where('kind', '=', 'notification')
    .where('sent_at', 'is', null)
    .where('attempts', '=', 0)
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return row?.due ?? undefined;
}

/** The people among `userIds` who asked for their notifications by email, a minute after the first (not in a daily summary). */
export function emailNotificationRecipients(db: Executor, userIds: readonly string[]) {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('users')
    .select(['id', 'email', 'full_name', 'locale'])
    .where('id', 'in', [...userIds])
    .where('email_notifications', '=', 1)
    .where('email_cadence', '=', 'minute')
    .execute();
}

/** What a notification mail names: the card and its board, and who did it. */
export async function notificationSubjects(db: Executor, cardIds: readonly string[], actorIds: readonly string[]) {
  const [cards, actors] = await Promise.all([
    cardIds.length === 0
      ? []
      : db
          .selectFrom('cards as c')
          .innerJoin('boards as b', 'b.id', 'c.board_id')
          .select(['c.id', 'c.name', 'c.board_id', 'b.name as board_name'])
          .where('c.id', 'in', [...cardIds])
          .execute(),
    actorIds.length === 0
      ? []
      : db
          .selectFrom('users')
          .select(['id', 'full_name'])
          .where('id', 'in', [...actorIds])
          .execute(),
  ]);
  return { cards: new Map(cards.map((card) => [card.id, card])), actors: new Map(actors.map((actor) => [actor.id, actor.full_name])) };
}

const FEED_ID = 'notifications';

/**
 * Locks the job's feed cursor for this transaction; undefined when another instance holds it (it
 * is skipped, not waited for: that instance is doing the work). `position` null: not started.
 */
export async function lockMailFeed(trx: Transaction): Promise<{ position: FeedPosition | null } | undefined> {
  const query = trx.selectFrom('mail_feed').select('position').where('id', '=', FEED_ID);
  return dialectOf(trx).fragments.skipLocked(query).executeTakeFirst();
}

export async function moveMailFeed(trx: Transaction, position: FeedPosition): Promise<void> {
  await trx.updateTable('mail_feed').set({ position }).where('id', '=', FEED_ID).execute();
}
