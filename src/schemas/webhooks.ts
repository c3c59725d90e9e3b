import { type Static, Type } from 'typebox';
import { Id, IdOf, NullableTimestamp, TEXT_CAPS, Text, Timestamp } from './common.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';

export const WebhookParams = Type.Object({ webhookId: Id }, { additionalProperties: false });
export const DeliveryParams = Type.Object({ webhookId: Id, deliveryId: Id }, { additionalProperties: false });

/** An event type (`card.updated`), a family of them (`card.*`), or every type (`*`). */
const TypePattern = Type.String({
  pattern: '^(\\*|[a-z][a-zA-Z]*(\\.[a-z][a-zA-Z]*)*(\\.\\*)?)$',
  maxLength: 100,
  description: 'an event type (`card.updated`), a family (`card.*`: every type starting `card.`), or `*` (every type)',
});

const Url = Text({ maxLength: TEXT_CAPS.url, blank: false, description: 'where deliveries are POSTed: an http or https URL whose host is a public address' });
const Teams = Type.Array(Id, { maxItems: 100, description: 'only events of these teams (empty or absent: every team of the company)' });
const Boards = Type.Array(Id, { maxItems: 100, description: 'only events of these boards (empty or absent: every board)' });
const Types = Type.Array(TypePattern, { minItems: 1, maxItems: 100, description: 'the event types to receive' });

export const CreateWebhookQuery = Type.Object({ companyId: IdOf('the company whose events the webhook receives') }, { additionalProperties: false });

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    teams: Type.Optional(Teams),
    boards: Type.Optional(Boards),
    types: Types,
    enabled: Type.Optional(Type.Boolean({ description: 'default true' })),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    teams: Type.Optional(Teams),
    boards: Type.Optional(Boards),
    types: Type.Optional(Types),
    enabled: Type.Optional(Type.Boolean({ description: 'true also clears `disabledReason` and makes pending deliveries due now' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ListWebhooksQuery = Type.Object(
  { companyId: Type.Optional(IdOf('only the webhooks of this company')), ...PageQueryFields },
  { additionalProperties: false },
);

export const ListDeliveriesQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')])),
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

export const Webhook = Type.Object(
  {
    _id: Id,
    company: Id,
    url: Type.String(),
    teams: Type.Array(Id),
    boards: Type.Array(Id),
    types: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    disabledReason: Type.Union([Type.String(), Type.Null()], { description: 'why the service disabled it (its deliveries failed for 3 days); null otherwise' }),
    previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], { description: 'after a rotation: until when the old secret still signs too' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Integer(),
  },
  { $id: 'Webhook' },
);
export type Webhook = Static<typeof Webhook>;

export const Secret = Type.String({
  description: 'the signing secret (`whsec_…`, Standard Webhooks); shown only now',
  examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
});

export const Delivery = Type.Object(
  {
    _id: IdOf('the delivery, sent as `webhook-id` on every attempt'),
    webhook: Id,
    event: IdOf('the event delivered'),
    type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    lastAttemptAt: NullableTimestamp,
    nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'when pending: the next attempt is due then' }),
    deliveredAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  { $id: 'WebhookDelivery' },
);
export type Delivery = Static<typeof Delivery>;

export const WebhookWithSecret = Type.Object({ message: Type.String(), webhook: Webhook, secret: Secret });
export const WebhooksPage = Type.Object({ message: Type.String(), webhooks: Type.Array(Webhook), nextCursor: NextCursor });
export const DeliveriesPage = Type.Object({ message: Type.String(), deliveries: Type.Array(Delivery), nextCursor: NextCursor });
