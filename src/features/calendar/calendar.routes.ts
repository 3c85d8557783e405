import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import type { AppContext } from '../../platform/features/manifest.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { DeletedResponseSchema, OrganizationIdParamsSchema, ref } from '../../platform/http/schemas.ts';
import {
  CalendarSettingsResponseSchema,
  ClosureListResponseSchema,
  ClosureResponseSchema,
  CreateClosureBodySchema,
  CreateTimeOffBodySchema,
  IdParamsSchema,
  ListClosuresQuerySchema,
  ListTimeOffQuerySchema,
  OrgIdParamsSchema,
  TimeOffListResponseSchema,
  TimeOffResponseSchema,
  UpdateCalendarSettingsBodySchema,
  type UpdateCalendarSettingsBody,
} from './calendar.schema.ts';
import * as calendar from './calendar.service.ts';

const READ = { auth: { scope: 'appointments:read', keyTypes: SECRET_KEYS, write: false } } as const;
const WRITE = {
  auth: { scope: 'appointments:write', keyTypes: ['secret'], write: true, accessLevel: 3 },
} as const;
const ADMIN = { admin: true } as const;
const TAGS = ['Calendar'];
const ADMIN_TAGS = ['Admin: calendar'];
const GUIDE = 'How slots are computed: docs/booking.md.';
const READ_KEYS = 'Secret or read-only secret key with `appointments:read`.';
const WRITE_KEYS = 'Secret key with `appointments:write` at access level 3.';

const SETTINGS =
  "The organization's time zone (its closures are days there, and agents who turn booking on without a zone " +
  'get it), the public holidays that close it (`holidays`: country and region, computed with date-holidays) ' +
  'and when reminders go before each appointment (`reminderOffsetsMinutes`) with which APPROVED message ' +
  'template (`reminderTemplateId`). A test twin follows its live organization (and sends no reminders).';
const CLOSURES =
  'The days the agency is closed, in its time zone: its own closures (`AGENCY`, with an id) and the public ' +
  'holidays of its holiday settings (`PUBLIC_HOLIDAY`, computed: id null). No slot is offered on them. `from` ' +
  "(default today) and `to` (default a year on) are days in the organization's time zone, at most 731 apart.";
const CLOSURE_CREATE =
  'Closes the agency from `startDate` to `endDate` (inclusive, default one day, at most 366 days): availability ' +
  'offers no slot of any agent on those days and a booking of one is a 400. Appointments already on them stay. ';
const TIME_OFF =
  "Agents' time off that ends after `from` (default now) and starts before `to`, earliest first; `agentId` " +
  'narrows to one agent.';
const TIME_OFF_CREATE =
  'An agent is away from `startsAt` to `endsAt` (instants, at most 366 days): no slot of theirs that overlaps ' +
  'it is offered and a booking of one is a 400. Appointments already in it stay (move or cancel them). 400 when ' +
  'the agent is not the organization’s. ';

/**
 * The agency's calendar: settings, closures and time off, through v1 and the admin API (its paths are
 * its own, so each surface keeps its route; both call the same service with their caller).
 */
