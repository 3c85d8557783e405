import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { EMAIL_KINDS, EMAIL_LANGUAGES } from '../../../src/features/email/index.ts';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createPipeline, createDeal } from '../../features/deals/support.ts';
import { fakeDns } from '../../features/webhooks/support.ts';
import { createAgent, createApiKey, createOrganization, createProperty } from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import type { NamedValues } from './values.ts';

/** Names the fuzzed webhook URLs use: one public, one private (refused), anything else unknown. */
export const FUZZ_DNS = fakeDns({
  'hooks.fuzz.test': ['93.184.216.34'],
  'internal.fuzz.test': ['10.0.0.7'],
});

export const HOOK_SECRET = 'fuzz-messaging-hook-secret';
export const BOUNCE_SECRET = 'fuzz-email-bounce-secret';

/** Ids that exist in one organization, by kind, for path parameters and id-valued fields. */
export type Pools = Record<
  | 'orgs'
  | 'agents'
  | 'properties'
  | 'contacts'
  | 'pipelines'
  | 'stages'
  | 'deals'
  | 'tasks'
  | 'appointments'
  | 'numbers'
  | 'templates'
  | 'webhooks'
  | 'deliveries'
  | 'keys'
  | 'slugs'
  | 'eventTypes'
  | 'emailKinds'
  | 'emailLanguages'
  | 'phones',
  string[]
>;

export interface Keys {
  secret: string;
  publishable: string;
  read_only_secret: string;
  /** A secret key of the test twin. */
  testSecret: string;
}

export interface FuzzOrganization {
  id: string;
  pools: Pools;
  keys: Keys;
  /** Ids of its API keys (what GET /v1/me shows). */
  keyIds: string[];
}

export interface McpToolInfo {
  name: string;
  inputSchema: Record<string, unknown>;
}

export interface World {
  /** The organization the v1 operations run against (its keys, its resources). */
  tenant: FuzzOrganization;
  /** The organization the admin operations run against, so a PATCH there cannot freeze the tenant. */
  playground: FuzzOrganization;
  mcpTools: McpToolInfo[];
}

const UNLIMITED = { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };

export function nextPhone(): string {
  return `+346${String(randomInt(10_000_000, 99_999_999))}`;
}

/**
 * An ENTERPRISE organization with keys of every kind (no practical rate limit) and one or two of
 * every resource. `marker` is planted in the text of each resource (not in the organization's
 * name), so a test can tell whose data an answer shows.
 */
