import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import { AppointmentResponseSchema, cancelAppointment } from '../appointments/index.ts';
import {
  CancelAppointmentBodySchema,
  CreateApiAppointmentBodySchema,
  RescheduleAppointmentBodySchema,
} from './booking.appointments.schema.ts';
import * as writes from './booking.appointments.service.ts';
import { Type } from '@fastify/type-provider-typebox';

// Writing appointments is support-approved, like contacts and deals (decisions 0195, 0199).
const WRITE = {
  auth: { scope: 'appointments:write', keyTypes: ['secret'], write: true, accessLevel: 3 },
} as const;
const TAGS = ['Appointments'];
/** A taken slot (DUPLICATE) or an appointment that no longer holds time (CONFLICT). */
const CLASH = { 409: ref(ErrorResponseSchema) };
const IdParams = Type.Object(
  { id: Type.String({ description: 'apt_… identifier' }) },
  { additionalProperties: false },
);
const SLOT_RULES =
  "`date` and `startTime` are on the agent's calendar (its booking time zone) and must name a slot the agent " +
  'offers: 400 naming `body.date` or `body.startTime` for a past date, one within the minimum notice or beyond ' +
  'the horizon, a day off, a time off the slot grid, or an agent without booking hours; 409 DUPLICATE when the ' +
  'slot is taken (also when two writes race for it: exactly one succeeds). The free slots are those of ' +
  'GET /v1/booking/{slug}/availability.';

/** The v1 appointment writes (appointments:write, secret keys, level 3); slot-checked by the booking rules. */
export const bookingAppointmentsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/v1/appointments',
    {
      config: WRITE,
      schema: {
        operationId: 'appointments.create',
        summary: 'Create an appointment on a free slot',
        description:
          'Secret key with `appointments:write`, access level 3. ' +
          SLOT_RULES +
          " The agent, contact and property must be the organization's (400 naming the field). The appointment " +
          "lasts the agent's slot, is CONFIRMED when the agent auto-confirms (SCHEDULED otherwise) and has source " +
          'API. Records `appointment.created` (actor API). Send an `Idempotency-Key` to retry safely.',
        tags: TAGS,
        body: CreateApiAppointmentBodySchema,
        response: { 201: AppointmentResponseSchema, ...CLASH },
      },
    },
    async (request, reply) => {
      const appointment = await writes.createApiAppointment(db, callerOf(request), request.body);
      return reply.code(201).send({ data: appointment });
    },
  );

  app.patch(
    '/v1/appointments/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'appointments.reschedule',
        summary: 'Move an appointment to another slot',
        description:
          'Secret key with `appointments:write`, access level 3. Moves the appointment to another slot of its agent ' +
          'in one transaction; its current slot counts as free, and is free for others once moved. ' +
          SLOT_RULES +
          ' 409 CONFLICT for an appointment that is CANCELLED, COMPLETED or NO_SHOW. Records `appointment.updated` ' +
          '(changes `startsAt`, `endsAt`; actor API). 404 for an id of another organization.',
        tags: TAGS,
        params: IdParams,
        body: RescheduleAppointmentBodySchema,
        response: { 200: AppointmentResponseSchema, ...CLASH },
      },
    },
    async (request) => ({
      data: await writes.rescheduleAppointment(db, callerOf(request), request.params.id, request.body),
    }),
  );

  app.post(
    '/v1/appointments/:id/cancel',
    {
      config: WRITE,
      schema: {
        operationId: 'appointments.cancel',
        summary: 'Cancel an appointment',
        description:
          "Secret key with `appointments:write`, access level 3. Status CANCELLED; the agent's time is free again. " +
          'The `reason` is added to the notes as a "Cancelled: …" line. Records `appointment.updated` (actor API). ' +
          'An appointment already CANCELLED is answered as it is, with no event; 409 CONFLICT for a COMPLETED or ' +
          'NO_SHOW one. 404 for an id of another organization.',
        tags: TAGS,
        params: IdParams,
        body: CancelAppointmentBodySchema,
        response: { 200: AppointmentResponseSchema, ...CLASH },
      },
    },
    async (request) => {
      return { data: await cancelAppointment(db, callerOf(request), request.params.id, request.body.reason) };
    },
  );
};
