import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { DataOf, DateTime, ref, StringEnum } from '../../platform/http/schemas.ts';
import { RESERVED_BOOKING_SLUGS } from '../agents/index.ts';
import { APPOINTMENT_TYPES } from '../appointments/index.ts';
import { PortalPersonFields } from '../contacts/index.ts';

/** A booking starts CONFIRMED (the agent auto-confirms) or SCHEDULED (the agent confirms later). */
export const BOOKING_STATUSES = ['CONFIRMED', 'SCHEDULED'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export const Time = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: "HH:MM in the agent's time zone",
});
export const CalendarDate = Type.String({
  format: 'date',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  description: "YYYY-MM-DD on the agent's calendar",
});

/**
 * SPEC.md says "double-wrapped": `{data: {data: ...}}`, for its three booking routes; the visitor-link
 * routes under /v1/booking/manage answer the same way, so every booking answer has one shape (decision 0259).
 */
export const DoubleData = <T extends TSchema>(item: T) => DataOf(DataOf(item));

export const SlugParamsSchema = Type.Object(
  {
    slug: Type.String({
      description: `The agent's booking slug (GET /v1/booking/agents); never one of ${RESERVED_BOOKING_SLUGS.join(', ')}, the words of the static routes here`,
    }),
  },
  { additionalProperties: false },
);

export const BookingAgentSchema = Type.Object(
  {
    id: Type.String(),
    slug: Type.String({ description: 'Names the booking page: /v1/booking/{slug}' }),
    firstName: Type.String(),
    lastName: Type.String(),
    fullName: Type.String(),
    photoUrl: Type.Union([Type.String(), Type.Null()]),
    autoConfirm: Type.Boolean({ description: 'Bookings are CONFIRMED at once (else SCHEDULED)' }),
    slotMinutes: Type.Integer(),
    timezone: Type.String({ description: 'IANA zone the dates and slots of this agent are in' }),
  },
  { $id: 'BookingAgent', additionalProperties: false },
);
export type BookingAgentCard = Static<typeof BookingAgentSchema>;

export const AvailabilityQuerySchema = Type.Object(
  {
    month: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 11,
        description: "0 = January; default: the agent's current month",
      }),
    ),
    year: Type.Optional(
      Type.Integer({ minimum: 2000, maximum: 2100, description: "Default: the agent's current year" }),
    ),
  },
  { additionalProperties: false },
);
export type AvailabilityQuery = Static<typeof AvailabilityQuerySchema>;

export const BookingAvailabilitySchema = Type.Object(
  {
    configured: Type.Boolean({ description: 'False when the agent has no booking hours: no dates then' }),
    timezone: Type.Union([Type.String(), Type.Null()], {
      description: 'IANA zone of the dates and slots (null when booking is not set up)',
    }),
    slotMinutes: Type.Union([Type.Integer(), Type.Null()]),
    month: Type.Integer({ minimum: 0, maximum: 11 }),
    year: Type.Integer(),
    availableDates: Type.Array(
      Type.Object(
        {
          date: Type.String({ description: 'YYYY-MM-DD' }),
          slots: Type.Array(Type.String({ description: 'HH:MM start of a free slot' })),
        },
        { additionalProperties: false },
      ),
      { description: 'Only dates with at least one free slot, in order' },
    ),
  },
  { $id: 'BookingAvailability', additionalProperties: false },
);
export type BookingAvailability = Static<typeof BookingAvailabilitySchema>;

export const CreateBookingBodySchema = Type.Object(
  {
    ...PortalPersonFields,
    date: CalendarDate,
    startTime: Time,
    type: Type.Optional(StringEnum(APPOINTMENT_TYPES, { description: 'Default SHOWING' })),
    propertyId: Type.Optional(
      Type.String({ maxLength: 64, description: 'A property published on the portal (prop_…)' }),
    ),
    notes: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { $id: 'CreateBookingBody', additionalProperties: false },
);
export type CreateBookingBody = Static<typeof CreateBookingBodySchema>;

export const BookingReceiptSchema = Type.Object(
  {
    appointmentId: Type.String(),
    status: StringEnum(BOOKING_STATUSES),
    ownerNotified: Type.Boolean({ description: 'The agent got a notification task' }),
    startsAt: DateTime(),
    endsAt: DateTime(),
    agentId: Type.String(),
    contactId: Type.String(),
    manageUrl: Type.String({
      format: 'uri',
      description:
        "The visitor's own page for this visit (no key: the signed, unguessable token in its last segment is the credential, valid until the visit starts): see it, cancel it or move it to another free slot. Send it to the visitor; the same token works with GET /v1/booking/manage/{token}",
      examples: [
        'https://crm.example.com/visits/org_4Qm1bYyQ0ZxR9s8TnV2kLp.apt_01JH3S5V6W7X8Y9Z0A1B2C3D4E.3fa2b1c0.xJ3kL9mN2pQ5rS8tU1vW4y',
      ],
    }),
  },
  { $id: 'BookingReceipt', additionalProperties: false },
);
export type BookingReceipt = Static<typeof BookingReceiptSchema>;

export const BookingAgentsResponseSchema = DoubleData(Type.Array(ref(BookingAgentSchema)));
export const BookingAvailabilityResponseSchema = DoubleData(ref(BookingAvailabilitySchema));
export const BookingReceiptResponseSchema = DoubleData(ref(BookingReceiptSchema));

export const bookingSchemas: TSchema[] = [
  BookingAgentSchema,
  BookingAvailabilitySchema,
  CreateBookingBodySchema,
  BookingReceiptSchema,
];