export async function seedOrganization(
  app: FastifyInstance,
  name: string,
  marker = 'fuzz',
): Promise<FuzzOrganization> {
  // Not in the name: a test-mode key shows its organization's name, by design.
  const org = await createOrganization(app, { name, plan: 'ENTERPRISE', writeLimitPerMinute: 100_000 });
  const orgPath = `/admin/v1/organizations/${org.id}`;
  const secret = await createApiKey(app, org.id, {
    type: 'secret',
    scopes: [...SCOPES],
    accessLevel: 3,
    ...UNLIMITED,
  });
  const publishable = await createApiKey(app, org.id, { type: 'publishable', ...UNLIMITED });
  const readOnly = await createApiKey(app, org.id, { type: 'read_only_secret', rateLimitPerMinute: 100_000 });
  const testSecret = await createApiKey(app, org.id, {
    type: 'secret',
    mode: 'test',
    scopes: [...SCOPES],
    accessLevel: 3,
    ...UNLIMITED,
  });
  const spare = await createApiKey(app, org.id, { type: 'secret' });

  const slug = `fuzz-${org.id.slice(-8).toLowerCase()}`;
  const bookable = await createAgent(app, org.id, {
    bookingSlug: slug,
    booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7] },
  });
  const agent = await createAgent(app, org.id, { lastName: `Agent ${marker}` });
  const properties = [
    await createProperty(app, org.id, {
      title: `Flat ${marker}`,
      agentId: bookable.id,
      amenities: ['petFriendly', 'pool'],
      internalNotes: `secret ${marker}`,
    }),
    await createProperty(app, org.id, {
      title: `House ${marker}`,
      transactionType: 'RENT',
      featured: true,
      approximateLocation: true,
    }),
  ];
  const phones = [nextPhone(), nextPhone()];
  const contacts: string[] = [];
  for (const [i, phone] of phones.entries()) {
    const created = await admin(app, 'POST', `${orgPath}/contacts`, {
      firstName: `Fuzz ${i}`,
      lastName: marker,
      phone,
      email: `fuzz${i}.${org.id.slice(-6).toLowerCase()}@example.com`,
      tags: [marker.toLowerCase()],
      ownerId: agent.id,
    });
    contacts.push(expectStatus(created, 201).data.id);
  }
  const pipeline = await createPipeline(app, org.id, { name: `Sales ${marker}` });
  const deal = await createDeal(app, org.id, {
    title: `Deal ${marker}`,
    contactId: contacts[0],
    pipelineId: pipeline.id,
    value: 250_000,
  });
  const task = await admin(app, 'POST', `${orgPath}/tasks`, {
    title: `Call ${marker}`,
    contactId: contacts[0],
  });
  const appointment = await admin(app, 'POST', `${orgPath}/appointments`, {
    agentId: bookable.id,
    contactId: contacts[0],
    startsAt: '2031-01-07T10:00:00Z',
  });
  const number = await admin(app, 'POST', `${orgPath}/messaging-numbers`, { phone: nextPhone() });
  const template = await admin(app, 'POST', `${orgPath}/message-templates`, {
    name: 'fuzz_followup',
    language: 'es',
    category: 'MARKETING',
    body: `Hola {{name}}, ¿seguimos con {{street}}? ${marker}`,
    status: 'APPROVED',
  });
  // An open 24-hour window on the first contact, so free-text sends get past the window rule.
  expectStatus(
    await admin(app, 'POST', `${orgPath}/contacts/${contacts[0]}/inbound-messages`, {
      body: `Hola ${marker}`,
    }),
    201,
  );
  const webhooks: string[] = [];
  for (const types of [['*'], ['contact.*', 'deal.won']]) {
    const created = await api(app, 'POST', '/v1/webhooks', {
      key: secret.key,
      body: { url: 'https://hooks.fuzz.test/receive', eventTypes: types, description: `fuzz ${marker}` },
    });
    webhooks.push(expectStatus(created, 201).data.id);
  }
  const sent = await api(app, 'POST', `/v1/webhooks/${webhooks[0]}/test`, { key: secret.key });
  const deliveryId = expectStatus(sent, 202).data.deliveryId as string;

  return {
    id: org.id,
    keyIds: [secret.id, publishable.id, readOnly.id, testSecret.id, spare.id],
    keys: {
      secret: secret.key,
      publishable: publishable.key,
      read_only_secret: readOnly.key,
      testSecret: testSecret.key,
    },
    pools: {
      orgs: [org.id, org.testOrganizationId as string],
      agents: [bookable.id, agent.id],
      properties: properties.map((p) => p.id),
      contacts,
      pipelines: [pipeline.id],
      stages: pipeline.stages.map((s) => s.id),
      deals: [deal.id],
      tasks: [expectStatus(task, 201).data.id],
      appointments: [expectStatus(appointment, 201).data.id],
      numbers: [expectStatus(number, 201).data.id],
      templates: [expectStatus(template, 201).data.id],
      webhooks,
      deliveries: [deliveryId],
      keys: [spare.id],
      slugs: [slug],
      eventTypes: eventCatalog.list().map((definition) => definition.type),
      emailKinds: [...EMAIL_KINDS],
      emailLanguages: [...EMAIL_LANGUAGES],
      phones,
    },
  };
}

async function listMcpTools(app: FastifyInstance, key: string): Promise<McpToolInfo[]> {
  const response = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  return expectStatus(response, 200).result.tools as McpToolInfo[];
}

/** Two organizations with one or two of every resource, and the MCP tools' argument schemas. */
export async function seedWorld(app: FastifyInstance): Promise<World> {
  const tenant = await seedOrganization(app, 'Fuzz Realty');
  const playground = await seedOrganization(app, 'Fuzz Back Office');
  return { tenant, playground, mcpTools: await listMcpTools(app, tenant.keys.secret) };
}

