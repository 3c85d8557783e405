import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/database.ts';
import {
  createAgent,
  createApiKey,
  createProperty,
  createTenant,
  type Tenant,
} from '../helpers/factories.ts';
import { admin, expectStatus } from '../helpers/http.ts';
import { buildTestApp, testDatabase } from '../helpers/test-app.ts';
import { createDeal, createPipeline, stageNamed } from '../features/deals/support.ts';
import { callError, callOk, connect, listen } from './support.ts';

const TOOLS = [
  'get_summary',
  'search_contacts',
  'get_contact_timeline',
  'search_properties',
  'get_property',
  'search_listings',
  'match_properties_for_contact',
  'list_pending_tasks',
  'list_appointments',
  'list_pipelines',
  'list_deals',
  'get_contact',
  'list_emails',
];
/** What each tool needs, as SPEC.md "MCP endpoint" assigns the scopes. */
const TOOL_SCOPES: Record<string, string[]> = {
  get_summary: [],
  search_properties: ['portal:read'],
  get_property: ['portal:read'],
  search_listings: ['listings:read'],
  search_contacts: ['contacts:read'],
  get_contact: ['contacts:read'],
  get_contact_timeline: ['contacts:read'],
  list_appointments: ['appointments:read'],
  list_pipelines: ['deals:read'],
  list_deals: ['deals:read'],
  list_pending_tasks: ['tasks:read'],
  list_emails: ['email:read'],
  match_properties_for_contact: ['portal:read', 'contacts:read'],
};

type Row = Record<string, unknown> & { id: string };
interface Page {
  data: Row[];
  meta: { total: number; page: number; pageSize: number; totalPages: number };
}

let app: FastifyInstance;
let url: URL;
let mine: Tenant;
let theirs: Tenant;
let client: Client;
let theirClient: Client;
const clients: Client[] = [];

const ids = {} as {
  agent: string;
  otherAgent: string;
  seaside: string;
  city: string;
  hidden: string;
  theirProperty: string;
  ana: string;
  bruno: string;
  theirContact: string;
  pipeline: string;
  openDeal: string;
  wonDeal: string;
  dueTask: string;
  laterTask: string;
  doneTask: string;
  appointment: string;
  otherAppointment: string;
};

const contactsPath = (orgId: string) => `/admin/v1/organizations/${orgId}/contacts`;
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000);

async function contact(orgId: string, body: Record<string, unknown>): Promise<string> {
  return expectStatus(await admin(app, 'POST', contactsPath(orgId), body), 201).data.id;
}

async function open(key: string): Promise<Client> {
  const opened = await connect(url, key);
  clients.push(opened);
  return opened;
}

