import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

// Inline schemas (no $ref): the catalog and samples show the payload whole. The contact is a
// summary; its full record travels in the contact.created / contact.updated of the same booking.
export const AppointmentCreated = defineEvent({
  type: 'appointment.created',
  description:
    "Someone booked a slot on an agent's booking page. `appointment.status` is CONFIRMED when the agent " +
    "auto-confirms, SCHEDULED otherwise; times are UTC instants, `timezone` is the agent's.",
  schema: Type.Object(
    {
      appointment: Type.Object(
        {
          id: Type.String(),
          agentId: Type.String(),
          contactId: Type.String(),
          propertyId: Nullable(Type.String()),
          type: Type.String(),
          status: Type.String(),
          startsAt: Type.String({ format: 'date-time' }),
          endsAt: Type.String({ format: 'date-time' }),
          timezone: Type.String(),
          source: Type.String(),
          notes: Nullable(Type.String()),
        },
        { additionalProperties: false },
      ),
      contact: Type.Object(
        {
          id: Type.String(),
          firstName: Type.String(),
          lastName: Type.String(),
          fullName: Type.String(),
          phone: Nullable(Type.String()),
          email: Nullable(Type.String()),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  example: {
    appointment: {
      id: 'apt_0VhJ3kQ2Zt8mX1pR4sT6uB',
      agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA',
      contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC',
      propertyId: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uW',
      type: 'SHOWING',
      status: 'CONFIRMED',
      startsAt: '2027-03-29T08:00:00.000Z',
      endsAt: '2027-03-29T08:30:00.000Z',
      timezone: 'Europe/Madrid',
      source: 'BOOKING',
      notes: 'Could we also see the storage room?',
    },
    contact: {
      id: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC',
      firstName: 'Marta',
      lastName: 'Gil',
      fullName: 'Marta Gil',
      phone: '+34611222333',
      email: 'marta@example.com',
    },
  },
});
