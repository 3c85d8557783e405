import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { WEBHOOK_DELIVERY_STATUSES } from '../../db/schema.ts';
import {
  EventEnvelopeSchema,
  EventTypePatternRef,
  eventTypePatternSchema,
} from '../../platform/events/envelope.ts';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, ref, StringEnum, Nullable } from '../../platform/http/schemas.ts';
import { MAX_URL_LENGTH } from './webhooks.ssrf.ts';

/** At most this many subscriptions per organization (a 403 beyond). */
export const MAX_SUBSCRIPTIONS = 20;
export const MAX_EVENT_TYPES = 100;
/** `recover` queues at most this many deliveries per call (the answer says how many, and if more wait). */
export const MAX_RECOVER = 10_000;
/** A backfill's deliveries fall due this many per second, so live deliveries pass between them. */
export const BACKFILL_PER_SECOND = 20;

const EventTypes = Type.Array(EventTypePatternRef(), {
  minItems: 1,
  maxItems: MAX_EVENT_TYPES,
  uniqueItems: true,
});

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'https URL whose host resolves only to public addresses',
});
const Description = Type.String({ maxLength: 500 });

export const WebhookSubscriptionSchema = Type.Object(
  {
    id: Type.String({ description: 'wh_… identifier' }),
    url: Type.String(),
    eventTypes: Type.Array(Type.String()),
    description: Type.String(),
    enabled: Type.Boolean(),
    disabledReason: Nullable(
      StringEnum(['GONE', 'FAILING'] as const, {
        description: 'Why the service disabled it (410 Gone, or failing for days); null otherwise',
      }),
    ),
    previousSecretExpiresAt: Nullable(
      DateTime({ description: 'After a rotation: until when the old secret still signs too' }),
    ),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'WebhookSubscription', additionalProperties: false },
);
export type WebhookSubscription = Static<typeof WebhookSubscriptionSchema>;

const WithSecret = Type.Object(
  {
    ...WebhookSubscriptionSchema.properties,
    secret: Type.String({ description: 'Signing secret (`whsec_…`): shown only in this answer' }),
  },
  { $id: 'WebhookSubscriptionWithSecret', additionalProperties: false },
);
export type WebhookSubscriptionWithSecret = Static<typeof WithSecret>;

export const CreateWebhookBodySchema = Type.Object(
  { url: Url, eventTypes: EventTypes, description: Type.Optional(Description) },
  { $id: 'CreateWebhookBody', additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBodySchema>;

export const UpdateWebhookBodySchema = Type.Object(
  {
    url: Type.Optional(Url),
    eventTypes: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({ description: 'true re-enables a subscription the service disabled' }),
    ),
  },
  {
    $id: 'UpdateWebhookBody',
    additionalProperties: false,
    minProperties: 1,
    examples: [{ eventTypes: ['contact.created', 'deal.won'], enabled: true }],
  },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBodySchema>;

export const WebhookAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({
      minimum: 1,
      description: 'Counts every attempt of the delivery, replays included',
    }),
    startedAt: DateTime(),
    durationMs: Nullable(
      Type.Integer({
        minimum: 0,
        description:
          'null while the attempt is in flight, and for an attempt whose worker stopped before writing ' +
          'its outcome (its `error` says so: the receiver may have received it)',
      }),
    ),
    statusCode: Nullable(Type.Integer({ description: 'null when no answer came' })),
    error: Nullable(
      Type.String({
        description: 'timeout, connection refused, blocked address, no outcome recorded, ...',
      }),
    ),
    responseBody: Nullable(Type.String({ description: 'First 2 KB of the answer' })),
    requestHeaders: Nullable(
      Type.Record(Type.String(), Type.String(), {
        description:
          'Headers sent: content type, user agent, webhook-id, timestamp and signatures (null: none sent)',
      }),
    ),
    responseHeaders: Nullable(
      Type.Record(Type.String(), Type.String(), {
        description: "The answer's first 30 headers, 4 KB at most (null: no answer)",
      }),
    ),
  },
  { $id: 'WebhookAttempt', additionalProperties: false },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'whd_… identifier' }),
    subscriptionId: Type.String(),
    eventId: Type.String({ description: 'The envelope `id` (and `webhook-id`): the same on every attempt' }),
    eventType: Type.String(),
    status: StringEnum(WEBHOOK_DELIVERY_STATUSES),
    attemptCount: Type.Integer({ minimum: 0, description: 'Attempts since it was (re)queued' }),
    nextAttemptAt: Nullable(DateTime({ description: 'When a PENDING delivery is tried next' })),
    lastStatusCode: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    createdAt: DateTime(),
    completedAt: Nullable(DateTime()),
    attempts: Type.Array(ref(WebhookAttemptSchema), { description: 'Oldest first' }),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const ListDeliveriesQuerySchema = Type.Object(
  {
    ...pageQuery(),
    status: Type.Optional(StringEnum(WEBHOOK_DELIVERY_STATUSES)),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Exact event type' })),
    since: Type.Optional(DateTime({ description: 'Deliveries created at or after this instant' })),
  },
  { additionalProperties: false },
);
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuerySchema>;