beforeAll(async () => {
  app = await buildTestApp();
  url = await listen(app);
  mine = await createTenant(app, { secret: { rateLimitPerMinute: 100_000 } });
  theirs = await createTenant(app, { secret: { rateLimitPerMinute: 100_000 } });
  const org = mine.org.id;

  ids.agent = (await createAgent(app, org)).id;
  ids.otherAgent = (await createAgent(app, org)).id;
  ids.seaside = (
    await createProperty(app, org, {
      title: 'Seaside flat with pool',
      price: 280000,
      bedrooms: 3,
      amenities: ['pool', 'elevator'],
      coordinates: { latitude: 36.7202, longitude: -4.4203 },
      internalNotes: 'Owner accepts 260k',
      agentId: ids.agent,
    })
  ).id;
  ids.city = (
    await createProperty(app, org, {
      title: 'Family house to rent',
      transactionType: 'RENT',
      type: 'HOUSE',
      price: 1800,
      city: 'Madrid',
      neighborhood: 'Chamberí',
      coordinates: { latitude: 40.4168, longitude: -3.7038 },
      amenities: ['garden'],
    })
  ).id;
  ids.hidden = (await createProperty(app, org, { title: 'Unpublished flat', publishedOnPortal: false })).id;
  ids.theirProperty = (await createProperty(app, theirs.org.id, { title: 'Their seaside flat' })).id;

  ids.ana = await contact(org, {
    firstName: 'Ana',
    lastName: 'Núñez',
    phone: '+34611000001',
    email: 'ana@example.com',
    status: 'QUALIFIED',
    preferredCity: 'Malaga',
    preferredType: 'APARTMENT',
    budget: 300000,
    tags: ['buyer'],
  });
  ids.bruno = await contact(org, { firstName: 'Bruno', lastName: 'Sala', phone: '+34611000002' });
  ids.theirContact = await contact(theirs.org.id, {
    firstName: 'Ana',
    lastName: 'Other',
    phone: '+34611000003',
  });

  const pipeline = await createPipeline(app, org);
  ids.pipeline = pipeline.id;
  ids.openDeal = (
    await createDeal(app, org, {
      contactId: ids.ana,
      pipelineId: pipeline.id,
      stageId: stageNamed(pipeline, 'Visit').id,
      value: 280000,
      currency: 'EUR',
      expectedCloseDate: inDays(20).toISOString(),
    })
  ).id;
  ids.wonDeal = (
    await createDeal(app, org, {
      contactId: ids.bruno,
      pipelineId: pipeline.id,
      stageId: stageNamed(pipeline, 'Won').id,
    })
  ).id;

  const task = async (body: Record<string, unknown>) =>
    expectStatus(await admin(app, 'POST', `/admin/v1/organizations/${org}/tasks`, body), 201).data
      .id as string;
  ids.dueTask = await task({
    title: 'Call Ana',
    dueAt: inDays(1).toISOString(),
    assigneeId: ids.agent,
    contactId: ids.ana,
  });
  ids.laterTask = await task({
    title: 'Send contract',
    dueAt: inDays(10).toISOString(),
    assigneeId: ids.otherAgent,
  });
  ids.doneTask = await task({ title: 'Done already', status: 'DONE', assigneeId: ids.agent });

  const appointment = async (body: Record<string, unknown>) =>
    expectStatus(await admin(app, 'POST', `/admin/v1/organizations/${org}/appointments`, body), 201).data
      .id as string;
  ids.appointment = await appointment({
    agentId: ids.agent,
    contactId: ids.ana,
    propertyId: ids.seaside,
    startsAt: inDays(3).toISOString(),
    durationMinutes: 60,
  });
  ids.otherAppointment = await appointment({
    agentId: ids.otherAgent,
    contactId: ids.bruno,
    startsAt: inDays(40).toISOString(),
    durationMinutes: 30,
  });

  client = await open(mine.secret.key);
  theirClient = await open(theirs.secret.key);
}, 120_000);

afterAll(async () => {
  for (const each of clients) await each.close();
  await app.close();
});

describe('initialize and tools/list', () => {
  it('introduces the server with its instructions and the tools capability', () => {
    expect(client.getServerVersion()?.name).toBe('agency-crm');
    // Stateless: no notification can reach a client, so none is announced.
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    expect(client.getInstructions()).toMatch(/get_summary/);
  });

  it('lists exactly the read-only tools, each annotated read-only and idempotent, with schemas and a description', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
      });
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(80);
    }
    const search = tools.find((tool) => tool.name === 'search_properties');
    expect(Object.keys(search?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining([
        'q',
        'city',
        'priceMin',
        'bedroomsMin',
        'near',
        'radiusKm',
        'bounds',
        'amenities',
        'page',
      ]),
    );
  });

  it('lists the same tools to a key without any scope (refusals come per call)', async () => {
    const bare = await open((await createApiKey(app, mine.org.id, { type: 'secret', scopes: [] })).key);
    expect((await bare.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS);
  });
});

