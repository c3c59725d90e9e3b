import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as webhooks from '../../../domain/webhooks/service.ts';
import { NoQuery } from '../../../schemas/common.ts';
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
import { keyedPage, operations } from '../../operation.ts';

const who = 'Company owners and admins only (a member gets 403; a webhook of another company is a 404).';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const policy = { allowPrivateNetworks: app.config.webhooks.allowPrivateNetworks };
  const route = operations(app, ['webhooks']);
  const webhook = ['webhook', Webhook] as const;

  route(
    'POST /webhooks',
    {
      tier: 'medium',
      operationId: 'createWebhook',
      summary: 'Create Webhook',
      description: `Subscribes a URL to the events of the company \`companyId\`, narrowed by teams, boards and types. Answers the signing secret, shown only here. ${who}`,
      querystring: CreateWebhookQuery,
      body: CreateWebhookBody,
      answer: WebhookWithSecret,
      status: 201,
      location: ({ webhook }) => `/api/v1/webhooks/${webhook._id}`,
      errors: [403],
      message: 'Webhook created',
    },
    ({ caller, query, body }) => webhooks.createWebhook(app.services, policy, caller, query.companyId, body),
  );

  route(
    'GET /webhooks',
    {
      tier: 'very-low',
      operationId: 'getWebhooks',
      summary: 'Get Webhooks',
      description: `The webhooks of the companies the caller owns or administers (or of \`companyId\`), oldest first. ${who}`,
      querystring: ListWebhooksQuery,
      answer: WebhooksPage,
      errors: [403],
      message: 'Webhooks retrieved',
    },
    async ({ caller, query }) => {
      const page = await webhooks.listWebhooks(app.services, caller, query);
      return keyedPage('webhooks', page);
    },
  );

  route(
    'GET /webhooks/:webhookId',
    {
      tier: 'very-low',
      operationId: 'getWebhook',
      summary: 'Get Webhook',
      description: who,
      params: WebhookParams,
      querystring: NoQuery,
      answer: webhook,
      errors: [403],
      message: 'Webhook retrieved',
    },
    ({ caller, params }) => webhooks.getWebhook(app.services, caller, params.webhookId),
  );

  route(
    'PATCH /webhooks/:webhookId',
    {
      tier: 'low',
      operationId: 'updateWebhook',
      summary: 'Update Webhook',
      description: `Changes the URL, the filters or \`enabled\`; enabling clears \`disabledReason\`. ${who}`,
      params: WebhookParams,
      querystring: NoQuery,
      body: UpdateWebhookBody,
      answer: webhook,
      errors: [403],
      message: 'Webhook updated',
    },
    async ({ caller, params, body }) => {
      const updated = await webhooks.updateWebhook(app.services, policy, caller, params.webhookId, body);
      app.webhookDispatcher?.wake();
      return updated;
    },
  );

  route(
    'DELETE /webhooks/:webhookId',
    {
      tier: 'low',
      operationId: 'deleteWebhook',
      summary: 'Delete Webhook',
      description: `Deletes the webhook and its deliveries. ${who}`,
      params: WebhookParams,
      querystring: NoQuery,
      answer: webhook,
      errors: [403],
      message: 'Webhook deleted',
    },
    ({ caller, params }) => webhooks.deleteWebhook(app.services, caller, params.webhookId),
  );

  route(
    'POST /webhooks/:webhookId/rotate-secret',
    {
      tier: 'secure',
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate Webhook Secret',
      description: `Issues a new signing secret, shown only here; for 24 hours deliveries carry the signatures of both the new and the old secret. ${who}`,
      params: WebhookParams,
      querystring: NoQuery,
      answer: WebhookWithSecret,
      errors: [403],
      message: 'Webhook secret rotated',
    },
    ({ caller, params }) => webhooks.rotateSecret(app.services, caller, params.webhookId),
  );

  route(
    'GET /webhooks/:webhookId/deliveries',
    {
      tier: 'very-low',
      operationId: 'getWebhookDeliveries',
      summary: 'Get Webhook Deliveries',
      description: `The webhook's deliveries, newest first: status, attempts, the last response and the next attempt. ${who}`,
      params: WebhookParams,
      querystring: ListDeliveriesQuery,
      answer: DeliveriesPage,
      errors: [403],
      message: 'Deliveries retrieved',
    },
    async ({ caller, params, query }) => {
      const page = await webhooks.listDeliveries(app.services, caller, params.webhookId, query);
      return keyedPage('deliveries', page);
    },
  );

  route(
    'POST /webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      tier: 'medium',
      operationId: 'redeliverWebhookDelivery',
      summary: 'Redeliver',
      description: `Sends the delivery again, with the same \`webhook-id\` and body, in its place in the webhook's order. ${who}`,
      params: DeliveryParams,
      querystring: NoQuery,
      answer: ['delivery', Delivery],
      errors: [403],
      message: 'Delivery scheduled',
    },
    async ({ caller, params }) => {
      const delivery = await webhooks.redeliver(app.services, caller, params.webhookId, params.deliveryId);
      app.webhookDispatcher?.wake();
      return delivery;
    },
  );
};

export default routes;
