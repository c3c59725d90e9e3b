import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listNotifications, markAllNotificationsRead, markNotificationRead } from '../../../domain/notifications/service.ts';
import { errorResponses, NoQuery, success } from '../../../schemas/common.ts';
import { Notification, NotificationParams, NotificationsAnswer, NotificationsQuery, ReadAllAnswer } from '../../../schemas/notifications.ts';

const tags = ['notifications'];

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/notifications',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        summary: 'List Notifications',
        operationId: 'listNotifications',
        description: "The caller's own notifications, newest first, `limit` per page; `unread=true`: only those not read yet.",
        querystring: NotificationsQuery,
        response: { 200: NotificationsAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const page = await listNotifications(app.services, request.caller, request.query);
      return { message: 'Notifications', notifications: page.items, nextCursor: page.nextCursor };
    },
  );

  app.patch(
    '/notifications/read-all',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        summary: 'Mark All Notifications Read',
        operationId: 'markAllNotificationsRead',
        description: "Marks every unread notification of the caller read; answers how many were.",
        querystring: NoQuery,
        response: { 200: ReadAllAnswer, ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Notifications read', updated: await markAllNotificationsRead(app.services, request.caller) }),
  );

  app.patch(
    '/notifications/:notificationId/read',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        summary: 'Mark Notification Read',
        operationId: 'markNotificationRead',
        description: "Marks one of the caller's notifications read (404 for anyone else's); again keeps the first `readAt`.",
        params: NotificationParams,
        querystring: NoQuery,
        response: { 200: success('notification', Notification), ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Notification read', notification: await markNotificationRead(app.services, request.caller, request.params.notificationId) }),
  );
};

export default routes;
