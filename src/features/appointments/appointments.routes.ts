import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { CURSOR_MODE_DESCRIPTION } from '../../platform/http/pagination.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import {
  AppointmentIdParamsSchema,
  AppointmentListResponseSchema,
  AppointmentResponseSchema,
  CreateAppointmentBodySchema,
  ListAppointmentsQuerySchema,
  OrgAppointmentParamsSchema,
  UpdateAppointmentBodySchema,
} from './appointments.schema.ts';
import * as appointments from './appointments.service.ts';
import * as read from './appointments.read.ts';

const ADMIN = { admin: true } as const;
const ADMIN_TAGS = ['Admin: appointments'];
const READ = { auth: { scope: 'appointments:read', keyTypes: SECRET_KEYS, write: false } } as const;
const TAGS = ['Appointments'];
/** An overlap with another active appointment of the agent. */
const OVERLAP = { 409: ref(ErrorResponseSchema) };

const LIST_DESCRIPTION =
  'Filters combine with AND: `from` (startsAt at or after) and `to` (startsAt strictly before) take a date ' +
  '(its midnight UTC) or a date-time; `agentId`, `contactId`, `status`, `type`. Sorted by startsAt, soonest ' +
  'first, unless `sortBy`/`sortOrder` say otherwise. A page past the end answers `data: []` with the true `meta`. ' +
  CURSOR_MODE_DESCRIPTION;

/** Agents' appointments: read through the v1 API (appointments:read) and managed in the back office. */
export const appointmentsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/appointments',
    {
      config: READ,
      schema: {
        operationId: 'appointments.list',
        summary: "List the agency's appointments",
        description: LIST_DESCRIPTION,
        tags: TAGS,
        querystring: ListAppointmentsQuerySchema,
        response: { 200: AppointmentListResponseSchema },
      },
    },
    async (request) => read.searchAppointments(db, callerOf(request).organization.id, request.query),
  );

  app.get(
    '/v1/appointments/:id',
    {
      config: READ,
      schema: {
        operationId: 'appointments.get',
        summary: 'Get an appointment',
        description:
          'Secret or read-only secret key with `appointments:read`. The appointment with its agent, ' +
          'contact, property, times, type, status and source. 404 when the id is malformed, unknown or of ' +
          'another organization (one answer for all three).',
        tags: TAGS,
        params: AppointmentIdParamsSchema,
        response: { 200: AppointmentResponseSchema },
      },
    },
    async (request) => ({
      data: await read.findAppointment(db, callerOf(request).organization.id, request.params.id),
    }),
  );

  app.post(
    '/admin/v1/organizations/:orgId/appointments',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.appointments.create',
        summary: 'Create an appointment',
        description:
          'Source ADMIN, status SCHEDULED unless given, type SHOWING unless given. The agent, contact and ' +
          "property must be the organization's (400 naming the field). A SCHEDULED or CONFIRMED appointment " +
          'must not overlap another of the agent: 409 DUPLICATE naming it. The booking hours are not enforced ' +
          'here (the back office may book outside them). Records `appointment.created`.',
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateAppointmentBodySchema,
        response: { 201: AppointmentResponseSchema, ...OVERLAP },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send({ data: await appointments.createAppointment(db, request.params.orgId, request.body) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/appointments',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.appointments.list',
        summary: "List an organization's appointments",
        description: LIST_DESCRIPTION,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListAppointmentsQuerySchema,
        response: { 200: AppointmentListResponseSchema },
      },
    },
    async (request) => read.listAdminAppointments(db, request.params.orgId, request.query),
  );

  app.get(
    '/admin/v1/organizations/:orgId/appointments/:appointmentId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.appointments.get',
        summary: 'Get an appointment',
        description:
          'Admin bearer token. The appointment as GET /v1/appointments/{id} shows it. 404 when the ' +
          'organization is unknown or the appointment is not one of its.',
        tags: ADMIN_TAGS,
        params: OrgAppointmentParamsSchema,
        response: { 200: AppointmentResponseSchema },
      },
    },
    async (request) => ({
      data: await read.getAdminAppointment(db, request.params.orgId, request.params.appointmentId),
    }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/appointments/:appointmentId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.appointments.update',
        summary: 'Change an appointment (confirm, cancel, move, reassign)',
        description:
          "CANCELLED, COMPLETED and NO_SHOW free the agent's time (the slot shows on the booking page again). " +
          'Moving `startsAt` keeps the length unless `endsAt` or `durationMinutes` is sent. 409 DUPLICATE when ' +
          'the result overlaps another SCHEDULED or CONFIRMED appointment of the agent. Records `appointment.updated`.',
        tags: ADMIN_TAGS,
        params: OrgAppointmentParamsSchema,
        body: UpdateAppointmentBodySchema,
        response: { 200: AppointmentResponseSchema, ...OVERLAP },
      },
    },
    async (request) => ({
      data: await appointments.updateAppointment(
        db,
        request.params.orgId,
        request.params.appointmentId,
        request.body,
      ),
    }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/appointments/:appointmentId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.appointments.delete',
        summary: 'Delete an appointment',
        description:
          'Removes it for good (tasks linked to it stay, unlinked); to keep the history set status CANCELLED ' +
          'instead. Records `appointment.deleted`.',
        tags: ADMIN_TAGS,
        params: OrgAppointmentParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => ({
      data: await appointments.deleteAppointment(db, request.params.orgId, request.params.appointmentId),
    }),
  );
};
