import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { ANY_KEY, SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import {
  AdminAgentListResponseSchema,
  AdminAgentResponseSchema,
  AgentBookingResponseSchema,
  AgentIdParamsSchema,
  UpdateAgentBookingBodySchema,
  CreateAgentBodySchema,
  ListAgentsQuerySchema,
  OrgAgentParamsSchema,
  PortalAgentListResponseSchema,
  PortalAgentsQuerySchema,
  UpdateAgentBodySchema,
} from './agents.schema.ts';
import * as booking from './agents.booking.ts';
import * as agents from './agents.service.ts';

const ADMIN = { admin: true } as const;
const ADMIN_TAGS = ['Admin: agents'];
/** A taken booking slug, or a deletion refused while appointments are upcoming. */
const CLASH = { 409: ref(ErrorResponseSchema) };

const BOOKING_READ = { auth: { scope: 'appointments:read', keyTypes: SECRET_KEYS, write: false } } as const;
const BOOKING_WRITE = {
  auth: { scope: 'appointments:write', keyTypes: ['secret'], write: true, accessLevel: 3 },
} as const;
const HOURS =
  "The agent's booking page (`bookingSlug`) and hours: weekdays, one or more ranges a day (`weeklyHours`), " +
  'slot length, buffer, minimum notice, horizon, `maxPerDay`, time zone (docs/booking.md).';

/**
 * The agency's team: the portal's agent list (portal:read), an agent's booking hours through v1
 * (appointments:read/write) and the back office's agent CRUD.
 */
export const agentsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/agents/:id/booking',
    {
      config: BOOKING_READ,
      schema: {
        operationId: 'agents.booking.get',
        summary: "An agent's booking page and hours",
        description: `Secret or read-only secret key with \`appointments:read\`. ${HOURS} 404 for an agent not the organization's.`,
        tags: ['Calendar'],
        params: AgentIdParamsSchema,
        response: { 200: AgentBookingResponseSchema },
      },
    },
    async (request) => ({ data: await booking.getAgentBooking(db, callerOf(request), request.params.id) }),
  );

  app.patch(
    '/v1/agents/:id/booking',
    {
      config: BOOKING_WRITE,
      schema: {
        operationId: 'agents.booking.update',
        summary: "Change an agent's booking page and hours",
        description:
          `Secret key with \`appointments:write\` at access level 3. ${HOURS} \`booking\` merges member by member ` +
          'onto the current settings (the organization’s time zone when booking is turned on without one); ' +
          '`booking: null` turns online booking off. Appointments already booked stay. Records `agent.updated`. ' +
          '409 DUPLICATE for a booking slug taken in the organization.',
        tags: ['Calendar'],
        params: AgentIdParamsSchema,
        body: UpdateAgentBookingBodySchema,
        response: { 200: AgentBookingResponseSchema, ...CLASH },
      },
    },
    async (request) => ({
      data: await booking.updateAgentBooking(db, callerOf(request), request.params.id, request.body),
    }),
  );

  app.get(
    '/v1/agents',
    {
      // Any key type: a server-side integration with a secret key holding portal:read renders the team too.
      config: { auth: { scope: 'portal:read', keyTypes: ANY_KEY, write: false }, cache: 'portal' },
      schema: {
        operationId: 'portal.agents.list',
        summary: "The agency's team, for the portal",
        description:
          'Active agents shown on the portal, by name. `bookingSlug` names the booking page ' +
          '(`/v1/booking/{slug}`) of agents who take online bookings, null for the others.',
        tags: ['Portal'],
        querystring: PortalAgentsQuerySchema,
        response: { 200: PortalAgentListResponseSchema },
      },
    },
    async (request) => agents.listPortalAgents(db, callerOf(request), request.query),
  );

  app.post(
    '/admin/v1/organizations/:orgId/agents',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.agents.create',
        summary: 'Create an agent',
        description:
          'With `bookingSlug` and `booking` the agent takes online bookings. The phone is stored in E.164 ' +
          "(read in the organization's default country without `+`).",
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateAgentBodySchema,
        response: { 201: AdminAgentResponseSchema, ...CLASH },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await agents.createAgent(db, callerOf(request), request.body) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/agents',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.agents.list',
        summary: "List an organization's agents, by name",
        description:
          'Admin bearer token. Every agent of the organization, by first then last name ' +
          '(case-insensitive). `active` and `bookable` (active, with a booking slug and booking settings) ' +
          'filter; paged (`pageSize` 20 by default, at most 100).',
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListAgentsQuerySchema,
        response: { 200: AdminAgentListResponseSchema },
      },
    },
    async (request) => agents.listAgents(db, callerOf(request), request.query),
  );

  app.get(
    '/admin/v1/organizations/:orgId/agents/:agentId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.agents.get',
        summary: 'Get an agent',
        description:
          'Admin bearer token. The agent with contact data, `active`, `showOnPortal`, `bookingSlug` and ' +
          'the booking settings (null when online booking is off). 404 when the organization is unknown or ' +
          'the agent is not one of its.',
        tags: ADMIN_TAGS,
        params: OrgAgentParamsSchema,
        response: { 200: AdminAgentResponseSchema },
      },
    },
    async (request) => ({ data: await agents.getAgent(db, callerOf(request), request.params.agentId) }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/agents/:agentId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.agents.update',
        summary: 'Change an agent',
        description:
          '`booking` merges member by member onto the current settings; `booking: null` turns online booking off.',
        tags: ADMIN_TAGS,
        params: OrgAgentParamsSchema,
        body: UpdateAgentBodySchema,
        response: { 200: AdminAgentResponseSchema, ...CLASH },
      },
    },
    async (request) => ({
      data: await agents.updateAgent(db, callerOf(request), request.params.agentId, request.body),
    }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/agents/:agentId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.agents.delete',
        summary: 'Delete an agent',
        description:
          'Removes the agent and their past appointments; their properties and contacts stay, without an agent. ' +
          '409 DUPLICATE while the agent has upcoming appointments (deactivate with `active: false` instead).',
        tags: ADMIN_TAGS,
        params: OrgAgentParamsSchema,
        response: { 200: DeletedResponseSchema, ...CLASH },
      },
    },
    async (request) => ({ data: await agents.deleteAgent(db, callerOf(request), request.params.agentId) }),
  );
};
