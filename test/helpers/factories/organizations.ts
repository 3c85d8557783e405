/** Organizations and their API keys, through the admin API. */
import type { FastifyInstance } from 'fastify';
import type { CreatedApiKey } from '../../../src/features/api-keys/index.ts';
import type { AdminOrganization } from '../../../src/features/organizations/index.ts';
import { admin, expectStatus } from '../http.ts';

/** Limits no test reaches (100,000/min), for a key's requests and writes. */
export const FAST = { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };

/** Fields of POST /admin/v1/organizations. */
export interface OrganizationFields {
  name?: string;
  plan?: string;
  /** The country national phone numbers are read in. */
  defaultCountry?: string;
  defaultCurrency?: string;
  /** The organization's own write limit, shared by its keys. */
  writeLimitPerMinute?: number;
}

/** An organization (named Test Realty, plan BUSINESS unless `fields` say otherwise). */
export async function createOrganization(
  app: FastifyInstance,
  fields: OrganizationFields = {},
): Promise<AdminOrganization> {
  const response = await admin(app, 'POST', '/admin/v1/organizations', {
    name: 'Test Realty',
    plan: 'BUSINESS',
    ...fields,
  });
  return expectStatus(response, 201).data;
}

/** A key of the organization: `body` is POST /admin/v1/organizations/:id/api-keys's body. */
export async function createApiKey(
  app: FastifyInstance,
  organizationId: string,
  body: Record<string, unknown>,
): Promise<CreatedApiKey> {
  const response = await admin(app, 'POST', `/admin/v1/organizations/${organizationId}/api-keys`, body);
  return expectStatus(response, 201).data;
}

/**
 * A publishable key whose request and write limits (100,000/min) no test reaches, for the files that
 * post many portal forms; `body` adds to it (`{ mode: 'test' }`: a key of the organization's test twin).
 */
export async function busyPublishableKey(
  app: FastifyInstance,
  organizationId: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const created = await createApiKey(app, organizationId, { type: 'publishable', ...FAST, ...body });
  return created.key;
}
