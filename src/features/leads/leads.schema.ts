import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { DataOf, ref, StringEnum } from '../../platform/http/schemas.ts';
import { TRANSACTION_TYPES } from '../properties/index.ts';
import { PortalPersonFields } from '../contacts/index.ts';

/** Part of the day a visitor would like to visit (docs/decisions/0046-visit-request-schedule.md). */
export const PREFERRED_TIMES = ['morning', 'afternoon', 'evening'] as const;
/** A visit request waits for the agency: PENDING until it is confirmed or turned down. */
export const VISIT_REQUEST_STATUSES = ['PENDING', 'CONFIRMED', 'DECLINED', 'CANCELLED'] as const;
export type PreferredTime = (typeof PREFERRED_TIMES)[number];
export type VisitRequestStatus = (typeof VISIT_REQUEST_STATUSES)[number];

const person = {
  ...PortalPersonFields,
  message: Type.Optional(Type.String({ maxLength: 5000 })),
};
const Utm = Type.Optional(Type.String({ minLength: 1, maxLength: 200 }));

export const CreateLeadBodySchema = Type.Object(
  {
    ...person,
    propertyId: Type.Optional(
      Type.String({ maxLength: 64, description: 'A property published on the portal (prop_…)' }),
    ),
    interestedIn: Type.Optional(StringEnum(TRANSACTION_TYPES)),
    utmSource: Utm,
    utmMedium: Utm,
    utmCampaign: Utm,
    utmContent: Utm,
  },
  { $id: 'CreateLeadBody', additionalProperties: false },
);
export type CreateLeadBody = Static<typeof CreateLeadBodySchema>;

export const ScheduleVisitBodySchema = Type.Object(
  {
    ...person,
    propertyId: Type.String({ maxLength: 64, description: 'A property published on the portal (prop_…)' }),
    preferredDate: Type.Optional(
      Type.String({
        format: 'date',
        description:
          'YYYY-MM-DD, a real calendar date from yesterday (UTC, so every time zone can ask for its today) ' +
          'up to 365 days ahead; omit for any day',
      }),
    ),
    preferredTime: Type.Optional(StringEnum(PREFERRED_TIMES, { description: 'Omit for any time' })),
  },
  { $id: 'ScheduleVisitBody', additionalProperties: false },
);
export type ScheduleVisitBody = Static<typeof ScheduleVisitBodySchema>;

export const LeadReceiptSchema = Type.Object(
  { success: Type.Literal(true) },
  { $id: 'LeadReceipt', additionalProperties: false, description: 'The lead was recorded' },
);
export type LeadReceipt = Static<typeof LeadReceiptSchema>;

export const VisitRequestReceiptSchema = Type.Object(
  {
    success: Type.Literal(true),
    visitRequestId: Type.String({ description: 'vr_… identifier' }),
    status: StringEnum(VISIT_REQUEST_STATUSES, {
      description: 'PENDING: the agency confirms the visit later',
    }),
  },
  {
    $id: 'VisitRequestReceipt',
    additionalProperties: false,
    description: 'The visit request was recorded; no appointment exists yet',
  },
);
export type VisitRequestReceipt = Static<typeof VisitRequestReceiptSchema>;

export const LeadResponseSchema = DataOf(ref(LeadReceiptSchema));
export const VisitRequestResponseSchema = DataOf(ref(VisitRequestReceiptSchema));

export const leadsSchemas: TSchema[] = [
  CreateLeadBodySchema,
  ScheduleVisitBodySchema,
  LeadReceiptSchema,
  VisitRequestReceiptSchema,
];
