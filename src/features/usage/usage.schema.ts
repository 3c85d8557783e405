import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { BatchBody, BatchItemErrorSchema } from '../../platform/http/batch.ts';
import { DataOf, DateTime, ERROR_MESSAGES, NotBlank, ref } from '../../platform/http/schemas.ts';

/** Largest `props` accepted, measured as its JSON text in UTF-8 (docs/decisions/0133-usage-event-fields.md). */
export const USAGE_PROPS_MAX_BYTES = 8 * 1024;

// SPEC.md "POST /v1/usage/events" and its Limits row; contactId and email get sane maxima of our own.
export const RecordUsageEventBodySchema = Type.Object(
  {
    name: NotBlank({
      minLength: 1,
      maxLength: 60,
      description: 'What the person did in your product (e.g. `report.exported`); the aggregation key',
    }),
    label: Type.Optional(Type.String({ maxLength: 80, description: 'Human-readable text for this event' })),
    props: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: `Free-form details, kept with the raw event; at most ${USAGE_PROPS_MAX_BYTES} bytes as JSON`,
        },
      ),
    ),
    contactId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'The contact (ct_…); tried first' }),
    ),
    externalId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "The contact's id in your system (the contact's `externalId`); tried second",
      }),
    ),
    email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description: "The contact's email, compared case-insensitively; tried last",
      }),
    ),
    companyId: Type.Optional(
      Type.String({ maxLength: 200, description: "The customer's account or company in your system" }),
    ),
    actorLabel: Type.Optional(
      Type.String({ maxLength: 120, description: 'Who acted, as your product names them' }),
    ),
    occurredAt: Type.Optional(
      DateTime({
        description:
          'When it happened (default: when received); from 2000-01-01 up to 24 hours ahead. Counted on its UTC day',
      }),
    ),
  },
  {
    $id: 'RecordUsageEventBody',
    additionalProperties: false,
    // `occurredAt` in the past: accepted whenever the example is sent (a date ahead would be refused
    // once more than 24 hours ahead of the server's clock).
    examples: [
      {
        name: 'report.exported',
        label: 'Exported the monthly report',
        props: { format: 'pdf', pages: 12 },
        contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uE',
        companyId: 'acme-inc',
        actorLabel: 'Lucía García',
        occurredAt: '2026-03-29T10:15:00.000Z',
      },
    ],
    description:
      'Names its owner by at least one of `contactId`, `externalId` or `email` (tried in that order)',
    anyOf: [{ required: ['contactId'] }, { required: ['externalId'] }, { required: ['email'] }],
    [ERROR_MESSAGES]: { anyOf: 'must include at least one of contactId, externalId or email' },
  },
);
export type RecordUsageEventBody = Static<typeof RecordUsageEventBodySchema>;

export const UsageEventReceiptSchema = Type.Object(
  { success: Type.Literal(true) },
  {
    $id: 'UsageEventReceipt',
    additionalProperties: false,
    description: 'Accepted; also when no contact matches (then nothing is stored)',
  },
);

export const UsageEventResponseSchema = DataOf(ref(UsageEventReceiptSchema));

/** The most events one batch takes (POST /v1/usage/events/batch, decision 0184). */
export const MAX_USAGE_BATCH = 500;
/** Events of a batch that count as one write against the write limits (decision 0183). */
export const USAGE_EVENTS_PER_WRITE_POINT = 50;

export const UsageEventBatchBodySchema = BatchBody('events', RecordUsageEventBodySchema, {
  $id: 'UsageEventBatchBody',
  maxItems: MAX_USAGE_BATCH,
  description: 'Usage events to record, each the body of POST /v1/usage/events',
  example: [
    { name: 'report.exported', externalId: 'crm-7781', occurredAt: '2026-03-29T10:15:00.000Z' },
    { name: 'login', email: 'lucia.garcia@example.com', props: { plan: 'pro' } },
    { name: 'login', contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uE', occurredAt: '2099-01-01T00:00:00.000Z' },
  ],
});
export type UsageEventBatchBody = Static<typeof UsageEventBatchBodySchema>;

export const UsageEventBatchResultSchema = Type.Object(
  {
    accepted: Type.Integer({
      minimum: 0,
      description:
        'Events that passed their checks; stored for the contact they name (an event that names no contact ' +
        'is accepted and stores nothing, as POST /v1/usage/events answers it)',
    }),
    rejected: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0, description: "The event's position in `events`" }),
          error: ref(BatchItemErrorSchema),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Events refused, each with the 400 POST /v1/usage/events would answer; nothing of them stored',
      },
    ),
  },
  {
    $id: 'UsageEventBatchResult',
    additionalProperties: false,
    description: 'What the batch recorded',
    examples: [
      {
        accepted: 2,
        rejected: [
          {
            index: 2,
            error: {
              code: 'VALIDATION_ERROR',
              message: 'body.events[2].occurredAt must not be more than 24 hours in the future',
              details: [
                {
                  field: 'body.events[2].occurredAt',
                  message: 'must not be more than 24 hours in the future',
                },
              ],
            },
          },
        ],
      },
    ],
  },
);
export type UsageEventBatchResult = Static<typeof UsageEventBatchResultSchema>;

export const UsageEventBatchResponseSchema = DataOf(ref(UsageEventBatchResultSchema));

const Day = (description: string) => Type.String({ format: 'date', description });

export const ContactUsageParamsSchema = Type.Object(
  { id: Type.String({ description: 'Contact id (ct_…)' }) },
  { additionalProperties: false },
);

export const ContactUsageQuerySchema = Type.Object(
  {
    from: Type.Optional(Day('First UTC day, inclusive (default: 29 days before `to`)')),
    to: Type.Optional(Day('Last UTC day, inclusive (default: today)')),
  },
  { additionalProperties: false },
);
export type ContactUsageQuery = Static<typeof ContactUsageQuerySchema>;

const Count = Type.Integer({ minimum: 1 });

export const ContactUsageSchema = Type.Object(
  {
    contactId: Type.String(),
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    totals: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          count: Count,
          firstOccurredAt: Type.String({ format: 'date-time' }),
          lastOccurredAt: Type.String({ format: 'date-time' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Per event name over the range, by name; names without events are absent' },
    ),
    byDay: Type.Array(
      Type.Object(
        { date: Type.String({ format: 'date' }), name: Type.String(), count: Count },
        { additionalProperties: false },
      ),
      { description: 'Counts per UTC day and name, oldest first; days without events are absent' },
    ),
  },
  { $id: 'ContactUsage', additionalProperties: false },
);
export type ContactUsage = Static<typeof ContactUsageSchema>;

export const ContactUsageResponseSchema = DataOf(ref(ContactUsageSchema));

export const usageSchemas: TSchema[] = [
  RecordUsageEventBodySchema,
  UsageEventReceiptSchema,
  UsageEventBatchBodySchema,
  UsageEventBatchResultSchema,
  ContactUsageSchema,
];
