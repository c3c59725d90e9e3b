/**
 * Creating notifications: called by the services whose changes tell someone (a member added, a
 * comment, a reply, a cheer, a reminder), inside their transaction, so a notification exists exactly
 * when its change committed. Each notification is also recorded as a `notification.created` event
 * addressed to its user, which the user's own stream (GET /api/v1/notifications/stream,
 * src/domain/events/board-stream.ts) and a NotificationSender (./sender.ts) deliver; a company's
 * webhook subscribed to `notification.*` receives those of all its members.
 */
import type { Notification, NotificationType } from '../../schemas/notifications.ts';
import type { Transaction } from '../../storage/database.ts';
import { insertNotifications, type NotificationRow } from '../../storage/repositories/notifications.ts';
import type { ReminderKey } from '../../storage/repositories/reminders.ts';
import { recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';
import { newId } from '../shared/ids.ts';
import { onCard } from '../shared/records.ts';
import { toNotification } from './records.ts';

/** What a notification is about: the card, and what on it. */
export interface NotificationAbout {
  card: { id: string; company_id: string; team_id: string; board_id: string };
  comment?: string | null;
  discussion?: string | null;
  cheer?: string | null;
  reminder?: ReminderKey | null;
}

/**
 * Notifies each of `userIds` once (repeats ignored), never the actor of the change (nobody is told
 * of their own action; a null actor is the system). Answers the notifications created, by user.
 */
export async function notify(
  trx: Transaction,
  actor: Caller | null,
  type: NotificationType,
  userIds: readonly string[],
  about: NotificationAbout,
  at: string,
): Promise<Map<string, Notification>> {
  const { card } = about;
  const rows: NotificationRow[] = [...new Set(userIds)]
    .filter((userId) => userId !== actor?.userId)
    .map((userId) => ({
      id: newId(),
      user_id: userId,
      type,
      ...onCard(card),
      comment_id: about.comment ?? null,
      discussion_id: about.discussion ?? null,
      cheer_id: about.cheer ?? null,
      reminder: about.reminder ?? null,
      actor_user_id: actor?.userId ?? null,
      read_at: null,
      created_at: at,
    }));
  await insertNotifications(trx, rows);
  const created = new Map<string, Notification>();
  for (const row of rows) {
    const notification = toNotification(row);
    const subject = { company: card.company_id, team: card.team_id, board: card.board_id, card: card.id, user: row.user_id };
    recordEvent(trx, actor, 'notification.created', subject, { notification }, at);
    created.set(row.user_id, notification);
  }
  return created;
}
