import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, Nullable, ref, StringEnum } from '../../platform/http/schemas.ts';

const DatePattern = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';
const CalendarDay = (description: string) =>
  Type.String({ format: 'date', pattern: DatePattern, description, examples: ['2027-08-02'] });
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

export const MAX_REMINDERS = 5;
/** The longest span a closures list covers (from `from` to `to`). */
export const MAX_CLOSURE_SPAN_DAYS = 731;

const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'IANA time zone (Europe/Madrid), stored by its canonical name: closures are days there, and agents who turn booking on without a zone of their own get it (kept when this one changes later)',
  examples: ['Europe/Madrid'],
});

const HolidayPlaceSchema = Type.Object(
  {
    country: Type.String({
      pattern: '^[A-Z]{2}$',
      description: 'ISO 3166-1 alpha-2',
      examples: ['ES'],
    }),
    region: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[A-Z0-9]{1,3}$',
          description:
            'The first-level subdivision whose regional holidays apply too (ISO 3166-2 without the country: MD for Madrid); null: national holidays only',
          examples: ['MD'],
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

/** How reminders reach the visitor (issue 41). */
export const REMINDER_CHANNELS = ['MESSAGING', 'EMAIL'] as const;
export type ReminderChannel = (typeof REMINDER_CHANNELS)[number];

const ReminderOffsets = Type.Array(
  Type.Integer({ minimum: 5, maximum: 10_080, description: 'Minutes before the appointment (5 to 7 days)' }),
  {
    uniqueItems: true,
    maxItems: MAX_REMINDERS,
    description:
      'When reminders go to the contact before each appointment, in minutes (default 1440 and 120: 24 h and 2 h); empty: none',
    examples: [[1440, 120]],
  },
);

export const CalendarSettingsSchema = Type.Object(
  {
    timezone: TimeZone,
    holidays: Nullable(
      Type.Object(
        { country: Type.String(), region: Nullable(Type.String()) },
        {
          additionalProperties: false,
          description: 'Public holidays that close the agency (date-holidays); null: none',
        },
      ),
    ),
    reminderOffsetsMinutes: Type.Array(Type.Integer(), {
      description: 'Minutes before each appointment its reminders go, longest first',
      examples: [[1440, 120]],
    }),
    reminderTemplateId: Nullable(
      Type.String({
        description:
          'The APPROVED message template reminders are sent with (tpl_…); null: no reminders are sent by message. A test twin sends none',
      }),
    ),
    reminderChannels: Type.Array(StringEnum(REMINDER_CHANNELS), {
      description:
        "How reminders reach the visitor: MESSAGING (with `reminderTemplateId`) and EMAIL (the VISIT_REMINDER email template, to the contact's address)",
      examples: [['MESSAGING', 'EMAIL']],
    }),
  },
  { $id: 'CalendarSettings', additionalProperties: false },
);
export type CalendarSettings = Static<typeof CalendarSettingsSchema>;

export const UpdateCalendarSettingsBodySchema = Type.Object(
  {
    timezone: Type.Optional(TimeZone),
    holidays: Type.Optional(Nullable(HolidayPlaceSchema)),
    reminderOffsetsMinutes: Type.Optional(ReminderOffsets),
    reminderTemplateId: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 64,
          description:
            'A message template of the organization (GET /v1/messaging/templates) whose {{variables}} are among firstName, agentName, date, time, address and manageUrl; null stops reminders by message',
        }),
      ),
    ),
    reminderChannels: Type.Optional(
      Type.Array(StringEnum(REMINDER_CHANNELS), {
        uniqueItems: true,
        maxItems: REMINDER_CHANNELS.length,
        description: 'MESSAGING, EMAIL, both, or none (`[]`: no reminders)',
      }),
    ),
  },
  { $id: 'UpdateCalendarSettingsBody', additionalProperties: false, minProperties: 1 },
);
export type UpdateCalendarSettingsBody = Static<typeof UpdateCalendarSettingsBodySchema>;

export const CLOSURE_SOURCES = ['AGENCY', 'PUBLIC_HOLIDAY'] as const;

export const ClosureSchema = Type.Object(
  {
    id: Nullable(
      Type.String({ description: 'clo_… of a closure of the agency; null for a public holiday (computed)' }),
    ),
    source: StringEnum(CLOSURE_SOURCES, {
      description: "AGENCY: one of the agency's own closures; PUBLIC_HOLIDAY: from the holiday settings",
    }),
    startDate: CalendarDay("First closed day, in the organization's time zone"),
    endDate: CalendarDay('Last closed day (inclusive)'),
    name: Type.String({ examples: ['Summer closing'] }),
    createdAt: Nullable(DateTime()),
  },
  { $id: 'Closure', additionalProperties: false },
);
export type Closure = Static<typeof ClosureSchema>;

export const CreateClosureBodySchema = Type.Object(
  {
    startDate: CalendarDay("First closed day, in the organization's time zone"),
    endDate: Type.Optional(
      CalendarDay('Last closed day, inclusive (default startDate); at most 366 days on'),
    ),
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', examples: ['Summer closing'] }),
  },
  { $id: 'CreateClosureBody', additionalProperties: false },
);
export type CreateClosureBody = Static<typeof CreateClosureBodySchema>;

