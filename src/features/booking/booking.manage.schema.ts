import { Type, type Static } from '@fastify/type-provider-typebox';
import { APPOINTMENT_TYPES } from '../appointments/index.ts';
import { DateTime, Nullable, ref, StringEnum } from '../../platform/http/schemas.ts';
import { CalendarDate, DoubleData, Time } from './booking.schema.ts';

export const MANAGED_STATUSES = ['SCHEDULED', 'CONFIRMED', 'CANCELLED', 'COMPLETED', 'NO_SHOW'] as const;

export const ManageTokenParamsSchema = Type.Object(
  {
    token: Type.String({
      maxLength: 200,
      description: 'The token of the manage link (the last segment of the booking answer’s `manageUrl`)',
    }),
  },
  { additionalProperties: false },
);

export const ManagedVisitSchema = Type.Object(
  {
    appointmentId: Type.String(),
    status: StringEnum(MANAGED_STATUSES),
    type: StringEnum(APPOINTMENT_TYPES),
    startsAt: DateTime(),
    endsAt: DateTime(),
    timezone: Type.String({
      description: "The agent's IANA zone: `date` and `startTime` are wall-clock there",
    }),
    date: CalendarDate,
    startTime: Time,
    agent: Type.Object(
      {
        fullName: Type.String(),
        photoUrl: Nullable(Type.String()),
        slug: Nullable(Type.String({ description: 'The booking page (null when it is off)' })),
      },
      { additionalProperties: false },
    ),
    propertyId: Nullable(Type.String({ description: 'The listing visited (GET /v1/properties/{id})' })),
    canChange: Type.Boolean({
      description: 'True while the visit is SCHEDULED or CONFIRMED and has not started',
    }),
  },
  { $id: 'ManagedVisit', additionalProperties: false },
);
export type ManagedVisit = Static<typeof ManagedVisitSchema>;

export const CancelVisitBodySchema = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500, examples: ['I found another flat'] })) },
  { $id: 'CancelVisitBody', additionalProperties: false },
);
export type CancelVisitBody = Static<typeof CancelVisitBodySchema>;

export const MoveVisitBodySchema = Type.Object(
  { date: CalendarDate, startTime: Time },
  { $id: 'MoveVisitBody', additionalProperties: false },
);
export type MoveVisitBody = Static<typeof MoveVisitBodySchema>;

export const ManagedVisitResponseSchema = DoubleData(ref(ManagedVisitSchema));

export const bookingManageSchemas = [ManagedVisitSchema, CancelVisitBodySchema, MoveVisitBodySchema];
