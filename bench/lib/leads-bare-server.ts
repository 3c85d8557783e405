/**
 * Child-process entry: the baseline of the leads scenario. One route, POST /v1/leads, whose handler
 * runs the service's own `captureLead` (phone normalization, contact upsert, lead, score, analytics
 * count, events and their webhook fan-out: the same statements) in one transaction with the tenant
 * set on a plain pg Pool (`bare-tenant-route.ts`: no RLS role, no key verification, no rate or
 * write limits, no idempotency layer).
 */
import {
  CreateLeadBodySchema,
  LeadReceiptResponseSchema,
  leadsSchemas,
  type CreateLeadBody,
} from '../../src/features/leads/leads.schema.ts';
import { captureLead } from '../../src/features/leads/leads.service.ts';
import { FEATURES } from '../../src/features.ts';
import { installFeatures } from '../../src/platform/features/manifest.ts';
import type { Caller } from '../../src/platform/auth/caller.ts';
import { listenBareTenantRoute, type BareTenantRouteOptions } from './bare-tenant-route.ts';
import { serveChild } from './protocol.ts';

// Every event type in the catalog `recordEvent` checks against (the app does this; this bare route
// does not build the app).
installFeatures(FEATURES);

export type LeadsBareServerOptions = BareTenantRouteOptions;

/** What captureLead reads of the caller: the organization, its country, the key's agent. */
function callerOf(organizationId: string): Caller {
  return {
    credential: 'api_key',
    keyId: 'key_bare',
    keyPrefix: 'pk_live_bare',
    keyType: 'publishable',
    mode: 'live',
    scopes: ['leads:write'],
    accessLevel: 1,
    agentId: null,
    organization: {
      id: organizationId,
      liveOrganizationId: organizationId,
      name: 'bench',
      plan: 'ENTERPRISE',
      isActive: true,
      readOnly: false,
      livemode: true,
      writesPerMinute: 100_000,
      defaultCountry: 'ES',
      defaultCurrency: 'EUR',
      mcpMaskPersonalData: false,
      defaultLanguage: 'en',
      otherLanguages: [],
      timezone: 'Europe/Madrid',
    },
    limits: { requestsPerMinute: 100_000, writesPerMinute: 100_000 },
    grants: { scopes: ['leads:write'], accessLevel: 1 },
  };
}

serveChild<LeadsBareServerOptions>((options) =>
  listenBareTenantRoute(options, {
    method: 'POST',
    url: '/v1/leads',
    schemas: leadsSchemas,
    body: CreateLeadBodySchema,
    response: LeadReceiptResponseSchema,
    status: 201,
    transaction: true,
    read: async (db, organizationId, _query, request) => ({
      data: await captureLead(db, callerOf(organizationId), request.body as CreateLeadBody),
    }),
  }),
);
