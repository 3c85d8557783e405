import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';

const SubscriptionRef = Type.Object(
  {
    id: Type.String({ description: 'wh_… identifier of the subscription' }),
    url: Type.String(),
  },
  { additionalProperties: false },
);

export const WebhookTest = defineEvent({
  type: 'webhook.test',
  description:
    'Sent by `POST /v1/webhooks/{id}/test` to that subscription only, whatever its event types: checks the ' +
    'URL, the signature verification and the answer of a receiver.',
  schema: Type.Object(
    { subscription: SubscriptionRef, message: Type.String() },
    { additionalProperties: false },
  ),
  example: {
    subscription: { id: 'wh_0VhJ3kQ2Zt8mX1pR4sT6uD', url: 'https://hooks.example-realty.com/agency' },
    message: 'This is a test event from agency-crm.',
  },
});

export const WebhookDisabled = defineEvent({
  type: 'webhook.disabled',
  description:
    'The service disabled a subscription: its URL answered 410 Gone (`reason` GONE), or every delivery to it ' +
    'failed for the configured period (`reason` FAILING, 3 days by default). Sent to the other subscriptions ' +
    'of the organization; re-enable it with `PATCH /v1/webhooks/{id}` `{"enabled": true}`.',
  schema: Type.Object(
    {
      subscription: SubscriptionRef,
      reason: Type.Union([Type.Literal('GONE'), Type.Literal('FAILING')]),
      failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    },
    { additionalProperties: false },
  ),
  example: {
    subscription: { id: 'wh_0VhJ3kQ2Zt8mX1pR4sT6uD', url: 'https://hooks.example-realty.com/agency' },
    reason: 'FAILING' as const,
    failingSince: '2027-03-26T10:15:00.000Z',
  },
});

/** A subscription as its own events show it: never its secret. */
const SubscriptionEventSchema = Type.Object(
  {
    id: Type.String({ description: 'wh_… identifier of the subscription' }),
    url: Type.String(),
    eventTypes: Type.Array(Type.String()),
    description: Type.String(),
    enabled: Type.Boolean(),
  },
  { additionalProperties: false },
);
const subscriptionExample = {
  id: 'wh_0VhJ3kQ2Zt8mX1pR4sT6uD',
  url: 'https://hooks.example-realty.com/agency',
  eventTypes: ['contact.*', 'deal.won'],
  description: 'CRM sync',
  enabled: true,
};

export const WebhookCreated = defineEvent({
  type: 'webhook.created',
  description:
    'A webhook subscription was added (through the API or the developer console); never its secret.',
  schema: Type.Object({ subscription: SubscriptionEventSchema }, { additionalProperties: false }),
  example: { subscription: subscriptionExample },
});

export const WebhookUpdated = defineEvent({
  type: 'webhook.updated',
  description:
    'A webhook subscription changed: URL, event types, description, or enabled by its owner. `data.changes` ' +
    'names the fields sent.',
  schema: Type.Object(
    {
      subscription: SubscriptionEventSchema,
      changes: Type.Array(Type.String(), { description: 'Names of the changed fields' }),
    },
    { additionalProperties: false },
  ),
  example: { subscription: { ...subscriptionExample, enabled: false }, changes: ['enabled'] },
});

export const WebhookDeleted = defineEvent({
  type: 'webhook.deleted',
  description: 'A webhook subscription was deleted with its delivery log; sent to the other subscriptions.',
  schema: Type.Object({ subscription: SubscriptionEventSchema }, { additionalProperties: false }),
  example: { subscription: subscriptionExample },
});

export const WebhookSecretRotated = defineEvent({
  type: 'webhook.secret_rotated',
  description:
    "A subscription's signing secret was replaced; the previous one also signs until `previousSecretExpiresAt`.",
  schema: Type.Object(
    {
      subscription: SubscriptionEventSchema,
      previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    },
    { additionalProperties: false },
  ),
  example: { subscription: subscriptionExample, previousSecretExpiresAt: '2027-03-27T10:15:00.000Z' },
});

export const WebhookDeliveryRetried = defineEvent({
  type: 'webhook.delivery_retried',
  description: 'A finished delivery was queued again by hand (resend), with a fresh retry schedule.',
  schema: Type.Object(
    {
      subscription: SubscriptionRef,
      delivery: Type.Object(
        { id: Type.String(), eventId: Type.String(), eventType: Type.String() },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  example: {
    subscription: { id: 'wh_0VhJ3kQ2Zt8mX1pR4sT6uD', url: 'https://hooks.example-realty.com/agency' },
    delivery: {
      id: 'whd_0VhJ3kQ2Zt8mX1pR4sT6uE',
      eventId: 'evt_0VhJ3kQ2Zt8mX1pR4sT6uF',
      eventType: 'deal.won',
    },
  },
});

export const WebhookRecovered = defineEvent({
  type: 'webhook.recovered',
  description:
    'Events since a time were queued again for a subscription (recover): failed deliveries retried and ' +
    'missed events added.',
  schema: Type.Object(
    {
      subscription: SubscriptionRef,
      since: Type.String({ format: 'date-time' }),
      retried: Type.Integer(),
      added: Type.Integer(),
    },
    { additionalProperties: false },
  ),
  example: {
    subscription: { id: 'wh_0VhJ3kQ2Zt8mX1pR4sT6uD', url: 'https://hooks.example-realty.com/agency' },
    since: '2027-03-26T00:00:00.000Z',
    retried: 3,
    added: 12,
  },
});
