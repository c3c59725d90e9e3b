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
      Type.Literal('card.mentioned'),
      Type.Literal('card.overdue'),
    ],
    {
      description:
        'card.reminder: a date of a card the user is on comes in a day or an hour; card.assigned: the user was added to a card; ' +
        'cheer.received: someone cheered what the user made; comment.created: a comment on a card the user is a member of; ' +
        "comment.replied: a reply (discussion) under the user's comment; rule.notified: a board rule notifies the card's members; " +
        'card.mentioned: someone wrote `@Handle` of the user in a comment, a reply or the description (`comment`, `discussion` say which; both null: the description); ' +
        'card.overdue: the due date of a card the user is on (or watches) passed while it is incomplete',
    },
  ),
  user: IdOf('the user the notification belongs to'),
  company: NullableId('the company of the card'),
  team: NullableId('the team of the card'),
  card: NullableId('the card it is about'),
  comment: NullableId('the comment (comment.created, comment.replied, card.mentioned in a comment or reply, a cheer on a comment or reply)'),
  discussion: NullableId('the reply (comment.replied, card.mentioned in a reply, a cheer on a reply)'),
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

const NullableText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/**
 * A notification as the caller's list shows it: the Notification and the words that tell it (who,
 * which card on which board, a snippet of what was written), read with the page in a few queries.
 */
export const ListedNotification = Type.Object({
  ...Notification.properties,
  actorName: NullableText("the actor's full name; null for the system (a reminder, a rule)"),
  board: NullableId('the board of the card'),
  boardName: NullableText("the board's name; null when the card is gone"),
  cardName: NullableText("the card's name; null when the card is gone"),
  snippet: NullableText(
    'the start of what was written (the reply, else the comment, else the description for a mention in it; Markdown as written), at most 140 characters; null when there is none or it is gone',
  ),
});
export type ListedNotification = Static<typeof ListedNotification>;

export const NotificationsAnswer = Type.Object({
  message: Type.String(),
  notifications: Type.Array(ListedNotification, { description: "the caller's notifications, newest first, with their words" }),
  nextCursor: NextCursor,
});

export const ReadAllAnswer = Type.Object({
  message: Type.String(),
  updated: Type.Integer({ description: 'how many notifications were unread and are now read' }),
});