describe('search_properties and get_property', () => {
  it('searches the published stock with the portal filters and answers a page with a summary', async () => {
    const { result, data } = await callOk<Page>(client, 'search_properties', { city: 'malaga' });
    expect(data.data.map((p) => p.id)).toEqual([ids.seaside]);
    expect(data.meta).toEqual({ total: 1, page: 1, pageSize: 12, totalPages: 1 });
    expect(result.content[0]).toEqual({ type: 'text', text: '1 property found; page 1 of 1 shows 1.' });
    expect(JSON.parse((result.content[1] as { text: string }).text)).toEqual(data);
  });

  it('shows what the portal shows: no internal notes, no unpublished listing', async () => {
    const { data } = await callOk<Page>(client, 'search_properties', { pageSize: 48 });
    expect(data.data.map((p) => p.id).sort()).toEqual([ids.seaside, ids.city].sort());
    expect(data.data[0]).not.toHaveProperty('internalNotes');
    expect(data.data[0]).not.toHaveProperty('customFields');
  });

  it('filters on text, amenities, price, bedrooms and transaction type together', async () => {
    const found = await callOk<Page>(client, 'search_properties', {
      q: 'seaside',
      amenities: ['pool'],
      priceMax: 300000,
      bedroomsMin: 3,
      transactionType: 'SALE',
    });
    expect(found.data.data.map((p) => p.id)).toEqual([ids.seaside]);
    const none = await callOk<Page>(client, 'search_properties', { amenities: ['pool', 'garden'] });
    expect(none.data.meta.total).toBe(0);
    expect(none.result.content[0]).toEqual({ type: 'text', text: 'No properties found.' });
  });

  it('searches around a point and by map bounds', async () => {
    const near = await callOk<Page>(client, 'search_properties', {
      near: '40.42,-3.70',
      radiusKm: 5,
      sortBy: 'distance',
    });
    expect(near.data.data.map((p) => p.id)).toEqual([ids.city]);
    const bounds = await callOk<Page>(client, 'search_properties', { bounds: '36,-5,37,-4' });
    expect(bounds.data.data.map((p) => p.id)).toEqual([ids.seaside]);
  });

  it('refuses bad arguments with a tool error naming the argument', async () => {
    expect(await callError(client, 'search_properties', { radiusKm: 3 })).toMatch(/radiusKm needs near/);
    expect(await callError(client, 'search_properties', { pageSize: 49 })).toMatch(/pageSize/);
    expect(await callError(client, 'search_properties', { amenities: ['helipad'] })).toMatch(/amenities/);
    expect(await callError(client, 'search_properties', { priceMin: 10, priceMax: 5 })).toMatch(
      /priceMax must be greater than or equal to priceMin/,
    );
    expect(await callError(client, 'search_properties', { color: 'red' })).toMatch(/color/);
  });

  it('gets one published property with its agent', async () => {
    const { result, data } = await callOk<{ data: Row }>(client, 'get_property', { propertyId: ids.seaside });
    expect(data.data).toMatchObject({ id: ids.seaside, title: 'Seaside flat with pool', price: 280000 });
    expect((data.data.agent as Row).id).toBe(ids.agent);
    expect(data.data).not.toHaveProperty('internalNotes');
    expect((result.content[0] as { text: string }).text).toMatch(
      /Seaside flat with pool — 280000 EUR, Málaga/,
    );
  });

  it('reports an unpublished, unknown or other agency property as not found, the same way', async () => {
    const hidden = await callError(client, 'get_property', { propertyId: ids.hidden });
    const theirsToo = await callError(client, 'get_property', { propertyId: ids.theirProperty });
    expect(hidden).toBe(`NOT_FOUND: Property ${ids.hidden} not found`);
    expect(theirsToo).toBe(`NOT_FOUND: Property ${ids.theirProperty} not found`);
    expect(await callError(client, 'get_property', {})).toMatch(/propertyId/);
  });
});

