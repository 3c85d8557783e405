import type { FastifyInstance } from 'fastify';
import type { CreatedApiKey } from '../../src/features/api-keys/index.ts';
import type { AdminOrganization } from '../../src/features/organizations/index.ts';
import { SCOPES } from '../../src/platform/auth/scopes.ts';
import { admin, expectStatus } from './http.ts';

export async function createOrganization(
  app: FastifyInstance,
  body: { name?: string; plan?: string; writeLimitPerMinute?: number } = {},
): Promise<AdminOrganization> {
  const response = await admin(app, 'POST', '/admin/v1/organizations', {
    name: 'Test Realty',
    plan: 'BUSINESS',
    ...body,
  });
  return expectStatus(response, 201).data;
}

export async function createApiKey(
  app: FastifyInstance,
  organizationId: string,
  body: Record<string, unknown>,
): Promise<CreatedApiKey> {
  const response = await admin(app, 'POST', `/admin/v1/organizations/${organizationId}/api-keys`, body);
  return expectStatus(response, 201).data;
}

/** A publishable key whose request and write limits (100,000/min) no test reaches. */
export async function busyPublishableKey(app: FastifyInstance, organizationId: string): Promise<string> {
  const created = await createApiKey(app, organizationId, {
    type: 'publishable',
    rateLimitPerMinute: 100_000,
    writeLimitPerMinute: 100_000,
  });
  return created.key;
}

export interface Tenant {
  org: AdminOrganization;
  /** Secret key with every scope and access level 3. */
  secret: CreatedApiKey;
  publishable: CreatedApiKey;
  /** Read-only secret key: only BUSINESS and ENTERPRISE have one (a placeholder that fails auth otherwise). */
  readOnly: CreatedApiKey;
}

/** An isolated organization (BUSINESS by default) with a full secret key, a publishable and a read-only key. */
export async function createTenant(
  app: FastifyInstance,
  options: { plan?: string; secret?: Record<string, unknown> } = {},
): Promise<Tenant> {
  const org = await createOrganization(app, { plan: options.plan ?? 'BUSINESS' });
  const secret = await createApiKey(app, org.id, {
    type: 'secret',
    scopes: [...SCOPES],
    accessLevel: 3,
    ...(options.secret ?? {}),
  });
  const publishable = await createApiKey(app, org.id, { type: 'publishable' });
  const readOnly = ['BUSINESS', 'ENTERPRISE'].includes(org.plan)
    ? await createApiKey(app, org.id, { type: 'read_only_secret' })
    : { ...secret, id: 'key_none', key: 'no-read-only-key-on-this-plan', type: 'read_only_secret' as const };
  return { org, secret, publishable, readOnly };
}

let propertySequence = 0;

/**
 * A property through the admin API (ACTIVE and published unless overridden). Returns the admin
 * view (with internalNotes and customFields).
 */
export async function createProperty(
  app: FastifyInstance,
  organizationId: string,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; code: string } & Record<string, unknown>> {
  propertySequence += 1;
  const response = await admin(app, 'POST', `/admin/v1/organizations/${organizationId}/properties`, {
    code: `P-${Date.now().toString(36)}-${propertySequence}`,
    title: `Bright apartment ${propertySequence}`,
    description: 'Two bedrooms, close to the beach.',
    transactionType: 'SALE',
    type: 'APARTMENT',
    price: 250000,
    currency: 'EUR',
    city: 'Málaga',
    neighborhood: 'Centro',
    address: 'Calle Larios 1',
    zipCode: '29005',
    coordinates: { latitude: 36.72016, longitude: -4.42034 },
    bedrooms: 2,
    bathrooms: 1,
    area: 85,
    amenities: ['elevator'],
    photos: [{ url: 'https://images.example.com/p1.jpg', caption: 'Living room' }],
    ...overrides,
  });
  return expectStatus(response, 201).data;
}

let agentSequence = 0;

/**
 * An agent through the admin API (active, shown on the portal, no online booking unless
 * `bookingSlug` and `booking` are given). Returns the admin view.
 */
export async function createAgent(
  app: FastifyInstance,
  organizationId: string,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; bookingSlug: string | null } & Record<string, unknown>> {
  agentSequence += 1;
  const response = await admin(app, 'POST', `/admin/v1/organizations/${organizationId}/agents`, {
    firstName: 'Lucía',
    lastName: `Romero ${agentSequence}`,
    email: `agent${agentSequence}@example-realty.com`,
    phone: '+34612345678',
    photoUrl: `https://images.example.com/agents/${agentSequence}.jpg`,
    ...overrides,
  });
  return expectStatus(response, 201).data;
}
