import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, PhoneText, ref } from '../../platform/http/schemas.ts';

/** Booking defaults (DESIGN.md: horizon 60 days, minimum notice 60 minutes). */
export const BOOKING_DEFAULTS = {
  autoConfirm: false,
  weekdays: [1, 2, 3, 4, 5],
  startTime: '09:00',
  endTime: '18:00',
  weeklyHours: [] as { weekday: number; startTime: string; endTime: string }[],
  slotMinutes: 30,
  bufferMinutes: 0,
  horizonDays: 60,
  minNoticeMinutes: 60,
  maxPerDay: null as number | null,
};

export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

/**
 * Words no agent may take as booking slug: each is a static segment of a route under /v1/booking/
 * (`GET /v1/booking/agents`, `/v1/booking/manage/{token}...`), which the router matches before a slug,
 * so an agent with it would lose (part of) their booking page. A new static route there adds its word
 * here, with a data migration for agents who already hold it (decision 0252).
 */
export const RESERVED_BOOKING_SLUGS = ['agents', 'manage'] as const;

/** True for a reserved booking slug; compared lowercase, although the pattern only admits lowercase. */
export const isReservedBookingSlug = (slug: string): boolean =>
  (RESERVED_BOOKING_SLUGS as readonly string[]).includes(slug.toLowerCase());

const NullableString = (options: { maxLength?: number; format?: string; pattern?: string } = {}) =>
  Type.Union([Type.String(options), Type.Null()]);
const StartTime = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'HH:MM, 24-hour clock, 00:00-23:59',
});
// A window may run to midnight: 24:00 is the end of that day (1440 minutes) in the agent's zone.
const EndTime = Type.String({
  pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$',
  description: 'HH:MM, 24-hour clock, 00:01-24:00; 24:00 ends the range at midnight, the end of that day',
});
const Weekday = Type.Integer({
  minimum: 1,
  maximum: 7,
  description: 'ISO weekday: 1 = Monday .. 7 = Sunday',
});
const Url = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

const WeeklyHoursEntrySchema = Type.Object(
  { weekday: Weekday, startTime: StartTime, endTime: EndTime },
  { additionalProperties: false },
);

// One field list: the stored/shown settings require every member, the inputs make them optional.
const bookingFields = {
  autoConfirm: Type.Boolean({
    description: 'Bookings are CONFIRMED at once when true, SCHEDULED (to be confirmed) otherwise',
  }),
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      "IANA time zone (Europe/Madrid): the hours, dates and slots are wall-clock times there; when booking is turned on without one, the organization's at that moment (GET /v1/calendar/settings), kept if the organization's changes later",
  }),
  weekdays: Type.Array(Weekday, {
    uniqueItems: true,
    maxItems: 7,
    description: 'ISO weekdays the default hours apply to',
  }),
  startTime: StartTime,
  endTime: EndTime,
  weeklyHours: Type.Array(WeeklyHoursEntrySchema, {
    maxItems: 28,
    description:
      'Hours per weekday that replace the default hours on that weekday; several windows a day ' +
      '(a split day) are allowed, they must not overlap',
  }),
  slotMinutes: Type.Integer({
    minimum: 5,
    maximum: 480,
    description: 'Length of a slot and step of the grid',
  }),
  bufferMinutes: Type.Integer({
    minimum: 0,
    maximum: 480,
    description: 'Free time kept before and after every appointment',
  }),
  horizonDays: Type.Integer({ minimum: 1, maximum: 730, description: 'How far ahead slots are offered' }),
  minNoticeMinutes: Type.Integer({
    minimum: 0,
    maximum: 43_200,
    description: 'How soon the earliest slot may start',
  }),
  maxPerDay: Type.Union([Type.Integer({ minimum: 1, maximum: 100 }), Type.Null()], {
    description: "Most appointments a day (the agent's calendar day); null: no limit",
  }),
};
type BookingFields = typeof bookingFields;

export const AgentBookingSettingsSchema = Type.Object(bookingFields, {
  $id: 'AgentBookingSettings',
  additionalProperties: false,
});
export type BookingSettings = Static<typeof AgentBookingSettingsSchema>;