describe('search_listings', () => {
  it("lists the agency's own listings, published or not, with internal notes, and filters them", async () => {
    const { result, data } = await callOk<Page>(client, 'search_listings', {});
    expect(data.data.map((p) => p.id).sort()).toEqual([ids.seaside, ids.city, ids.hidden].sort());
    expect(data.data.find((p) => p.id === ids.seaside)).toMatchObject({
      internalNotes: 'Owner accepts 260k',
    });
    expect(result.content[0]).toEqual({ type: 'text', text: '3 listings found; page 1 of 1 shows 3.' });
    const unpublished = await callOk<Page>(client, 'search_listings', { publishedOnPortal: false });
    expect(unpublished.data.data.map((p) => p.id)).toEqual([ids.hidden]);
    const rent = await callOk<Page>(client, 'search_listings', { transactionType: 'RENT', city: 'madr' });
    expect(rent.data.data.map((p) => p.id)).toEqual([ids.city]);
    const other = await callOk<Page>(theirClient, 'search_listings', {});
    expect(other.data.data.map((p) => p.id)).toEqual([ids.theirProperty]);
  });

  it('refuses bad arguments and a key without listings:read', async () => {
    expect(await callError(client, 'search_listings', { status: 'GONE' })).toMatch(/status/);
    expect(await callError(client, 'search_listings', { updatedAfter: '2026-01-01' })).toMatch(
      /updatedAfter/,
    );
    const portalOnly = await open(
      (await createApiKey(app, mine.org.id, { type: 'secret', scopes: ['portal:read'] })).key,
    );
    expect(await callError(portalOnly, 'search_listings', {})).toMatch(/lacks the scope listings:read/);
  });
});

describe('search_contacts and get_contact', () => {
  it('finds contacts by accent-insensitive text and filters', async () => {
    const { data } = await callOk<Page>(client, 'search_contacts', { q: 'nunez' });
    expect(data.data.map((c) => c.id)).toEqual([ids.ana]);
    const qualified = await callOk<Page>(client, 'search_contacts', { status: 'QUALIFIED', tag: 'buyer' });
    expect(qualified.data.data.map((c) => c.id)).toEqual([ids.ana]);
    const all = await callOk<Page>(client, 'search_contacts', { sortBy: 'lastName', sortOrder: 'asc' });
    expect(all.data.data.map((c) => c.id)).toEqual([ids.ana, ids.bruno]);
  });

  it('refuses bad arguments with a tool error naming the argument', async () => {
    expect(await callError(client, 'search_contacts', { status: 'HOT' })).toMatch(/status/);
    expect(await callError(client, 'search_contacts', { createdAfter: '2026-02-30' })).toMatch(
      /createdAfter/,
    );
  });

  it('gets one contact with its recent messages, newest first, for a key with conversations:read', async () => {
    const inbound = (body: string) =>
      admin(app, 'POST', `${contactsPath(mine.org.id)}/${ids.ana}/inbound-messages`, { body });
    expectStatus(await inbound('Hola, ¿sigue disponible el piso?'), 201);
    expectStatus(await inbound('¿Puedo verlo el jueves?'), 201);

    const { result, data } = await callOk<{ data: Row; recentMessages: Row[] }>(client, 'get_contact', {
      contactId: ids.ana,
    });
    expect(data.data).toMatchObject({
      id: ids.ana,
      fullName: 'Ana Núñez',
      preferredCity: 'Malaga',
      budget: 300000,
    });
    expect(data.recentMessages.map((m) => [m.direction, m.body, m.contactId])).toEqual([
      ['INBOUND', '¿Puedo verlo el jueves?', ids.ana],
      ['INBOUND', 'Hola, ¿sigue disponible el piso?', ids.ana],
    ]);
    expect((result.content[0] as { text: string }).text).toMatch(/^Ana Núñez \(CT-\d+\): QUALIFIED LEAD/);
  });

  it('leaves the messages out for a key without conversations:read', async () => {
    const contactsOnly = await open(
      (await createApiKey(app, mine.org.id, { type: 'secret', scopes: ['contacts:read'] })).key,
    );
    const { data } = await callOk<{ data: Row }>(contactsOnly, 'get_contact', { contactId: ids.ana });
    expect(data.data).toMatchObject({ id: ids.ana });
    expect(Object.keys(data)).toEqual(['data']);
  });

  it("never shows another organization's contact", async () => {
    expect(await callError(client, 'get_contact', { contactId: ids.theirContact })).toBe(
      `NOT_FOUND: Contact ${ids.theirContact} not found`,
    );
    const theirView = await callOk<Page>(theirClient, 'search_contacts', { q: 'ana' });
    expect(theirView.data.data.map((c) => c.id)).toEqual([ids.theirContact]);
  });
});

