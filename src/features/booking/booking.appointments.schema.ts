import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { StringEnum } from '../../platform/http/schemas.ts';
import { APPOINTMENT_TYPES } from '../appointments/index.ts';
import { CalendarDate, Time } from './booking.schema.ts';

// The v1 appointment writes name a slot the way a booking does (date + startTime on the agent's
// calendar), so the same offered-slot rules apply to both (docs/decisions/0199).

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

export const CreateApiAppointmentBodySchema = Type.Object(
  {
    agentId: Id('An active agent of the organization with booking hours (agt_…)'),
    contactId: Id('A contact of the organization (ct_…): the person the appointment is with'),
    propertyId: Type.Optional(Id('A property of the organization (prop_…), published or not')),
    date: CalendarDate,
    startTime: Time,
    type: Type.Optional(StringEnum(APPOINTMENT_TYPES, { description: 'Default SHOWING' })),
  },
  {
    $id: 'CreateApiAppointmentBody',
    additionalProperties: false,
    description:
      "A slot the agent offers (the free slots of GET /v1/booking/{slug}/availability); it lasts the agent's slot length.",
  },
);
export type CreateApiAppointmentBody = Static<typeof CreateApiAppointmentBodySchema>;

export const RescheduleAppointmentBodySchema = Type.Object(
  { date: CalendarDate, startTime: Time },
  {
    $id: 'RescheduleAppointmentBody',
    additionalProperties: false,
    description: "The new slot, on the appointment's agent's calendar; its current slot counts as free.",
  },
);
export type RescheduleAppointmentBody = Static<typeof RescheduleAppointmentBodySchema>;

export const CancelAppointmentBodySchema = Type.Object(
  {
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'Kept in the appointment\'s notes as a "Cancelled: …" line',
      }),
    ),
  },
  { $id: 'CancelAppointmentBody', additionalProperties: false },
);
export type CancelAppointmentBody = Static<typeof CancelAppointmentBodySchema>;

export const bookingAppointmentsSchemas: TSchema[] = [
  CreateApiAppointmentBodySchema,
  RescheduleAppointmentBodySchema,
  CancelAppointmentBodySchema,
];
