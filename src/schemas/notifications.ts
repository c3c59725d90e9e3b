import { type Static, Type } from 'typebox';
import { Id, IdOf, NullableTimestamp, Timestamp } from './common.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';

const NullableId = (description: string) => Type.Union([IdOf(description), Type.Null()]);

export const Notification = Type.Object({
  _id: Id,
  type: Type.Union(
    [
      Type.Literal('card.reminder'),
      Type.Literal('card.assigned'),
      Type.Literal('cheer.received'),
      Type.Literal('comment.created'),
      Type.Literal('comment.replied'),
      Type.Literal('rule.notified'),
    ],
    {
      description:
        'card.reminder: a date of a card the user is on comes in a day or an hour; card.assigned: the user was added to a card; ' +
        'cheer.received: someone cheered what the user made; comment.created: a comment on a card the user is a member of; ' +
        "comment.replied: a reply (discussion) under the user's comment; rule.notified: a board rule notifies the card's members",
    },
  ),
  user: IdOf('the user the notification belongs to'),
  company: NullableId('the company of the card'),
  team: NullableId('the team of the card'),
  card: NullableId('the card it is about'),
  comment: NullableId('the comment (comment.created, comment.replied, a cheer on a comment or reply)'),
  discussion: NullableId('the reply (comment.replied, a cheer on a reply)'),
  cheer: NullableId('the cheer (cheer.received)'),
  reminder: Type.Union([Type.Literal('startOneHour'), Type.Literal('startOneDay'), Type.Literal('dueOneHour'), Type.Literal('dueOneDay'), Type.Null()], {
    description: "which reminder (card.reminder): the card's `isNotified` flag it set",
  }),
  actor: NullableId('who did it; null for a reminder (the system)'),
  readAt: NullableTimestamp,
  createdAt: Timestamp,
});
export type Notification = Static<typeof Notification>;
export type NotificationType = Notification['type'];

export const NotificationsQuery = Type.Object(
  {
    unread: Type.Optional(Type.Boolean({ description: 'true: only notifications not read yet' })),
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

export const NotificationParams = Type.Object({ notificationId: Id }, { additionalProperties: false });

export const NotificationsAnswer = Type.Object({
  message: Type.String(),
  notifications: Type.Array(Notification, { description: "the caller's notifications, newest first" }),
  nextCursor: NextCursor,
});

export const ReadAllAnswer = Type.Object({
  message: Type.String(),
  updated: Type.Integer({ description: 'how many notifications were unread and are now read' }),
});
