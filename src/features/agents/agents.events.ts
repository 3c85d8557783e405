import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';
import { AgentBookingSettingsSchema } from './agents.schema.ts';
import { Nullable } from '../../platform/http/schemas.ts';

// Event schemas are inline (no $ref): the catalog and samples show them whole.
const AgentPayload = Type.Object(
  {
    id: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    photoUrl: Nullable(Type.String()),
    active: Type.Boolean(),
    showOnPortal: Type.Boolean(),
    bookingSlug: Nullable(Type.String()),
    bookable: Type.Boolean(),
    booking: Type.Union([
      Type.Object(AgentBookingSettingsSchema.properties, { additionalProperties: false }),
      Type.Null(),
    ]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const example = {
  id: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA',
  firstName: 'Lucía',
  lastName: 'Romero',
  email: 'lucia@example-realty.com',
  phone: '+34612345678',
  photoUrl: 'https://images.example.com/agents/lucia.jpg',
  active: true,
  showOnPortal: true,
  bookingSlug: 'lucia-romero',
  bookable: true,
  booking: {
    autoConfirm: true,
    timezone: 'Europe/Madrid',
    weekdays: [1, 2, 3, 4, 5],
    startTime: '09:00',
    endTime: '18:00',
    weeklyHours: [{ weekday: 5, startTime: '09:00', endTime: '14:00' }],
    slotMinutes: 30,
    bufferMinutes: 10,
    horizonDays: 60,
    minNoticeMinutes: 60,
    maxPerDay: null,
  },
  createdAt: '2026-11-02T10:15:00.000Z',
  updatedAt: '2026-11-02T10:15:00.000Z',
};

export const AgentCreated = defineEvent({
  type: 'agent.created',
  description: 'An agent was added in the back office.',
  schema: Type.Object({ agent: AgentPayload }, { additionalProperties: false }),
  example: { agent: example },
});

export const AgentUpdated = defineEvent({
  type: 'agent.updated',
  description:
    'An agent changed (details, portal visibility, booking page or hours). `data.changes` names the fields sent.',
  schema: Type.Object(
    { agent: AgentPayload, changes: Type.Array(Type.String()) },
    { additionalProperties: false },
  ),
  example: {
    agent: { ...example, booking: { ...example.booking, autoConfirm: false } },
    changes: ['booking'],
  },
});

export const AgentDeleted = defineEvent({
  type: 'agent.deleted',
  description: 'An agent was deleted in the back office (with their past appointments).',
  schema: Type.Object({ agent: AgentPayload }, { additionalProperties: false }),
  example: { agent: example },
});
