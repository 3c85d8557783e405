import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { DateOrDateTime } from '../../platform/http/dates.ts';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, Nullable, ref, StringEnum } from '../../platform/http/schemas.ts';
import { TRANSACTION_TYPES } from '../properties/index.ts';
import { FormConsentsSchema, PortalPersonFields } from '../contacts/index.ts';
import { LEAD_MATCH_KEYS, LEAD_OUTCOMES, PREFERRED_TIMES, VISIT_REQUEST_STATUSES } from '../../db/schema.ts';

// The value sets of stored columns live beside their table, which is typed with them (decision 0248).
export {
  LEAD_MATCH_KEYS,
  LEAD_OUTCOMES,
  PREFERRED_TIMES,
  VISIT_REQUEST_STATUSES,
  type LeadMatchKey,
  type LeadOutcome,
  type PreferredTime,
  type VisitRequestStatus,
} from '../../db/schema.ts';
/** The longest referrer kept, from the body or the Referer header. */
export const REFERRER_MAX_LENGTH = 2048;

const person = {
  ...PortalPersonFields,
  message: Type.Optional(Type.String({ maxLength: 5000 })),
};
const Utm = Type.Optional(Type.String({ minLength: 1, maxLength: 200 }));

export const CreateLeadBodySchema = Type.Object(
  {
    ...person,
    consents: Type.Optional(FormConsentsSchema),
    propertyId: Type.Optional(
      Type.String({ maxLength: 64, description: 'A property published on the portal (prop_…)' }),
    ),
    interestedIn: Type.Optional(StringEnum(TRANSACTION_TYPES)),
    utmSource: Utm,
    utmMedium: Utm,
    utmCampaign: Utm,
    utmContent: Utm,
    referrer: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        maxLength: REFERRER_MAX_LENGTH,
        description:
          "The page the visitor came from (the portal's document.referrer). Without it, the request's Referer " +
          'header is kept when it is an http(s) URL, which browsers usually cut to the origin',
        examples: ['https://www.google.com/'],
      }),
    ),
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

export const LeadReceiptResponseSchema = DataOf(ref(LeadReceiptSchema));
export const VisitRequestResponseSchema = DataOf(ref(VisitRequestReceiptSchema));

// ---------------------------------------------------------------------------------------------
// Reading leads (GET /v1/leads, docs/decisions/0197-reading-leads.md).

/** The contact a form created or matched, by its current name. */
const ContactName = (description: string) =>
  Type.Object(
    {
      id: Type.String({ description: 'ct_… identifier' }),
      fullName: Type.String({ description: 'First and last name as the contact has them now' }),
    },
    { additionalProperties: false, description },
  );

const PropertyName = (description?: string) =>
  Type.Object(
    {
      id: Type.String({ description: 'prop_… identifier' }),
      code: Type.String({ description: "The agency's reference", examples: ['MAL-0042'] }),
      title: Type.String(),
    },
    { additionalProperties: false, ...(description === undefined ? {} : { description }) },
  );

const UtmValue = (description: string, example: string) =>
  Nullable(Type.String({ description, examples: [example] }));

