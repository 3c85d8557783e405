import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { principalOf } from '../../platform/auth/auth.plugin.ts';
import { ANY_KEY } from '../../platform/http/route-config.ts';
import {
  CreateLeadBodySchema,
  LeadResponseSchema,
  ScheduleVisitBodySchema,
  VisitRequestResponseSchema,
} from './leads.schema.ts';
import * as leads from './leads.service.ts';

const LEADS_WRITE = { auth: { scope: 'leads:write', keyTypes: ANY_KEY, write: true } } as const;
const TAGS = ['Leads'];

/** The portal's contact form and visit requests (publishable key, leads:write). */
export const leadsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/v1/leads',
    {
      config: LEADS_WRITE,
      schema: {
        operationId: 'leads.create',
        summary: 'Send the contact form',
        description:
          "Creates or updates the contact (matched by phone in E.164, read in the agency's default country, " +
          'then by email), stores the lead with its property and UTM data, and counts a LEAD_FORM portal ' +
          'analytics event. Fires `contact.created` or `contact.updated`, then `lead.submitted` ' +
          '(payload `{success: true}` only). `propertyId` must name a property published on the portal.',
        tags: TAGS,
        body: CreateLeadBodySchema,
        response: { 201: LeadResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await leads.captureLead(db, principalOf(request), request.body) }),
  );

  app.post(
    '/v1/leads/schedule',
    {
      config: LEADS_WRITE,
      schema: {
        operationId: 'leads.schedule',
        summary: 'Ask to visit a property',
        description:
          'Records a PENDING visit request and upserts the contact (owned by the listing agent). No appointment ' +
          'is created: the agency confirms the visit later. `preferredDate` runs from yesterday in UTC (today ' +
          'somewhere on Earth) to 365 days ahead. Fires `contact.created` or `contact.updated`, then `visit.requested`.',
        tags: TAGS,
        body: ScheduleVisitBodySchema,
        response: { 201: VisitRequestResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await leads.requestVisit(db, principalOf(request), request.body) }),
  );
};
