import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { DateOrDateTime } from '../../platform/http/dates.ts';
import { ListOf, pageQuery, syncQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, ref, StringEnum, Nullable } from '../../platform/http/schemas.ts';
import { APPOINTMENT_SOURCES, APPOINTMENT_STATUSES, APPOINTMENT_TYPES } from '../../db/schema.ts';

// The value sets of stored columns live beside their table, which is typed with them (decision 0248).
export {
  APPOINTMENT_SOURCES,
  APPOINTMENT_STATUSES,
  APPOINTMENT_TYPES,
  type AppointmentSource,
  type AppointmentStatus,
  type AppointmentType,
} from '../../db/schema.ts';
export const APPOINTMENT_SORTS = ['startsAt', 'createdAt'] as const;
/** Longest appointment accepted (a day): longer spans are typing mistakes, and they block the agent. */
export const MAX_APPOINTMENT_MINUTES = 24 * 60;

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

export const AppointmentSchema = Type.Object(
  {
    id: Type.String({ description: 'apt_… identifier' }),
    agentId: Type.String(),
    contactId: Nullable(Type.String({ description: 'null once the contact was deleted' })),
    propertyId: Nullable(Type.String()),
    type: StringEnum(APPOINTMENT_TYPES),
    status: StringEnum(APPOINTMENT_STATUSES, {
      description: "SCHEDULED and CONFIRMED hold the agent's time; CANCELLED, COMPLETED, NO_SHOW do not",
    }),
    startsAt: DateTime(),
    endsAt: DateTime(),
    durationMinutes: Type.Integer({ minimum: 1 }),
    source: StringEnum(APPOINTMENT_SOURCES, {
      description: 'BOOKING: the public booking page; ADMIN: the back office; API: POST /v1/appointments',
    }),
    notes: Nullable(Type.String()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Appointment', additionalProperties: false },
);
export type Appointment = Static<typeof AppointmentSchema>;

const Duration = Type.Integer({
  minimum: 5,
  maximum: MAX_APPOINTMENT_MINUTES,
  description: 'Length in minutes; instead of endsAt',
});
const Notes = Nullable(Type.String({ maxLength: 2000 }));

export const CreateAppointmentBodySchema = Type.Object(
  {
    agentId: Id('An agent of the organization (agt_…)'),
    contactId: Id('A contact of the organization (ct_…): the person the appointment is with'),
    propertyId: Type.Optional(Nullable(Id('A property of the organization (prop_…), published or not'))),
    type: Type.Optional(StringEnum(APPOINTMENT_TYPES, { description: 'Default SHOWING' })),
    status: Type.Optional(
      StringEnum(APPOINTMENT_STATUSES, {
        description: 'Default SCHEDULED; a past appointment may be recorded as COMPLETED or NO_SHOW',
      }),
    ),
    startsAt: DateTime({ description: 'An instant with its offset (2027-03-29T10:00:00+02:00)' }),
    endsAt: Type.Optional(
      DateTime({ description: 'After startsAt, at most 24 h later; or durationMinutes' }),
    ),
    durationMinutes: Type.Optional(Duration),
    notes: Type.Optional(Notes),
  },
  {
    $id: 'CreateAppointmentBody',
    additionalProperties: false,
    // endsAt or durationMinutes, not both (sampled, it would send both, and a zero-length visit).
    examples: [
      {
        agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uE',
        contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uE',
        propertyId: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uE',
        type: 'SHOWING',
        startsAt: '2027-03-29T10:00:00+02:00',
        durationMinutes: 45,
        notes: 'Prefers afternoon visits.',
      },
    ],
    description:
      "Without endsAt or durationMinutes the appointment lasts the agent's booking slot (30 minutes " +
      'when the agent has no booking settings).',
  },
);
export type CreateAppointmentBody = Static<typeof CreateAppointmentBodySchema>;

export const UpdateAppointmentBodySchema = Type.Object(
  {
    agentId: Type.Optional(Id('An agent of the organization')),
    contactId: Type.Optional(Id('A contact of the organization')),
    propertyId: Type.Optional(Nullable(Id('A property of the organization; null removes it'))),
    type: Type.Optional(StringEnum(APPOINTMENT_TYPES)),
    status: Type.Optional(StringEnum(APPOINTMENT_STATUSES)),
    startsAt: Type.Optional(
      DateTime({ description: 'Moving the start keeps the length unless endsAt is sent' }),
    ),
    endsAt: Type.Optional(DateTime()),
    durationMinutes: Type.Optional(Duration),
    notes: Type.Optional(Notes),
  },
  {
    $id: 'UpdateAppointmentBody',
    additionalProperties: false,
    minProperties: 1,
    examples: [{ status: 'CONFIRMED', notes: 'Bring the keys of the storage room too.' }],
  },
);
export type UpdateAppointmentBody = Static<typeof UpdateAppointmentBodySchema>;

export const ListAppointmentsQuerySchema = Type.Object(
  {
    ...pageQuery(),
    from: Type.Optional(DateOrDateTime('startsAt at or after (a date means its start, UTC)')),
    to: Type.Optional(DateOrDateTime('startsAt strictly before (a date means its start, UTC)')),
    agentId: Type.Optional(Type.String({ maxLength: 64 })),
    contactId: Type.Optional(Type.String({ maxLength: 64 })),
    status: Type.Optional(StringEnum(APPOINTMENT_STATUSES)),
    type: Type.Optional(StringEnum(APPOINTMENT_TYPES)),
    sortBy: Type.Optional(StringEnum(APPOINTMENT_SORTS, { description: 'Default startsAt' })),
    sortOrder: Type.Optional(
      StringEnum(['asc', 'desc'] as const, { description: 'Default asc (soonest first)' }),
    ),
    ...syncQuery(),
  },
  { additionalProperties: false },
);
export type ListAppointmentsQuery = Static<typeof ListAppointmentsQuerySchema>;

export const AppointmentIdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });

export const AppointmentResponseSchema = DataOf(ref(AppointmentSchema));
export const AppointmentListResponseSchema = ListOf(ref(AppointmentSchema), { cursorMode: true });

export const appointmentsSchemas: TSchema[] = [
  AppointmentSchema,
  CreateAppointmentBodySchema,
  UpdateAppointmentBodySchema,
];