export const LeadSchema = Type.Object(
  {
    id: Type.String({ description: 'lead_… identifier', examples: ['lead_0VhJ3kQ2Zt8mX1pR4sT6uE'] }),
    contact: ContactName('The contact the form created or matched (by phone, then email)'),
    property: Type.Union([PropertyName(), Type.Null()], {
      description: 'The property the lead asked about; null for a general enquiry or a deleted property',
    }),
    message: Nullable(Type.String({ description: 'What the visitor wrote, trimmed' })),
    interestedIn: Nullable(StringEnum(TRANSACTION_TYPES, { description: 'What the visitor is looking for' })),
    utmSource: UtmValue('utm_source the portal passed on; null when absent', 'google'),
    utmMedium: UtmValue('utm_medium; null when absent', 'cpc'),
    utmCampaign: UtmValue('utm_campaign; null when absent', 'spring-sale'),
    utmContent: UtmValue('utm_content; null when absent', 'banner-a'),
    referrer: Nullable(
      Type.String({
        description:
          "The page the visitor came from: the form's `referrer`, else the Referer header; null when neither",
        examples: ['https://www.google.com/'],
      }),
    ),
    outcome: Nullable(
      StringEnum(LEAD_OUTCOMES, {
        description:
          'CREATED when the form made a new contact, MATCHED when it found an existing one; null for leads sent ' +
          'before 2026-11-26, when this was not recorded',
      }),
    ),
    matchedOn: Nullable(
      StringEnum(LEAD_MATCH_KEYS, {
        description:
          'For a MATCHED lead, the key that found the contact (PHONE is tried first); null otherwise',
      }),
    ),
    createdAt: DateTime({ description: 'When the form was sent' }),
  },
  {
    $id: 'Lead',
    additionalProperties: false,
    description: 'A contact form sent from the portal',
    // One coherent lead (a sampled one would pair `outcome: CREATED` with a `matchedOn`).
    examples: [
      {
        id: 'lead_0VhJ3kQ2Zt8mX1pR4sT6uE',
        contact: { id: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uE', fullName: 'Lucía García' },
        property: { id: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uE', code: 'MAL-0042', title: 'Sea view flat in Málaga' },
        message: 'Is it still available? I could visit on Saturday.',
        interestedIn: 'SALE',
        utmSource: 'google',
        utmMedium: 'cpc',
        utmCampaign: 'spring-sale',
        utmContent: null,
        referrer: 'https://www.google.com/',
        outcome: 'MATCHED',
        matchedOn: 'PHONE',
        createdAt: '2027-03-29T10:15:00.000Z',
      },
    ],
  },
);
export type Lead = Static<typeof LeadSchema>;

export const ListLeadsQuerySchema = Type.Object(
  {
    ...pageQuery(),
    createdAfter: Type.Optional(DateOrDateTime('createdAt at or after (a date means its start, UTC)')),
    createdBefore: Type.Optional(DateOrDateTime('createdAt strictly before (a date means its start, UTC)')),
    propertyId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only leads about this property (prop_…)' }),
    ),
    utmSource: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Only leads with exactly this utmSource (case-sensitive, as sent)',
        examples: ['google'],
      }),
    ),
    outcome: Type.Optional(
      StringEnum(LEAD_OUTCOMES, {
        description:
          'Only leads that created (CREATED) or matched (MATCHED) their contact; never the older leads with none',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListLeadsQuery = Static<typeof ListLeadsQuerySchema>;

export const LeadIdParamsSchema = Type.Object(
  { id: Type.String({ description: 'lead_… identifier' }) },
  { additionalProperties: false },
);

export const LeadResponseSchema = DataOf(ref(LeadSchema));
export const LeadListResponseSchema = ListOf(ref(LeadSchema));

export const VisitRequestSchema = Type.Object(
  {
    id: Type.String({ description: 'vr_… identifier', examples: ['vr_0VhJ3kQ2Zt8mX1pR4sT6uE'] }),
    status: StringEnum(VISIT_REQUEST_STATUSES, {
      description: 'PENDING until the agency confirms or declines it',
    }),
    contact: ContactName('The contact the request created or matched (by phone, then email)'),
    property: PropertyName('The property to visit'),
    preferredDate: Nullable(
      Type.String({ format: 'date', description: 'YYYY-MM-DD; null for any day', examples: ['2026-12-03'] }),
    ),
    preferredTime: Nullable(StringEnum(PREFERRED_TIMES, { description: 'null for any time' })),
    message: Nullable(Type.String({ description: 'What the visitor wrote, trimmed' })),
    appointmentId: Nullable(
      Type.String({
        description: 'apt_… identifier of the appointment its confirmation created; null until CONFIRMED',
      }),
    ),
    declineReason: Nullable(Type.String({ description: 'Why the agency declined it; null unless DECLINED' })),
    decidedAt: Nullable(DateTime({ description: 'When it was confirmed or declined; null while PENDING' })),
    createdAt: DateTime({ description: 'When the request was sent' }),
    updatedAt: DateTime({ description: 'When its status last changed' }),
  },
  {
    $id: 'VisitRequest',
    additionalProperties: false,
    description: 'A visit the portal asked for; no appointment exists until the agency books one',
    examples: [
      {
        id: 'vr_0VhJ3kQ2Zt8mX1pR4sT6uE',
        status: 'CONFIRMED',
        contact: { id: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uE', fullName: 'Lucía García' },
        property: { id: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uE', code: 'MAL-0042', title: 'Sea view flat in Málaga' },
        preferredDate: '2027-04-02',
        preferredTime: 'morning',
        message: 'Could we see it before noon?',
        appointmentId: 'apt_0VhJ3kQ2Zt8mX1pR4sT6uE',
        declineReason: null,
        decidedAt: '2027-03-29T16:40:00.000Z',
        createdAt: '2027-03-29T10:15:00.000Z',
        updatedAt: '2027-03-29T16:40:00.000Z',
      },
    ],
  },
);
export type VisitRequest = Static<typeof VisitRequestSchema>;

export const ListVisitRequestsQuerySchema = Type.Object(
  {
    ...pageQuery(),
    status: Type.Optional(
      StringEnum(VISIT_REQUEST_STATUSES, { description: 'Only requests in this status' }),
    ),
  },
  { additionalProperties: false },
);
export type ListVisitRequestsQuery = Static<typeof ListVisitRequestsQuerySchema>;
export const VisitRequestListResponseSchema = ListOf(ref(VisitRequestSchema));
export const VisitRequestOneResponseSchema = DataOf(ref(VisitRequestSchema));

export const leadsSchemas: TSchema[] = [
  CreateLeadBodySchema,
  ScheduleVisitBodySchema,
  LeadReceiptSchema,
  VisitRequestReceiptSchema,
  LeadSchema,
  VisitRequestSchema,
];
