import { Type, type Static } from '@fastify/type-provider-typebox';
import { DateOrDateTime } from '../../platform/http/dates.ts';
import { EventEnvelopeSchema, EventTypePatternRef } from '../../platform/events/envelope.ts';
import { DataOf, ref, StringEnum } from '../../platform/http/schemas.ts';

export const EVENT_LOG_MAX_PAGE_SIZE = 100;
export const EVENT_LOG_DEFAULT_PAGE_SIZE = 25;
/** At most this many `type` filters in one query. */
export const MAX_TYPE_FILTERS = 20;

const Sequence = (description: string) =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

export const ListEventLogQuerySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Array(EventTypePatternRef(), {
        minItems: 1,
        maxItems: MAX_TYPE_FILTERS,
        description:
          'Only these types: an exact type (`deal.won`), `object.*` or `*`; repeat the parameter for more ' +
          '(`type=contact.*&type=deal.won`)',
      }),
    ),
    after: Type.Optional(
      Sequence('Only events whose `sequence` is greater: pass the last page’s `meta.nextCursor` (order asc)'),
    ),
    before: Type.Optional(
      Sequence(
        'Only events whose `sequence` is smaller: pass the last page’s `meta.nextCursor` (order desc)',
      ),
    ),
    createdAfter: Type.Optional(DateOrDateTime('Recorded at or after (a date means its start, UTC)')),
    createdBefore: Type.Optional(DateOrDateTime('Recorded strictly before (a date means its start, UTC)')),
    order: Type.Optional(
      StringEnum(['asc', 'desc'], { description: 'By `sequence`: oldest first (default) or newest first' }),
    ),
    pageSize: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: EVENT_LOG_MAX_PAGE_SIZE,
        default: EVENT_LOG_DEFAULT_PAGE_SIZE,
        description: `Items per page, at most ${EVENT_LOG_MAX_PAGE_SIZE}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListEventLogQuery = Static<typeof ListEventLogQuerySchema>;

export const EventLogMetaSchema = Type.Object(
  {
    pageSize: Type.Integer({ minimum: 1 }),
    hasMore: Type.Boolean({ description: 'More events matched than this page holds' }),
    nextCursor: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        'order asc: the `after` of the next request, also on the last page (poll with it for newer events); ' +
        'order desc: the `before` of the next page, null on the last one',
    }),
  },
  { $id: 'EventLogMeta', additionalProperties: false },
);

export const EventLogListResponseSchema = Type.Object(
  { data: Type.Array(ref(EventEnvelopeSchema)), meta: ref(EventLogMetaSchema) },
  { additionalProperties: false },
);
export const EventLogEntryResponseSchema = DataOf(ref(EventEnvelopeSchema));
export const EventIdParamsSchema = Type.Object(
  { id: Type.String({ description: 'evt_… identifier' }) },
  { additionalProperties: false },
);

export const eventLogSchemas = [EventLogMetaSchema];
