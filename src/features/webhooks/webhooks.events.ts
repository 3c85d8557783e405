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
