import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { CURSOR_MODE_DESCRIPTION } from '../../platform/http/pagination.ts';
import { keyMount, adminMount, defineOperation, mountOperations } from '../../platform/http/operation.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import {
  AppointmentIdParamsSchema,
  AppointmentListResponseSchema,
  AppointmentResponseSchema,
  CreateAppointmentBodySchema,
  ListAppointmentsQuerySchema,
  UpdateAppointmentBodySchema,
} from './appointments.schema.ts';
import * as appointments from './appointments.service.ts';
import * as read from './appointments.read.ts';

const ADMIN = adminMount(['Admin: appointments']);
const READ = keyMount({ scope: 'appointments:read', keyTypes: SECRET_KEYS, write: false }, ['Appointments']);
/** An overlap with another active appointment of the agent. */
const OVERLAP = { 409: ref(ErrorResponseSchema) };

const LIST_DESCRIPTION =
  'Filters combine with AND: `from` (startsAt at or after) and `to` (startsAt strictly before) take a date ' +
  '(its midnight UTC) or a date-time; `agentId`, `contactId`, `status`, `type`. Sorted by startsAt, soonest ' +
  'first, unless `sortBy`/`sortOrder` say otherwise. A page past the end answers `data: []` with the true `meta`. ' +
  CURSOR_MODE_DESCRIPTION;

/**
 * Agents' appointments, each operation declared once (decision 0241): read through v1
 * (appointments:read) and in the back office, created, changed and deleted in the back office. The v1
 * writes (create from a slot, reschedule, cancel) are the booking feature's.
 */
const operations = (db: Database) => [
  defineOperation({
    id: 'appointments.list',
    method: 'GET',
    path: '/appointments',
    summary: "List the agency's appointments",
    description: LIST_DESCRIPTION,
    querystring: ListAppointmentsQuerySchema,
    response: { 200: AppointmentListResponseSchema },
    mounts: [READ, ADMIN],
    handle: (caller, { query }) => read.searchAppointments(db, caller, query),
  }),
  defineOperation({
    id: 'appointments.get',
    method: 'GET',
    path: '/appointments/:id',
    summary: 'Get an appointment',
    description:
      'The appointment with its agent, contact, property, times, type, status and source. 404 when the id is ' +
      'malformed, unknown or of another organization (one answer for all three).',
    params: AppointmentIdParamsSchema,
    response: { 200: AppointmentResponseSchema },
    mounts: [READ, ADMIN],
    handle: async (caller, { params }) => ({ data: await read.findAppointment(db, caller, params.id) }),
  }),
  defineOperation({
    id: 'appointments.create',
    method: 'POST',
    path: '/appointments',
    summary: 'Create an appointment',
    description:
      'Source ADMIN, status SCHEDULED unless given, type SHOWING unless given. The agent, contact and ' +
      "property must be the organization's (400 naming the field). A SCHEDULED or CONFIRMED appointment " +
      'must not overlap another of the agent: 409 DUPLICATE naming it. The booking hours are not enforced ' +
      'here (the back office may book outside them). Records `appointment.created`.',
    body: CreateAppointmentBodySchema,
    response: { 201: AppointmentResponseSchema, ...OVERLAP },
    status: 201,
    mounts: [ADMIN],
    handle: async (caller, { body }) => ({ data: await appointments.createAppointment(db, caller, body) }),
  }),
  defineOperation({
    id: 'appointments.update',
    method: 'PATCH',
    path: '/appointments/:id',
    summary: 'Change an appointment (confirm, cancel, move, reassign)',
    description:
      "CANCELLED, COMPLETED and NO_SHOW free the agent's time (the slot shows on the booking page again). " +
      'Moving `startsAt` keeps the length unless `endsAt` or `durationMinutes` is sent. 409 DUPLICATE when ' +
      'the result overlaps another SCHEDULED or CONFIRMED appointment of the agent. Records `appointment.updated`.',
    params: AppointmentIdParamsSchema,
    body: UpdateAppointmentBodySchema,
    response: { 200: AppointmentResponseSchema, ...OVERLAP },
    mounts: [ADMIN],
    handle: async (caller, { params, body }) => ({
      data: await appointments.updateAppointment(db, caller, params.id, body),
    }),
  }),
  defineOperation({
    id: 'appointments.delete',
    method: 'DELETE',
    path: '/appointments/:id',
    summary: 'Delete an appointment',
    description:
      'Removes it for good (tasks linked to it stay, unlinked); to keep the history set status CANCELLED ' +
      'instead. Records `appointment.deleted`.',
    params: AppointmentIdParamsSchema,
    response: { 200: DeletedResponseSchema },
    mounts: [ADMIN],
    handle: async (caller, { params }) => ({
      data: await appointments.deleteAppointment(db, caller, params.id),
    }),
  }),
];

/** The appointments routes: every operation on each surface that offers it. */
export const appointmentsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  mountOperations(app, operations(db));
};