describe('list_appointments', () => {
  it('lists a date range, soonest first, and narrows by agent and status', async () => {
    const all = await callOk<Page>(client, 'list_appointments', {});
    expect(all.data.data.map((a) => a.id)).toEqual([ids.appointment, ids.otherAppointment]);
    const week = await callOk<Page>(client, 'list_appointments', {
      from: new Date().toISOString().slice(0, 10),
      to: inDays(7).toISOString(),
    });
    expect(week.data.data.map((a) => a.id)).toEqual([ids.appointment]);
    const agent = await callOk<Page>(client, 'list_appointments', {
      agentId: ids.otherAgent,
      status: 'SCHEDULED',
    });
    expect(agent.data.data.map((a) => a.id)).toEqual([ids.otherAppointment]);
    const cancelled = await callOk<Page>(client, 'list_appointments', { status: 'CANCELLED' });
    expect(cancelled.data.meta.total).toBe(0);
  });

  it('refuses bad arguments with a tool error naming the argument', async () => {
    expect(await callError(client, 'list_appointments', { from: '2026-02-30' })).toMatch(/from/);
    expect(await callError(client, 'list_appointments', { status: 'LATE' })).toMatch(/status/);
  });
});

describe('list_pipelines and list_deals', () => {
  it('lists the pipelines with their stages in order', async () => {
    const { data } = await callOk<Page>(client, 'list_pipelines', {});
    const sales = data.data.find((p) => p.id === ids.pipeline);
    expect((sales?.stages as Row[]).map((s) => s.name)).toEqual(['New', 'Visit', 'Offer', 'Won', 'Lost']);
    expect(await callError(client, 'list_pipelines', { pageSize: 0 })).toMatch(/pageSize/);
  });

  it('lists deals with the REST filters', async () => {
    const open = await callOk<Page>(client, 'list_deals', { status: 'OPEN', pipelineId: ids.pipeline });
    expect(open.data.data.map((d) => d.id)).toEqual([ids.openDeal]);
    const closing = await callOk<Page>(client, 'list_deals', {
      expectedCloseBefore: inDays(30).toISOString().slice(0, 10),
    });
    expect(closing.data.data.map((d) => d.id)).toEqual([ids.openDeal]);
    const bruno = await callOk<Page>(client, 'list_deals', { contactId: ids.bruno });
    expect(bruno.data.data.map((d) => d.id)).toEqual([ids.wonDeal]);
    expect(bruno.data.data[0]?.status).toBe('WON');
  });

  it('refuses bad arguments with a tool error naming the argument', async () => {
    expect(await callError(client, 'list_deals', { expectedCloseBefore: 'soon' })).toMatch(
      /expectedCloseBefore/,
    );
    expect(
      await callError(client, 'list_deals', { createdAfter: '2026-03-02', createdBefore: '2026-03-01' }),
    ).toMatch(/createdBefore must be later than createdAfter/);
  });
});

describe('list_pending_tasks', () => {
  it('lists only pending tasks, soonest due first, by assignee and due date', async () => {
    const all = await callOk<Page>(client, 'list_pending_tasks', {});
    expect(all.data.data.map((t) => t.id)).toEqual([ids.dueTask, ids.laterTask]);
    const mineOnly = await callOk<Page>(client, 'list_pending_tasks', { assigneeId: ids.agent });
    expect(mineOnly.data.data.map((t) => t.id)).toEqual([ids.dueTask]);
    const thisWeek = await callOk<Page>(client, 'list_pending_tasks', { dueBefore: inDays(5).toISOString() });
    expect(thisWeek.data.data.map((t) => t.id)).toEqual([ids.dueTask]);
    expect(thisWeek.result.content[0]).toEqual({
      type: 'text',
      text: '1 pending task found; page 1 of 1 shows 1.',
    });
  });

  it('refuses bad arguments with a tool error naming the argument', async () => {
    expect(await callError(client, 'list_pending_tasks', { dueBefore: 'tomorrow' })).toMatch(/dueBefore/);
  });
});