export const calendarRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, verifier }) => {
  /** A settings change: this process's next request sees the organization's new time zone at once. */
  const changeSettings = async (
    request: FastifyRequest,
    body: UpdateCalendarSettingsBody,
    twinField: string,
  ) => {
    const settings = await calendar.updateCalendarSettings(db, callerOf(request), body, twinField);
    verifier.invalidate();
    return { data: settings };
  };

  app.get(
    '/v1/calendar/settings',
    {
      config: READ,
      schema: {
        operationId: 'calendar.settings.get',
        summary: "The organization's calendar settings",
        description: `${READ_KEYS} ${SETTINGS} ${GUIDE}`,
        tags: TAGS,
        response: { 200: CalendarSettingsResponseSchema },
      },
    },
    async (request) => ({ data: await calendar.getCalendarSettings(db, callerOf(request)) }),
  );

  app.patch(
    '/v1/calendar/settings',
    {
      config: WRITE,
      schema: {
        operationId: 'calendar.settings.update',
        summary: "Change the organization's calendar settings",
        description:
          `${WRITE_KEYS} Live keys only: a test key gets a 400 (the test twin follows the live organization). ` +
          `${SETTINGS} 400 for an unknown time zone, holiday country or region. ${GUIDE}`,
        tags: TAGS,
        body: ref(UpdateCalendarSettingsBodySchema),
        response: { 200: CalendarSettingsResponseSchema },
      },
    },
    async (request) => changeSettings(request, request.body, 'header.x-api-key'),
  );

  app.get(
    '/v1/calendar/closures',
    {
      config: READ,
      schema: {
        operationId: 'calendar.closures.list',
        summary: 'List the days the agency is closed',
        description: `${READ_KEYS} ${CLOSURES}`,
        tags: TAGS,
        querystring: ListClosuresQuerySchema,
        response: { 200: ClosureListResponseSchema },
      },
    },
    async (request) => ({ data: await calendar.listClosures(db, callerOf(request), request.query) }),
  );

  app.post(
    '/v1/calendar/closures',
    {
      config: WRITE,
      schema: {
        operationId: 'calendar.closures.create',
        summary: 'Close the agency on some days',
        description: `${WRITE_KEYS} ${CLOSURE_CREATE}${GUIDE}`,
        tags: TAGS,
        body: ref(CreateClosureBodySchema),
        response: { 201: ClosureResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await calendar.createClosure(db, callerOf(request), request.body) }),
  );

  app.delete(
    '/v1/calendar/closures/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'calendar.closures.delete',
        summary: "Delete one of the agency's closures",
        description: `${WRITE_KEYS} Its days are bookable again. Public holidays are not deleted: change \`holidays\` instead.`,
        tags: TAGS,
        params: IdParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => {
      await calendar.deleteClosure(db, callerOf(request), request.params.id);
      return { data: { id: request.params.id, deleted: true as const } };
    },
  );

  app.get(
    '/v1/calendar/time-off',
    {
      config: READ,
      schema: {
        operationId: 'calendar.timeOff.list',
        summary: "List agents' time off",
        description: `${READ_KEYS} ${TIME_OFF}`,
        tags: TAGS,
        querystring: ListTimeOffQuerySchema,
        response: { 200: TimeOffListResponseSchema },
      },
    },
    async (request) => calendar.listTimeOff(db, callerOf(request), request.query),
  );

  app.post(
    '/v1/calendar/time-off',
    {
      config: WRITE,
      schema: {
        operationId: 'calendar.timeOff.create',
        summary: "Record an agent's time off",
        description: `${WRITE_KEYS} ${TIME_OFF_CREATE}${GUIDE}`,
        tags: TAGS,
        body: ref(CreateTimeOffBodySchema),
        response: { 201: TimeOffResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await calendar.createTimeOff(db, callerOf(request), request.body) }),
  );

  app.delete(
    '/v1/calendar/time-off/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'calendar.timeOff.delete',
        summary: "Delete an agent's time off",
        description: `${WRITE_KEYS} The agent's slots in it are offered again.`,
        tags: TAGS,
        params: IdParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => {
      await calendar.deleteTimeOff(db, callerOf(request), request.params.id);
      return { data: { id: request.params.id, deleted: true as const } };
    },
  );

  // The back office: the same operations on the organization of its path, through the operator's caller.
  app.get(
    '/admin/v1/organizations/:orgId/calendar',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.calendar.settings.get',
        summary: "An organization's calendar settings",
        description: `${SETTINGS} ${GUIDE}`,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        response: { 200: CalendarSettingsResponseSchema },
      },
    },
    async (request) => ({ data: await calendar.getCalendarSettings(db, callerOf(request)) }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/calendar',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.calendar.settings.update',
        summary: "Change an organization's calendar settings",
        description: `${SETTINGS} A test twin is changed through its live organization (400 otherwise). ${GUIDE}`,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: ref(UpdateCalendarSettingsBodySchema),
        response: { 200: CalendarSettingsResponseSchema },
      },
    },
    async (request) => changeSettings(request, request.body, 'path.orgId'),
  );

  app.get(
    '/admin/v1/organizations/:orgId/closures',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.calendar.closures.list',
        summary: 'List the days an organization is closed',
        description: CLOSURES,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListClosuresQuerySchema,
        response: { 200: ClosureListResponseSchema },
      },
    },
    async (request) => ({ data: await calendar.listClosures(db, callerOf(request), request.query) }),
  );

  app.post(
    '/admin/v1/organizations/:orgId/closures',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.calendar.closures.create',
        summary: 'Close an organization on some days',
        description: `${CLOSURE_CREATE}${GUIDE}`,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: ref(CreateClosureBodySchema),
        response: { 201: ClosureResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await calendar.createClosure(db, callerOf(request), request.body) }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/closures/:id',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.calendar.closures.delete',
        summary: "Delete one of an organization's closures",
        description: 'Its days are bookable again.',
        tags: ADMIN_TAGS,
        params: OrgIdParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => {
      await calendar.deleteClosure(db, callerOf(request), request.params.id);
      return { data: { id: request.params.id, deleted: true as const } };
    },
  );

  app.get(
    '/admin/v1/organizations/:orgId/time-off',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.calendar.timeOff.list',
        summary: "List an organization's agents' time off",
        description: TIME_OFF,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListTimeOffQuerySchema,
        response: { 200: TimeOffListResponseSchema },
      },
    },
    async (request) => calendar.listTimeOff(db, callerOf(request), request.query),
  );

  app.post(
    '/admin/v1/organizations/:orgId/time-off',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.calendar.timeOff.create',
        summary: "Record an agent's time off",
        description: `${TIME_OFF_CREATE}${GUIDE}`,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: ref(CreateTimeOffBodySchema),
        response: { 201: TimeOffResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await calendar.createTimeOff(db, callerOf(request), request.body) }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/time-off/:id',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.calendar.timeOff.delete',
        summary: "Delete an agent's time off",
        description: "The agent's slots in it are offered again.",
        tags: ADMIN_TAGS,
        params: OrgIdParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => {
      await calendar.deleteTimeOff(db, callerOf(request), request.params.id);
      return { data: { id: request.params.id, deleted: true as const } };
    },
  );
};
