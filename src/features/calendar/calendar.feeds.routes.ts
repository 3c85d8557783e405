import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import type { AppContext } from '../../platform/features/manifest.ts';
import { originOf } from '../../platform/http/origin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { DeletedResponseSchema, ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import {
  appointmentIcs,
  deleteCalendarFeed,
  feedUrl,
  listCalendarFeeds,
  rotateCalendarFeed,
  subscriptionIcs,
} from './calendar.feeds.ts';
import {
  AgentIdParamsSchema,
  AppointmentIcsParamsSchema,
  CalendarFeedListResponseSchema,
  CalendarFeedTokenResponseSchema,
  CalendarTokenParamsSchema,
} from './calendar.schema.ts';

const READ = { auth: { scope: 'appointments:read', keyTypes: SECRET_KEYS, write: false } } as const;
const WRITE = {
  auth: { scope: 'appointments:write', keyTypes: ['secret'], write: true, accessLevel: 3 },
} as const;
const TAGS = ['Calendar'];
const ICS = 'text/calendar; charset=utf-8';
const icsResponse = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'text/calendar': { schema: { type: 'string', description: 'iCalendar (RFC 5545)' } } },
});

/** Appointments as iCalendar: one appointment, and the agents' subscription URLs. */
export const calendarFeedsRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, config }) => {
  const origin = (request: FastifyRequest) => originOf(request, config.publicUrl);

  app.get(
    '/v1/appointments/:id.ics',
    {
      config: READ,
      schema: {
        operationId: 'appointments.ics',
        summary: 'An appointment as an iCalendar file',
        description:
          'Secret or read-only secret key with `appointments:read`. One VEVENT (RFC 5545) to import into any ' +
          'calendar: times in UTC, its status (SCHEDULED is TENTATIVE, CANCELLED is CANCELLED), the listing’s ' +
          'address as location, the contact in the description; its UID (`<id>@agency-crm`) is the same in every ' +
          'download and in the agent’s subscription, whatever host serves it, so calendars update it in place; its ' +
          'SEQUENCE is 0 when booked and one more at each move or change of status. 404 as GET /v1/appointments/{id}.',
        tags: TAGS,
        params: AppointmentIcsParamsSchema,
        response: { 200: icsResponse('The iCalendar file'), 404: ref(ErrorResponseSchema) },
      },
    },
    async (request, reply) => {
      const body = await appointmentIcs(db, callerOf(request), request.params.id);
      return reply
        .type(ICS)
        .header('content-disposition', `attachment; filename="${request.params.id}.ics"`)
        .send(body);
    },
  );

  app.get(
    '/v1/calendar/feeds',
    {
      config: READ,
      schema: {
        operationId: 'calendar.feeds.list',
        summary: "Agents' calendar subscription URLs",
        description:
          'Secret or read-only secret key with `appointments:read`. The agents whose appointments have a ' +
          'subscription URL, with the first characters of its token (the URL is shown only when made).',
        tags: TAGS,
        response: { 200: CalendarFeedListResponseSchema },
      },
    },
    async (request) => ({ data: await listCalendarFeeds(db, callerOf(request)) }),
  );

  app.post(
    '/v1/calendar/feeds/:agentId',
    {
      config: { ...WRITE, optionalBody: true },
      schema: {
        operationId: 'calendar.feeds.create',
        summary: "Make (or replace) an agent's calendar subscription URL",
        description:
          'Secret key with `appointments:write` at access level 3. An unguessable URL of the agent’s ' +
          'appointments in iCalendar, to subscribe to from Google Calendar (“From URL”), Outlook (“Subscribe ' +
          'from web”) or Apple Calendar (“New Calendar Subscription”): the last 30 days and the next year, ' +
          'cancelled ones shown as cancelled. Answered only now; the previous URL of the agent stops working ' +
          'at once (rotate it when it leaked). 404 for an agent not the organization’s.',
        tags: TAGS,
        params: AgentIdParamsSchema,
        response: { 201: CalendarFeedTokenResponseSchema, 404: ref(ErrorResponseSchema) },
      },
    },
    async (request, reply) => {
      const { token, feed } = await rotateCalendarFeed(db, callerOf(request), request.params.agentId);
      return reply.code(201).send({ data: { ...feed, token, url: feedUrl(origin(request), token) } });
    },
  );

  app.delete(
    '/v1/calendar/feeds/:agentId',
    {
      config: WRITE,
      schema: {
        operationId: 'calendar.feeds.delete',
        summary: "Turn an agent's calendar subscription URL off",
        description:
          'Secret key with `appointments:write` at access level 3. The URL answers 404 from now on. 404 when ' +
          'the agent has none.',
        tags: TAGS,
        params: AgentIdParamsSchema,
        response: { 200: DeletedResponseSchema, 404: ref(ErrorResponseSchema) },
      },
    },
    async (request) => {
      await deleteCalendarFeed(db, callerOf(request), request.params.agentId);
      return { data: { id: request.params.agentId, deleted: true as const } };
    },
  );

  app.get(
    '/calendars/:token.ics',
    {
      config: { credential: { kind: 'calendar', write: false } },
      schema: {
        operationId: 'calendar.feeds.ics',
        summary: "An agent's appointments as an iCalendar subscription",
        description:
          'No key: the URL carries the token (POST /v1/calendar/feeds/{agentId}). The agent’s appointments of ' +
          'the last 30 days and the next year (at most 2,000), as GET /v1/appointments/{id}.ics writes them; ' +
          'calendars poll it (REFRESH-INTERVAL 15 minutes). 404 for a wrong, replaced or removed token; 403 ' +
          'while the organization or the agent is not active.',
        tags: TAGS,
        params: CalendarTokenParamsSchema,
        response: {
          200: icsResponse('The calendar', {
            'Cache-Control': { type: 'string', description: '`private, no-cache`: revalidate on every poll' },
          }),
          404: ref(ErrorResponseSchema),
        },
      },
    },
    async (request, reply) => {
      const body = await subscriptionIcs(db, callerOf(request));
      return reply.type(ICS).header('cache-control', 'private, no-cache').send(body);
    },
  );
};