describe('match_properties_for_contact', () => {
  it("scores the published stock against the contact's preferences, with the breakdown", async () => {
    const { result, data } = await callOk<{
      contact: Row;
      criteria: Record<string, unknown>;
      total: number;
      properties: (Row & { matchScore: number; breakdown: Row[] })[];
    }>(client, 'match_properties_for_contact', { contactId: ids.ana });
    expect(data.contact).toEqual({ id: ids.ana, fullName: 'Ana Núñez' });
    expect(data.criteria).toEqual({ city: 'Malaga', propertyType: 'APARTMENT', budgetMax: 300000 });
    expect(data.total).toBe(1);
    expect(data.properties.map((p) => p.id)).toEqual([ids.seaside]);
    expect(data.properties[0]?.matchScore).toBe(100);
    expect(data.properties[0]?.breakdown.map((b) => [b.criterio, b.estado])).toEqual([
      ['propertyType', 'match'],
      ['budget', 'match'],
      ['location', 'match'],
    ]);
    expect((result.content[0] as { text: string }).text).toBe(
      '1 listing fit Ana Núñez; best: Seaside flat with pool (score 100).',
    );
  });

  it('takes criteria from the arguments over and beside the saved ones', async () => {
    const { data } = await callOk<{ criteria: Record<string, unknown>; properties: Row[] }>(
      client,
      'match_properties_for_contact',
      { contactId: ids.bruno, transactionType: 'RENT', city: 'Madrid', amenities: ['garden'], limit: 1 },
    );
    expect(data.criteria).toEqual({ transactionType: 'RENT', city: 'Madrid', amenities: ['garden'] });
    expect(data.properties.map((p) => p.id)).toEqual([ids.city]);
  });

  it('refuses a contact without preferences, bad criteria and other tenants’ contacts', async () => {
    expect(await callError(client, 'match_properties_for_contact', { contactId: ids.bruno })).toMatch(
      /contactId names a contact without preferences/,
    );
    expect(
      await callError(client, 'match_properties_for_contact', { contactId: ids.ana, budgetMin: 500000 }),
    ).toMatch(/budgetMax must be greater than or equal to budgetMin/);
    expect(
      await callError(client, 'match_properties_for_contact', { contactId: ids.ana, limit: 13 }),
    ).toMatch(/limit/);
    expect(await callError(client, 'match_properties_for_contact', { contactId: ids.theirContact })).toBe(
      `NOT_FOUND: Contact ${ids.theirContact} not found`,
    );
  });
});

