import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { NotBlank, StringEnum } from '../../platform/http/schemas.ts';
import { APPOINTMENT_TYPES } from '../appointments/index.ts';
import { CalendarDate, Time } from '../booking/index.ts';

// Deciding a visit request (docs/decisions/0203-deciding-visit-requests.md): a confirmation names the
// slot the way POST /v1/appointments does (the request gives the contact and the property).

/** The longest decline reason kept. */
export const DECLINE_REASON_MAX_LENGTH = 1000;

export const VisitRequestIdParamsSchema = Type.Object(
  { id: Type.String({ description: 'vr_… identifier' }) },
  { additionalProperties: false },
);

export const ConfirmVisitRequestBodySchema = Type.Object(
  {
    agentId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'An active agent of the organization with booking hours (agt_…)',
    }),
    date: CalendarDate,
    startTime: Time,
    type: Type.Optional(StringEnum(APPOINTMENT_TYPES, { description: 'Default SHOWING' })),
  },
  {
    $id: 'ConfirmVisitRequestBody',
    additionalProperties: false,
    description:
      "A slot the agent offers (the free slots of GET /v1/booking/{slug}/availability); it lasts the agent's " +
      'slot length. The appointment is with the request’s contact, at its property.',
  },
);
export type ConfirmVisitRequestBody = Static<typeof ConfirmVisitRequestBodySchema>;

export const DeclineVisitRequestBodySchema = Type.Object(
  {
    reason: NotBlank({
      minLength: 1,
      maxLength: DECLINE_REASON_MAX_LENGTH,
      description: 'Why the visit will not happen (kept trimmed, shown as `declineReason`)',
    }),
  },
  { $id: 'DeclineVisitRequestBody', additionalProperties: false },
);
export type DeclineVisitRequestBody = Static<typeof DeclineVisitRequestBodySchema>;

export const leadsVisitsSchemas: TSchema[] = [ConfirmVisitRequestBodySchema, DeclineVisitRequestBodySchema];
