import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listNotifications, markAllNotificationsRead, markNotificationRead } from '../../../domain/notifications/service.ts';
import { NoQuery } from '../../../schemas/common.ts';
import { Notification, NotificationParams, NotificationsAnswer, NotificationsQuery, ReadAllAnswer } from '../../../schemas/notifications.ts';
import { keyedPage, operations } from '../../operation.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['notifications']);

  route(
    'GET /notifications',
    {
      tier: 'very-low',
      operationId: 'listNotifications',
      summary: 'List Notifications',
      description: "The caller's own notifications, newest first, `limit` per page; `unread=true`: only those not read yet.",
      querystring: NotificationsQuery,
      answer: NotificationsAnswer,
      message: 'Notifications',
    },
    async ({ caller, query }) => {
      const page = await listNotifications(app.services, caller, query);
      return keyedPage('notifications', page);
    },
  );

  route(
    'PATCH /notifications/read-all',
    {
      tier: 'low',
      operationId: 'markAllNotificationsRead',
      summary: 'Mark All Notifications Read',
      description: 'Marks every unread notification of the caller read; answers how many were.',
      querystring: NoQuery,
      answer: ReadAllAnswer,
      message: 'Notifications read',
    },
    async ({ caller }) => ({ updated: await markAllNotificationsRead(app.services, caller) }),
  );

  route(
    'PATCH /notifications/:notificationId/read',
    {
      tier: 'low',
      operationId: 'markNotificationRead',
      summary: 'Mark Notification Read',
      description: "Marks one of the caller's notifications read (404 for anyone else's); again keeps the first `readAt`.",
      params: NotificationParams,
      querystring: NoQuery,
      answer: ['notification', Notification],
      message: 'Notification read',
    },
    ({ caller, params }) => markNotificationRead(app.services, caller, params.notificationId),
  );
};

export default routes;