const optional = <K extends keyof BookingFields>(name: K) => Type.Optional(bookingFields[name]);
const bookingInput = {
  autoConfirm: optional('autoConfirm'),
  weekdays: optional('weekdays'),
  startTime: optional('startTime'),
  endTime: optional('endTime'),
  weeklyHours: optional('weeklyHours'),
  slotMinutes: optional('slotMinutes'),
  bufferMinutes: optional('bufferMinutes'),
  horizonDays: optional('horizonDays'),
  minNoticeMinutes: optional('minNoticeMinutes'),
  maxPerDay: optional('maxPerDay'),
};

/**
 * What the examples of the document show for an agent's booking: a working week (Monday to Friday
 * 09:00-18:00, a split Friday, Saturday morning) in 30-minute slots; sampled from the schema it would be
 * Mondays only in 5-minute slots (every minimum), which an example sent as is must never do to an agent.
 */
const BOOKING_EXAMPLE = {
  autoConfirm: false,
  weekdays: [1, 2, 3, 4, 5],
  startTime: '09:00',
  endTime: '18:00',
  weeklyHours: [
    { weekday: 5, startTime: '09:00', endTime: '14:00' },
    { weekday: 5, startTime: '16:00', endTime: '19:00' },
    { weekday: 6, startTime: '10:00', endTime: '13:00' },
  ],
  slotMinutes: 30,
  bufferMinutes: 15,
  horizonDays: 60,
  minNoticeMinutes: 120,
  maxPerDay: 8,
  timezone: 'Europe/Madrid',
};

const BookingInputSchema = Type.Object(
  { ...bookingInput, timezone: Type.Optional(bookingFields.timezone) },
  {
    additionalProperties: false,
    examples: [BOOKING_EXAMPLE],
    description:
      'Online booking settings; null or absent = no online booking. Defaults: weekdays 1-5, 09:00-18:00, ' +
      "slots of 30 minutes, no buffer, horizon 60 days, notice 60 minutes, no daily maximum, autoConfirm false, the organization's time zone",
  },
);
const BookingChangeSchema = Type.Object(
  { ...bookingInput, timezone: Type.Optional(bookingFields.timezone) },
  {
    additionalProperties: false,
    examples: [BOOKING_EXAMPLE],
    description:
      "Merged member by member onto the current settings (the organization's time zone when none is given); null turns booking off",
  },
);

export const AdminAgentSchema = Type.Object(
  {
    id: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    fullName: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String({ description: 'E.164' }), Type.Null()]),
    photoUrl: Type.Union([Type.String(), Type.Null()]),
    bio: Type.Union([Type.String(), Type.Null()]),
    active: Type.Boolean(),
    showOnPortal: Type.Boolean({ description: 'Listed by GET /v1/agents (when active)' }),
    bookingSlug: Type.Union([Type.String(), Type.Null()]),
    booking: Type.Union([ref(AgentBookingSettingsSchema), Type.Null()]),
    bookable: Type.Boolean({
      description: 'Active, with a booking slug and booking settings: listed by GET /v1/booking/agents',
    }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'AdminAgent', additionalProperties: false },
);
export type AdminAgent = Static<typeof AdminAgentSchema>;

const writableFields = {
  firstName: Type.String({ minLength: 1, maxLength: 100 }),
  lastName: Type.String({ maxLength: 100 }),
  email: NullableString({ format: 'email', maxLength: 254 }),
  phone: Type.Union([PhoneText({ minLength: 7, maxLength: 30 }), Type.Null()]),
  photoUrl: Type.Union([Url, Type.Null()]),
  bio: NullableString({ maxLength: 5000 }),
  active: Type.Boolean(),
  showOnPortal: Type.Boolean(),
  bookingSlug: Type.Union([
    Type.String({
      pattern: SLUG_PATTERN,
      maxLength: 64,
      description:
        'Lowercase letters, digits and single hyphens; unique in the organization. Not one of ' +
        `RESERVED_BOOKING_SLUGS (${RESERVED_BOOKING_SLUGS.join(', ')}): words of routes under /v1/booking/, a 400`,
    }),
    Type.Null(),
  ]),
};

