import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { ANY_KEY, SECRET_KEYS } from '../../platform/http/route-config.ts';
import { browserLanguage } from '../../platform/http/languages.ts';
import {
  CreateLeadBodySchema,
  LeadIdParamsSchema,
  LeadListResponseSchema,
  LeadReceiptResponseSchema,
  LeadResponseSchema,
  ListLeadsQuerySchema,
  ScheduleVisitBodySchema,
  VisitRequestResponseSchema,
} from './leads.schema.ts';
import * as read from './leads.read.ts';
import * as leads from './leads.service.ts';

const LEADS_WRITE = { auth: { scope: 'leads:write', keyTypes: ANY_KEY, write: true } } as const;
const LEADS_READ = { auth: { scope: 'leads:read', keyTypes: SECRET_KEYS, write: false } } as const;
const TAGS = ['Leads'];

/** What a Lead holds, and what it does not (docs/decisions/0197-reading-leads.md). */
const LEAD_CONTENT =
  'Each lead has its contact (id and current name), its property (id, code, title; null for a general ' +
  'enquiry or once the property is deleted), the message, `interestedIn`, the four UTM values (null when ' +
  'the form sent none), the `referrer`, the `outcome` (CREATED: the form made the contact; MATCHED: it ' +
  'found an existing one, `matchedOn` PHONE or EMAIL; null for leads sent before 2026-11-26) and createdAt.';

/**
 * The portal's contact form and visit requests (publishable key, leads:write), and the leads read
 * back by the agency's server (secret keys, leads:read).
 */
export const leadsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/leads',
    {
      config: LEADS_READ,
      schema: {
        operationId: 'leads.list',
        summary: 'List the leads',
        description:
          'Secret or read-only secret key with `leads:read`. The contact forms sent from the portal, newest ' +
          'first. Filters combine with AND: `createdAfter` (inclusive) / `createdBefore` (strict), a date ' +
          'meaning its start in UTC; `propertyId`; `utmSource` (exact); `outcome` (CREATED or MATCHED). A page past the end answers `data: []` ' +
          `with the true \`meta\`. ${LEAD_CONTENT}`,
        tags: TAGS,
        querystring: ListLeadsQuerySchema,
        response: { 200: LeadListResponseSchema },
      },
    },
    async (request) => read.searchLeads(db, callerOf(request), request.query),
  );

  app.get(
    '/v1/leads/:id',
    {
      config: LEADS_READ,
      schema: {
        operationId: 'leads.get',
        summary: 'Get a lead',
        description:
          'Secret or read-only secret key with `leads:read`. 404 when the id is malformed, unknown or of ' +
          `another organization (one answer for all three). ${LEAD_CONTENT}`,
        tags: TAGS,
        params: LeadIdParamsSchema,
        response: { 200: LeadResponseSchema },
      },
    },
    async (request) => ({
      data: await read.findLead(db, callerOf(request), request.params.id),
    }),
  );

  app.post(
    '/v1/leads',
    {
      config: LEADS_WRITE,
      schema: {
        operationId: 'leads.create',
        summary: 'Send the contact form',
        description:
          "Creates or updates the contact (matched by phone in E.164, read in the agency's default country, " +
          "then by email), stores the lead with its property, UTM data, referrer (the body's `referrer`, else the " +
          'Referer header) and outcome (CREATED or MATCHED, on PHONE or EMAIL), and counts a LEAD_FORM portal ' +
          'analytics event. Fires `contact.created` or `contact.updated`, then `lead.submitted` ' +
          '(payload `{success: true}` only). `propertyId` must name a property published on the portal.',
        tags: TAGS,
        body: CreateLeadBodySchema,
        response: { 201: LeadReceiptResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await leads.captureLead(db, callerOf(request), request.body, {
          referer: request.headers.referer,
          language: browserLanguage(request),
        }),
      }),
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
      reply.code(201).send({
        data: await leads.requestVisit(
          db,
          callerOf(request),
          request.body,
          new Date(),
          browserLanguage(request),
        ),
      }),
  );
};