export const ListClosuresQuerySchema = Type.Object(
  {
    from: Type.Optional(CalendarDay("First day listed (default today in the organization's time zone)")),
    to: Type.Optional(
      CalendarDay(
        `Last day listed, inclusive (default a year after from; at most ${MAX_CLOSURE_SPAN_DAYS} days on)`,
      ),
    ),
  },
  { additionalProperties: false },
);
export type ListClosuresQuery = Static<typeof ListClosuresQuerySchema>;

export const TimeOffSchema = Type.Object(
  {
    id: Type.String({ description: 'off_… identifier' }),
    agentId: Type.String(),
    startsAt: DateTime(),
    endsAt: DateTime(),
    reason: Nullable(Type.String()),
    createdAt: DateTime(),
  },
  { $id: 'AgentTimeOff', additionalProperties: false },
);
export type TimeOff = Static<typeof TimeOffSchema>;

export const CreateTimeOffBodySchema = Type.Object(
  {
    agentId: Id('An agent of the organization (agt_…)'),
    startsAt: DateTime({ description: 'When the agent leaves (an instant, with its offset)' }),
    endsAt: DateTime({ description: 'When the agent is back; later than startsAt, at most 366 days on' }),
    reason: Type.Optional(Nullable(Type.String({ maxLength: 500, examples: ['Holidays'] }))),
  },
  {
    $id: 'CreateTimeOffBody',
    additionalProperties: false,
    // A fortnight away (sampled, both ends would be the same instant: refused).
    examples: [
      {
        agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uE',
        startsAt: '2027-08-02T07:00:00.000Z',
        endsAt: '2027-08-16T07:00:00.000Z',
        reason: 'Holidays',
      },
    ],
  },
);
export type CreateTimeOffBody = Static<typeof CreateTimeOffBodySchema>;

export const ListTimeOffQuerySchema = Type.Object(
  {
    ...pageQuery(),
    agentId: Type.Optional(Type.String({ maxLength: 64, description: "Only this agent's time off" })),
    from: Type.Optional(DateTime({ description: 'Time off ending after this instant (default now)' })),
    to: Type.Optional(DateTime({ description: 'Time off starting before this instant' })),
  },
  { additionalProperties: false },
);
export type ListTimeOffQuery = Static<typeof ListTimeOffQuerySchema>;

export const IdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });
export const OrgIdParamsSchema = Type.Object(
  { orgId: Type.String(), id: Type.String() },
  { additionalProperties: false },
);

export const CalendarSettingsResponseSchema = DataOf(ref(CalendarSettingsSchema));
export const ClosureResponseSchema = DataOf(ref(ClosureSchema));
export const ClosureListResponseSchema = Type.Object(
  { data: Type.Array(ref(ClosureSchema)) },
  { additionalProperties: false, description: 'Every closure that touches the days asked, by first day' },
);
export const TimeOffResponseSchema = DataOf(ref(TimeOffSchema));
export const TimeOffListResponseSchema = ListOf(ref(TimeOffSchema));

export const calendarSchemas = [
  CalendarSettingsSchema,
  UpdateCalendarSettingsBodySchema,
  ClosureSchema,
  CreateClosureBodySchema,
  TimeOffSchema,
  CreateTimeOffBodySchema,
];

export const CalendarFeedSchema = Type.Object(
  {
    agentId: Type.String(),
    tokenPrefix: Type.String({ description: 'The first characters of the URL’s token, to recognise it' }),
    createdAt: DateTime(),
  },
  { $id: 'CalendarFeed', additionalProperties: false },
);

export const CalendarFeedTokenSchema = Type.Object(
  {
    agentId: Type.String(),
    token: Type.String({ description: 'Shown only now: the URL is the credential' }),
    url: Type.String({
      format: 'uri',
      description: 'The iCalendar subscription URL to add to Google, Outlook or Apple calendars',
      examples: ['https://crm.example.com/calendars/9hQ2c7N0v3x8KpT4wYb1mZs6LfR5gJd2aEo7uIk0qWe.ics'],
    }),
    tokenPrefix: Type.String(),
    createdAt: DateTime(),
  },
  { $id: 'CalendarFeedToken', additionalProperties: false },
);

export const AgentIdParamsSchema = Type.Object(
  { agentId: Type.String({ description: 'agt_… of the agent' }) },
  { additionalProperties: false },
);
export const CalendarTokenParamsSchema = Type.Object(
  { token: Type.String({ description: 'The subscription URL’s token' }) },
  { additionalProperties: false },
);
export const AppointmentIcsParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });

export const CalendarFeedListResponseSchema = Type.Object(
  { data: Type.Array(ref(CalendarFeedSchema)) },
  { additionalProperties: false },
);
export const CalendarFeedTokenResponseSchema = DataOf(ref(CalendarFeedTokenSchema));
export const calendarFeedSchemas = [CalendarFeedSchema, CalendarFeedTokenSchema];
