import type { Notification, NotificationType } from '../../schemas/notifications.ts';
import type { NotificationRow } from '../../storage/repositories/notifications.ts';

/** The Notification record of a row. */
export function toNotification(row: NotificationRow): Notification {
  return {
    _id: row.id,
    type: row.type as NotificationType,
    user: row.user_id,
    company: row.company_id,
    team: row.team_id,
    card: row.card_id,
    comment: row.comment_id,
    discussion: row.discussion_id,
    cheer: row.cheer_id,
    reminder: row.reminder as Notification['reminder'],
    actor: row.actor_user_id,
    readAt: row.read_at,
    createdAt: row.created_at,
  };
}