export const CreateAgentBodySchema = Type.Object(
  {
    firstName: writableFields.firstName,
    lastName: Type.Optional(writableFields.lastName),
    email: Type.Optional(writableFields.email),
    phone: Type.Optional(writableFields.phone),
    photoUrl: Type.Optional(writableFields.photoUrl),
    bio: Type.Optional(writableFields.bio),
    active: Type.Optional(writableFields.active),
    showOnPortal: Type.Optional(writableFields.showOnPortal),
    bookingSlug: Type.Optional(writableFields.bookingSlug),
    booking: Type.Optional(Type.Union([BookingInputSchema, Type.Null()])),
  },
  { $id: 'CreateAgentBody', additionalProperties: false },
);
export type CreateAgentBody = Static<typeof CreateAgentBodySchema>;

export const UpdateAgentBodySchema = Type.Object(
  {
    ...Type.Partial(Type.Object(writableFields)).properties,
    booking: Type.Optional(Type.Union([BookingChangeSchema, Type.Null()])),
  },
  {
    $id: 'UpdateAgentBody',
    additionalProperties: false,
    minProperties: 1,
    // A change names what it changes: sampled, it would rename the agent's booking slug and more.
    examples: [{ bio: 'Ten years selling homes on the Costa del Sol.', showOnPortal: true }],
  },
);
export type UpdateAgentBody = Static<typeof UpdateAgentBodySchema>;
export type BookingChange = Static<typeof BookingChangeSchema>;

/** The booking part of an agent, through v1 (`GET/PATCH /v1/agents/{id}/booking`). */
export const AgentBookingSchema = Type.Object(
  {
    agentId: Type.String(),
    bookingSlug: Type.Union([Type.String(), Type.Null()]),
    booking: Type.Union([ref(AgentBookingSettingsSchema), Type.Null()]),
    bookable: Type.Boolean({
      description: 'Active, with a booking slug and booking settings: listed by GET /v1/booking/agents',
    }),
  },
  { $id: 'AgentBooking', additionalProperties: false },
);
export type AgentBooking = Static<typeof AgentBookingSchema>;

export const UpdateAgentBookingBodySchema = Type.Object(
  {
    bookingSlug: Type.Optional(writableFields.bookingSlug),
    booking: Type.Optional(Type.Union([BookingChangeSchema, Type.Null()])),
  },
  {
    $id: 'UpdateAgentBookingBody',
    additionalProperties: false,
    minProperties: 1,
    // The schedule only: the slug stays (renaming it breaks every link to the booking page).
    examples: [{ booking: BOOKING_EXAMPLE }],
  },
);
export const AgentBookingResponseSchema = DataOf(ref(AgentBookingSchema));
export const AgentIdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });

export const ListAgentsQuerySchema = Type.Object(
  {
    ...pageQuery(),
    active: Type.Optional(Type.Boolean()),
    bookable: Type.Optional(Type.Boolean({ description: 'Active, with a slug and booking settings' })),
  },
  { additionalProperties: false },
);
export type ListAgentsQuery = Static<typeof ListAgentsQuerySchema>;

export const OrgAgentParamsSchema = Type.Object(
  { orgId: Type.String(), agentId: Type.String() },
  { additionalProperties: false },
);

/** An agent as the portal shows it (GET /v1/agents). */
export const PortalAgentSchema = Type.Object(
  {
    id: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    fullName: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    photoUrl: Type.Union([Type.String(), Type.Null()]),
    bio: Type.Union([Type.String(), Type.Null()]),
    bookingSlug: Type.Union([Type.String(), Type.Null()], {
      description: 'The booking page (/v1/booking/{slug}); null when the agent takes no online bookings',
    }),
  },
  { $id: 'PortalAgent', additionalProperties: false },
);
export type PortalAgent = Static<typeof PortalAgentSchema>;

export const PortalAgentsQuerySchema = Type.Object({ ...pageQuery() }, { additionalProperties: false });
export type PortalAgentsQuery = Static<typeof PortalAgentsQuerySchema>;

export const AdminAgentResponseSchema = DataOf(ref(AdminAgentSchema));
export const AdminAgentListResponseSchema = ListOf(ref(AdminAgentSchema));
export const PortalAgentListResponseSchema = ListOf(ref(PortalAgentSchema));

export const agentsSchemas: TSchema[] = [
  AgentBookingSettingsSchema,
  AdminAgentSchema,
  CreateAgentBodySchema,
  UpdateAgentBodySchema,
  PortalAgentSchema,
  AgentBookingSchema,
  UpdateAgentBookingBodySchema,
];