export const RecoverBodySchema = Type.Object(
  {
    since: DateTime({
      description:
        'Queue the events recorded at or after this instant that the subscription has not received ' +
        '(at most EVENT_LOG_RETENTION_DAYS back)',
    }),
  },
  { $id: 'RecoverWebhookBody', additionalProperties: false },
);

/** The longest a rotated-out secret keeps signing. */
export const MAX_ROTATION_OVERLAP_HOURS = 168;

export const RotateSecretBodySchema = Type.Object(
  {
    overlapHours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROTATION_OVERLAP_HOURS,
        default: 24,
        description: 'Hours the previous secret keeps signing too (0 = not at all); default 24, at most 168',
      }),
    ),
  },
  { $id: 'RotateWebhookSecretBody', additionalProperties: false },
);

export const WebhookIdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });
export const DeliveryIdParamsSchema = Type.Object(
  { deliveryId: Type.String() },
  { additionalProperties: false },
);
export const SampleParamsSchema = Type.Object(
  { type: Type.String({ description: 'Exact catalog type' }) },
  { additionalProperties: false },
);

export const WebhookResponseSchema = DataOf(ref(WebhookSubscriptionSchema));
export const WebhookWithSecretResponseSchema = DataOf(ref(WithSecret));
export const WebhookListResponseSchema = ListOf(ref(WebhookSubscriptionSchema));
export const DeliveryResponseSchema = DataOf(ref(WebhookDeliverySchema));
export const DeliveryListResponseSchema = ListOf(ref(WebhookDeliverySchema));
export const TestEventResponseSchema = DataOf(
  Type.Object(
    { eventId: Type.String(), deliveryId: Type.String() },
    { additionalProperties: false, description: 'The webhook.test event and its one delivery' },
  ),
);
export const RecoverResponseSchema = DataOf(
  Type.Object(
    {
      requeued: Type.Integer({ minimum: 0, description: `retried + added: at most ${MAX_RECOVER} per call` }),
      retried: Type.Integer({ minimum: 0, description: 'FAILED deliveries queued again' }),
      added: Type.Integer({
        minimum: 0,
        description: 'Events it never had a delivery for (recorded while it was disabled, for example)',
      }),
      hasMore: Type.Boolean({
        description: `More than ${MAX_RECOVER} were waiting: call again with the same since for the rest`,
      }),
    },
    { additionalProperties: false },
  ),
);
export const SampleResponseSchema = Type.Object(
  {
    data: ref(EventEnvelopeSchema),
    meta: Type.Object(
      { synthetic: Type.Boolean({ description: 'true: no real event of this type yet; null leaves' }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** The feature's named schemas; the event-type pattern is read from the catalog as it stands. */
export const webhooksSchemas = (): TSchema[] => [
  eventTypePatternSchema(),
  WebhookSubscriptionSchema,
  WithSecret,
  CreateWebhookBodySchema,
  UpdateWebhookBodySchema,
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  RecoverBodySchema,
  RotateSecretBodySchema,
  EventEnvelopeSchema,
];