// ---------------------------------------------------------------------------------------------

/** Which pool a path parameter draws from: by its name, or for `{id}` by the collection before it. */
export function poolOfParameter(path: string, name: string): keyof Pools | null {
  const byName: Record<string, keyof Pools> = {
    orgId: 'orgs',
    agentId: 'agents',
    propertyId: 'properties',
    // RESO's key of a Property (`/v1/reso/Property('{ListingKey}')`).
    ListingKey: 'properties',
    contactId: 'contacts',
    taskId: 'tasks',
    appointmentId: 'appointments',
    pipelineId: 'pipelines',
    dealId: 'deals',
    numberId: 'numbers',
    templateId: 'templates',
    keyId: 'keys',
    deliveryId: 'deliveries',
    slug: 'slugs',
    type: 'eventTypes',
    // An email template's path (`/v1/email/templates/{kind}/{language}`).
    kind: 'emailKinds',
    language: 'emailLanguages',
  };
  if (byName[name]) return byName[name];
  const collection = path.split(`/{${name}}`)[0]?.split('/').pop() ?? '';
  const byCollection: Record<string, keyof Pools> = {
    contacts: 'contacts',
    properties: 'properties',
    tasks: 'tasks',
    appointments: 'appointments',
    deals: 'deals',
    webhooks: 'webhooks',
  };
  return byCollection[collection] ?? null;
}

const pick = (pool: string[]) => fc.constantFrom(...(pool.length > 0 ? pool : ['none']));

const futureDate = fc
  .integer({ min: 1, max: 70 })
  .map((days) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10));
const slotTime = fc
  .tuple(fc.integer({ min: 8, max: 18 }), fc.constantFrom('00', '30', '15', '59'))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${m}`);

/** Realistic values for property and query names, drawn from the organization's pools. */
export function namedValues(pools: Pools): NamedValues {
  const table: Record<string, fc.Arbitrary<unknown>> = {
    agentId: pick(pools.agents),
    ownerId: pick(pools.agents),
    assigneeId: pick(pools.agents),
    contactId: pick(pools.contacts),
    propertyId: pick(pools.properties),
    pipelineId: pick(pools.pipelines),
    stageId: pick(pools.stages),
    dealId: pick(pools.deals),
    templateId: pick(pools.templates),
    eventTypes: fc.subarray([...pools.eventTypes, '*', 'contact.*', 'deal.*'], {
      minLength: 1,
      maxLength: 4,
    }),
    phone: fc.oneof(
      pick(pools.phones),
      fc.integer({ min: 10_000_000, max: 99_999_999 }).map((n) => `+346${n}`),
      fc.constantFrom('612 345 678', '+1 202 555 0143'),
    ),
    email: fc.oneof(fc.emailAddress(), fc.constantFrom('Fuzz0@Example.com', 'fuzz1@example.com')),
    url: fc.constantFrom(
      'https://hooks.fuzz.test/receive',
      'https://93.184.216.34/x',
      'https://internal.fuzz.test/x',
      'http://hooks.fuzz.test/x',
      'https://unknown.fuzz.test/x',
      'https://[::1]/x',
      'https://images.example.com/p.jpg',
    ),
    date: futureDate,
    preferredDate: futureDate,
    startTime: slotTime,
    month: fc.integer({ min: 0, max: 11 }),
    year: fc.integer({ min: 2026, max: 2028 }),
    startsAt: fc.integer({ min: 1, max: 400 }).map((h) => new Date(Date.now() + h * 3_600_000).toISOString()),
    since: fc.integer({ min: 0, max: 48 }).map((h) => new Date(Date.now() - h * 3_600_000).toISOString()),
    bookingSlug: fc.stringMatching(/^[a-z0-9]{3,12}(-[a-z0-9]{2,6})?$/),
    timezone: fc.constantFrom('UTC', 'Europe/Madrid', 'America/New_York', 'Not/AZone', 'Etc/GMT+14'),
    currency: fc.constantFrom('EUR', 'USD', 'GBP', 'XXX'),
    body: fc.string({ minLength: 1, maxLength: 200 }),
  };
  return (name) => table[name] ?? null;
}