describe('get_summary', () => {
  it('reports the organization, plan, key scopes, usable tools and headline counts', async () => {
    const { result, data } = await callOk<{
      organization: Row;
      key: Row & { scopes: string[] };
      tools: { name: string; available: boolean; missingScopes: string[] }[];
      counts: Record<string, number>;
    }>(client, 'get_summary');
    expect(data.organization).toEqual({
      id: mine.org.id,
      name: mine.org.name,
      plan: 'BUSINESS',
      livemode: true,
      readOnly: false,
    });
    expect(data.key).toMatchObject({ id: mine.secret.id, type: 'secret', mode: 'live', accessLevel: 3 });
    expect(data.key.scopes).toEqual(mine.secret.scopes);
    expect(data.tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    expect(data.tools.every((t) => t.available)).toBe(true);
    expect(data.counts).toEqual({
      publishedProperties: 2,
      contacts: 2,
      openDeals: 1,
      pendingTasks: 2,
      overdueTasks: 0,
      upcomingAppointments: 2,
      failedEmails: 0,
    });
    expect((result.content[0] as { text: string }).text).toMatch(/13 of 13 tools available/);
  });

  it('tells a narrower key what it may use, and counts only what its scopes allow', async () => {
    const key = await createApiKey(app, mine.org.id, {
      type: 'secret',
      scopes: ['portal:read', 'tasks:read'],
    });
    const narrow = await open(key.key);
    const { data } = await callOk<{
      key: { scopes: string[] };
      tools: { name: string; available: boolean; missingScopes: string[] }[];
      counts: Record<string, number>;
    }>(narrow, 'get_summary');
    expect(data.key.scopes).toEqual(['portal:read', 'tasks:read']);
    const available = data.tools.filter((t) => t.available).map((t) => t.name);
    expect(available.sort()).toEqual([
      'get_property',
      'get_summary',
      'list_pending_tasks',
      'search_properties',
    ]);
    expect(data.tools.find((t) => t.name === 'match_properties_for_contact')?.missingScopes).toEqual([
      'contacts:read',
    ]);
    expect(data.counts).toEqual({ publishedProperties: 2, pendingTasks: 2, overdueTasks: 0 });
  });

  it('answers for the other organization with its own data only', async () => {
    const { data } = await callOk<{ organization: Row; counts: Record<string, number> }>(
      theirClient,
      'get_summary',
    );
    expect(data.organization.id).toBe(theirs.org.id);
    expect(data.counts).toMatchObject({ publishedProperties: 1, contacts: 1, openDeals: 0, pendingTasks: 0 });
    const props = await callOk<Page>(theirClient, 'search_properties', {});
    expect(props.data.data.map((p) => p.id)).toEqual([ids.theirProperty]);
  });
});

describe('scopes and read-only keys', () => {
  it('refuses every scoped tool to a key without its scope, naming the missing scope', async () => {
    const bare = await open((await createApiKey(app, mine.org.id, { type: 'secret', scopes: [] })).key);
    for (const [name, scopes] of Object.entries(TOOL_SCOPES)) {
      if (scopes.length === 0) continue;
      const message = await callError(bare, name, argsFor(name));
      expect(message, name).toMatch(/^FORBIDDEN: This API key lacks the scope /);
      for (const scope of scopes) expect(message, name).toContain(scope);
    }
  });

  it('names only the scope that is missing when the key holds the other', async () => {
    const portalOnly = await open(
      (await createApiKey(app, mine.org.id, { type: 'secret', scopes: ['portal:read'] })).key,
    );
    const message = await callError(portalOnly, 'match_properties_for_contact', { contactId: ids.ana });
    expect(message).toMatch(/lacks the scope contacts:read, which match_properties_for_contact needs/);
    expect(message).not.toContain('portal:read');
  });

  it('serves a read-only secret key every tool its scopes allow', async () => {
    const readOnly = await open(mine.readOnly.key);
    const { data } = await callOk<Page>(readOnly, 'search_contacts', { q: 'bruno' });
    expect(data.data.map((c) => c.id)).toEqual([ids.bruno]);
    await callOk(readOnly, 'list_deals', {});
  });

  it('changes nothing: calling every tool records no event and writes no row', async () => {
    const db = await testDatabase();
    const count = () =>
      db.systemTx((tx) =>
        queryRows<{ n: number }>(
          tx,
          sql`SELECT (SELECT count(*) FROM events WHERE organization_id = ${mine.org.id})::int
                   + (SELECT count(*) FROM contacts WHERE organization_id = ${mine.org.id})::int
                   + (SELECT count(*) FROM finder_searches WHERE organization_id = ${mine.org.id})::int AS n`,
        ),
      );
    const before = await count();
    for (const name of TOOLS) await client.callTool({ name, arguments: argsFor(name) });
    expect(await count()).toEqual(before);
  });
});

/** Valid arguments for each tool. */
function argsFor(name: string): Record<string, unknown> {
  if (name === 'get_property') return { propertyId: ids.seaside };
  if (['get_contact', 'get_contact_timeline', 'match_properties_for_contact'].includes(name))
    return { contactId: ids.ana };
  return {};
}
