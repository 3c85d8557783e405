import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { DataOf, ref, StringEnum } from '../../platform/http/schemas.ts';

/** The portal events SPEC.md names for POST /v1/events. */
export const ANALYTICS_EVENT_TYPES = [
  'PAGE_VIEW',
  'PROPERTY_VIEW',
  'SEARCH',
  'LEAD_FORM',
  'MESSAGING_CLICK',
  'CALL_CLICK',
  'SCHEDULE_CLICK',
  'SHARE_CLICK',
  'FINDER_SUBMIT',
] as const;
export type AnalyticsEventType = (typeof ANALYTICS_EVENT_TYPES)[number];

const EventTypeSchema = StringEnum(ANALYTICS_EVENT_TYPES, { description: 'What happened on the portal' });
const Day = (description: string) => Type.String({ format: 'date', description });

export const RecordAnalyticsEventBodySchema = Type.Object(
  {
    type: EventTypeSchema,
    propertyId: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'A property published on the portal (400 when unknown, unpublished or of another agency)',
      }),
    ),
    referrer: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the visitor came from' })),
  },
  { additionalProperties: false },
);
export type RecordAnalyticsEventBody = Static<typeof RecordAnalyticsEventBodySchema>;

export const AnalyticsAcceptedResponseSchema = DataOf(
  Type.Object({ success: Type.Literal(true) }, { additionalProperties: false }),
  { description: 'Accepted; the event is stored shortly after (the response does not confirm storage)' },
);

export const AnalyticsReportQuerySchema = Type.Object(
  {
    from: Type.Optional(Day('First UTC day, inclusive (default: 29 days before `to`)')),
    to: Type.Optional(Day('Last UTC day, inclusive (default: today)')),
    propertyId: Type.Optional(Type.String({ maxLength: 64, description: 'Only events of this property' })),
    type: Type.Optional(EventTypeSchema),
  },
  { additionalProperties: false },
);
export type AnalyticsReportQuery = Static<typeof AnalyticsReportQuerySchema>;

const Count = Type.Integer({ minimum: 0 });

export const AnalyticsReportSchema = Type.Object(
  {
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    propertyId: Type.Union([Type.String(), Type.Null()], { description: 'The property filter, if any' }),
    type: Type.Union([EventTypeSchema, Type.Null()], { description: 'The type filter, if any' }),
    total: Type.Integer({ minimum: 0, description: 'Events in the range (after the filters)' }),
    totals: Type.Object(
      Object.fromEntries(ANALYTICS_EVENT_TYPES.map((type) => [type, Count])) as Record<
        AnalyticsEventType,
        typeof Count
      >,
      { additionalProperties: false, description: 'Events per type in the range; every type, 0 when none' },
    ),
    byDay: Type.Array(
      Type.Object(
        { date: Type.String({ format: 'date' }), type: EventTypeSchema, count: Count },
        { additionalProperties: false },
      ),
      { description: 'Counts per UTC day and type, oldest first; days without events are absent' },
    ),
    byProperty: Type.Array(
      Type.Object(
        { propertyId: Type.String(), type: EventTypeSchema, count: Count },
        { additionalProperties: false },
      ),
      {
        description:
          'The top 50 (property, type) pairs by count in the range; events without a property are left out',
      },
    ),
  },
  { $id: 'AnalyticsReport', additionalProperties: false },
);
export type AnalyticsReport = Static<typeof AnalyticsReportSchema>;

export const AnalyticsReportResponseSchema = DataOf(ref(AnalyticsReportSchema));

export const analyticsSchemas: TSchema[] = [AnalyticsReportSchema];
