import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DateTime, StringEnum, ref } from '../../platform/http/schemas.ts';

export const TIMELINE_TYPES = [
  'NOTE',
  'LEAD',
  'VISIT_REQUEST',
  'APPOINTMENT',
  'DEAL',
  'DEAL_MOVE',
  'MESSAGE',
  'USAGE',
] as const;
export type TimelineType = (typeof TIMELINE_TYPES)[number];

export const TimelineItemSchema = Type.Object(
  {
    type: StringEnum(TIMELINE_TYPES, {
      description:
        'What happened: a note, a portal form (LEAD, VISIT_REQUEST), an appointment, a deal, a deal moved to ' +
        'another stage (DEAL_MOVE), a message (with ' +
        '`conversations:read` only), or a day of product usage (USAGE)',
    }),
    id: Type.String({ description: 'The record’s id (`usage_<day>` for a USAGE day)' }),
    at: DateTime({ description: 'When it happened (a USAGE day: its start, UTC)' }),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'By type. NOTE: body, authorAgentId. LEAD: propertyId, message, utmSource, outcome, matchedOn. ' +
          'VISIT_REQUEST: propertyId, status, preferredDate, preferredTime, appointmentId, declineReason, decidedAt. APPOINTMENT: agentId, propertyId, type, status, startsAt. DEAL: ' +
          'title, status, stageId, value. DEAL_MOVE: dealId, dealTitle, pipelineId, fromStageId, fromStageName, ' +
          "toStageId, toStageName, status (the deal's after the move), lostReason, automated, actorKind (USER, " +
          'AUTOMATION, API). MESSAGE: direction, status, body. USAGE: day, events (the day’s total).',
      },
    ),
  },
  { $id: 'TimelineItem', additionalProperties: false },
);
export type TimelineItem = Static<typeof TimelineItemSchema>;

export const TimelineParamsSchema = Type.Object(
  { id: Type.String({ description: 'ct_… identifier of the contact' }) },
  { additionalProperties: false },
);
export const TimelineQuerySchema = Type.Object({ ...pageQuery() }, { additionalProperties: false });
export type TimelineQuery = Static<typeof TimelineQuerySchema>;
export const TimelineResponseSchema = ListOf(ref(TimelineItemSchema));
export const timelineSchemas = [TimelineItemSchema];
