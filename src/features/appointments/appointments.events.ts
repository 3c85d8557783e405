import { Type } from '@fastify/type-provider-typebox';
import { defineEvent, tombstoneSchema } from '../../platform/events/catalog.ts';
import { Nullable } from '../../platform/http/schemas.ts';

// Inline schemas (no $ref): the catalog and samples show the payload whole. The three events carry
// the same appointment members, so one parser reads them all; `contactId` is nullable in updates
// and deletions because a deleted contact leaves its appointments behind, never in a booking.
const appointmentFields = {
  id: Type.String(),
  agentId: Type.String(),
  contactId: Nullable(Type.String()),
  propertyId: Nullable(Type.String()),
  type: Type.String(),
  status: Type.String(),
  startsAt: Type.String({ format: 'date-time' }),
  endsAt: Type.String({ format: 'date-time' }),
  timezone: Type.String(),
  source: Type.String(),
  notes: Nullable(Type.String()),
};
const AppointmentPayload = Type.Object(appointmentFields, { additionalProperties: false });

const ContactSummary = Type.Object(
  {
    id: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    fullName: Type.String(),
    phone: Nullable(Type.String()),
    email: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

const example = {
  id: 'apt_0VhJ3kQ2Zt8mX1pR4sT6uB',
  agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA',
  contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC',
  propertyId: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uW',
  type: 'SHOWING',
  status: 'CANCELLED',
  startsAt: '2027-03-29T08:00:00.000Z',
  endsAt: '2027-03-29T08:30:00.000Z',
  timezone: 'Europe/Madrid',
  source: 'BOOKING',
  notes: 'Could we also see the storage room?',
};

const exampleContact = {
  id: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC',
  firstName: 'Marta',
  lastName: 'Gil',
  fullName: 'Marta Gil',
  phone: '+34611222333',
  email: 'marta@example.com',
};

export const AppointmentCreated = defineEvent({
  type: 'appointment.created',
  description:
    "Someone booked a slot on an agent's booking page. `appointment.status` is CONFIRMED when the agent " +
    "auto-confirms, SCHEDULED otherwise; times are UTC instants, `timezone` is the agent's.",
  schema: Type.Object(
    {
      appointment: Type.Object(
        { ...appointmentFields, contactId: Type.String() },
        { additionalProperties: false },
      ),
      contact: ContactSummary,
    },
    { additionalProperties: false },
  ),
  example: {
    appointment: { ...example, status: 'CONFIRMED' },
    contact: exampleContact,
  },
});

export const AppointmentUpdated = defineEvent({
  type: 'appointment.updated',
  description:
    'An appointment changed in the back office: confirmed, cancelled (its time is free again), moved, ' +
    'reassigned, completed or marked NO_SHOW. `data.changes` names the fields sent; times are UTC instants, ' +
    "`timezone` is the agent's. `contact` is null when the appointment has no contact any more.",
  schema: Type.Object(
    {
      appointment: AppointmentPayload,
      contact: Type.Union([ContactSummary, Type.Null()]),
      changes: Type.Array(Type.String()),
    },
    { additionalProperties: false },
  ),
  example: {
    appointment: example,
    contact: exampleContact,
    changes: ['status'],
  },
});

export const AppointmentDeleted = defineEvent({
  type: 'appointment.deleted',
  description:
    'An appointment was deleted in the back office (its time is free again). To call off a visit and keep ' +
    'its history, set its status to CANCELLED instead (`appointment.updated`). Its tasks stay, with ' +
    '`appointmentId` null. `data.appointment` is a tombstone: its id and when it was deleted.',
  schema: tombstoneSchema('appointment'),
  example: { appointment: { id: example.id, deletedAt: '2027-03-29T10:15:00.000Z' } },
});
