import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as webhooks from '../../../domain/webhooks/service.ts';
import { errorResponses, NoQuery, success } from '../../../schemas/common.ts';
import {
  CreateWebhookBody,
  CreateWebhookQuery,
  DeliveriesPage,
  Delivery,
  DeliveryParams,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  UpdateWebhookBody,
  Webhook,
  WebhookParams,
  WebhooksPage,
  WebhookWithSecret,
} from '../../../schemas/webhooks.ts';

const tags = ['webhooks'];
const WebhookAnswer = success('webhook', Webhook);
const who = 'Company owners and admins only (a member gets 403; a webhook of another company is a 404).';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const policy = { allowPrivateNetworks: app.config.webhooks.allowPrivateNetworks };

  app.post(
    '/webhooks',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        summary: 'Create Webhook',
        operationId: 'createWebhook',
        description: `Subscribes a URL to the events of the company \`companyId\`, narrowed by teams, boards and types. Answers the signing secret, shown only here. ${who}`,
        querystring: CreateWebhookQuery,
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecret, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const created = await webhooks.createWebhook(app.services, policy, request.caller, request.query.companyId, request.body);
      return reply.status(201).send({ message: 'Webhook created', ...created });
    },
  );

  app.get(
    '/webhooks',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        summary: 'Get Webhooks',
        operationId: 'getWebhooks',
        description: `The webhooks of the companies the caller owns or administers (or of \`companyId\`), oldest first. ${who}`,
        querystring: ListWebhooksQuery,
        response: { 200: WebhooksPage, ...errorResponses(403) },
      },
    },
    async (request) => {
      const page = await webhooks.listWebhooks(app.services, request.caller, request.query);
      return { message: 'Webhooks retrieved', webhooks: page.items, nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/webhooks/:webhookId',
    {
      config: { tier: 'very-low' },
      schema: { tags, summary: 'Get Webhook', operationId: 'getWebhook', description: who, params: WebhookParams, querystring: NoQuery, response: { 200: WebhookAnswer, ...errorResponses(403) } },
    },
    async (request) => ({ message: 'Webhook retrieved', webhook: await webhooks.getWebhook(app.services, request.caller, request.params.webhookId) }),
  );

  app.patch(
    '/webhooks/:webhookId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        summary: 'Update Webhook',
        operationId: 'updateWebhook',
        description: `Changes the URL, the filters or \`enabled\`; enabling clears \`disabledReason\`. ${who}`,
        params: WebhookParams,
        querystring: NoQuery,
        body: UpdateWebhookBody,
        response: { 200: WebhookAnswer, ...errorResponses(403) },
      },
    },
    async (request) => {
      const webhook = await webhooks.updateWebhook(app.services, policy, request.caller, request.params.webhookId, request.body);
      app.webhookDispatcher?.wake();
      return { message: 'Webhook updated', webhook };
    },
  );

  app.delete(
    '/webhooks/:webhookId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        summary: 'Delete Webhook',
        operationId: 'deleteWebhook',
        description: `Deletes the webhook and its deliveries. ${who}`,
        params: WebhookParams,
        querystring: NoQuery,
        response: { 200: WebhookAnswer, ...errorResponses(403) },
      },
    },
    async (request) => ({ message: 'Webhook deleted', webhook: await webhooks.deleteWebhook(app.services, request.caller, request.params.webhookId) }),
  );

  app.post(
    '/webhooks/:webhookId/rotate-secret',
    {
      config: { tier: 'secure' },
      schema: {
        tags,
        summary: 'Rotate Webhook Secret',
        operationId: 'rotateWebhookSecret',
        description: `Issues a new signing secret, shown only here; for 24 hours deliveries carry the signatures of both the new and the old secret. ${who}`,
        params: WebhookParams,
        querystring: NoQuery,
        response: { 200: WebhookWithSecret, ...errorResponses(403) },
      },
    },
    async (request) => ({ message: 'Webhook secret rotated', ...(await webhooks.rotateSecret(app.services, request.caller, request.params.webhookId)) }),
  );

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        summary: 'Get Webhook Deliveries',
        operationId: 'getWebhookDeliveries',
        description: `The webhook's deliveries, newest first: status, attempts, the last response and the next attempt. ${who}`,
        params: WebhookParams,
        querystring: ListDeliveriesQuery,
        response: { 200: DeliveriesPage, ...errorResponses(403) },
      },
    },
    async (request) => {
      const page = await webhooks.listDeliveries(app.services, request.caller, request.params.webhookId, request.query);
      return { message: 'Deliveries retrieved', deliveries: page.items, nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        summary: 'Redeliver',
        operationId: 'redeliverWebhookDelivery',
        description: `Sends the delivery again, with the same \`webhook-id\` and body, in its place in the webhook's order. ${who}`,
        params: DeliveryParams,
        querystring: NoQuery,
        response: { 200: success('delivery', Delivery), ...errorResponses(403) },
      },
    },
    async (request) => {
      const delivery = await webhooks.redeliver(app.services, request.caller, request.params.webhookId, request.params.deliveryId);
      app.webhookDispatcher?.wake();
      return { message: 'Delivery scheduled', delivery };
    },
  );
};

export default routes;
