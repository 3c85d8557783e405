import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CITIES } from '../../../src/features/demo/demo-data.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { expectValidKyero } from '../../helpers/kyero.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let seed: { organization: { id: string }; publishableKey: string; secretKey: string };

interface AdminProperty {
  id: string;
  code: string;
  status: string;
  publishedOnPortal: boolean;
  approximateLocation: boolean;
  featured: boolean;
  city: string;
  price: number;
  previousPrice: number | null;
  currency: string;
  transactionType: string;
  photos: { url: string; caption: string | null }[];
  coordinates: { latitude: number; longitude: number } | null;
  agentId: string | null;
}

async function allAdminProperties(orgId: string): Promise<AdminProperty[]> {
  const out: AdminProperty[] = [];
  for (let page = 1; ; page++) {
    const body = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${orgId}/properties?pageSize=100&page=${page}`),
      200,
    );
    out.push(...body.data);
    if (page >= body.meta.totalPages) return out;
  }
}

async function allPortalProperties(key: string): Promise<
  {
    code: string;
    address: string | null;
    zipCode: string | null;
    approximateLocation: boolean;
    coordinates: { latitude: number; longitude: number } | null;
  }[]
> {
  const out = [];
  for (let page = 1; ; page++) {
    const body = expectStatus(await api(app, 'GET', `/v1/properties?pageSize=48&page=${page}`, { key }), 200);
    out.push(...body.data);
    if (page >= body.meta.totalPages) return out;
  }
}

beforeAll(async () => {
  app = await buildTestApp();
  const started = performance.now();
  seed = expectStatus(await admin(app, 'POST', '/admin/v1/demo-seed'), 201).data;
  // Reported, not asserted (timings are for bench/, not unit tests): the first `npm start` waits for it.
  console.info(`demo seed: ${Math.round(performance.now() - started)} ms`);
});
afterAll(async () => {
  await app.close();
});

describe('demo seed: the organization and its keys', () => {
  it('creates Demo Realty on BUSINESS with a publishable key and a full secret key that work', async () => {
    expect(seed.organization).toMatchObject({ name: 'Demo Realty', plan: 'BUSINESS' });
    const secret = expectStatus(await api(app, 'GET', '/v1/me', { key: seed.secretKey }), 200).data;
    expect(secret).toMatchObject({ keyType: 'secret', accessLevel: 3 });
    expect([...secret.scopes].sort()).toEqual([...SCOPES].sort());
    const publishable = expectStatus(await api(app, 'GET', '/v1/me', { key: seed.publishableKey }), 200).data;
    expect(publishable.keyType).toBe('publishable');
  });
});

describe('demo seed: content', () => {
  it('creates 150 properties with realistic variety, in EUR, each with 2-5 captioned photos', async () => {
    const properties = await allAdminProperties(seed.organization.id);
    expect(properties).toHaveLength(150);
    expect(new Set(properties.map((p) => p.city))).toEqual(new Set(DEMO_CITIES));
    expect(new Set(properties.map((p) => p.transactionType))).toEqual(
      new Set(['SALE', 'RENT', 'SALE_OR_RENT']),
    );
    expect(new Set(properties.map((p) => p.currency))).toEqual(new Set(['EUR']));
    for (const p of properties) {
      expect(p.photos.length, p.code).toBeGreaterThanOrEqual(2);
      expect(p.photos.length, p.code).toBeLessThanOrEqual(5);
      for (const photo of p.photos) {
        expect(photo.url).toMatch(/^https:\/\/picsum\.photos\/seed\/.+\.jpg$/);
        expect(photo.caption).toBeTruthy();
      }
    }
    const count = (test: (p: AdminProperty) => boolean) => properties.filter(test).length;
    expect(count((p) => p.featured)).toBe(10);
    expect(count((p) => !p.publishedOnPortal)).toBe(10);
    expect(count((p) => p.approximateLocation)).toBe(25);
    expect(count((p) => p.status === 'RESERVED')).toBeGreaterThanOrEqual(5);
    expect(count((p) => p.status === 'SOLD' || p.status === 'RENTED')).toBeGreaterThanOrEqual(3);
    expect(count((p) => p.agentId === null)).toBe(10);
    // Every 15th listing was reduced by 5 % after it was listed (the portal shows price drops).
    const reduced = properties.filter((p) => p.previousPrice !== null);
    expect(reduced).toHaveLength(10);
    for (const p of reduced) expect(p.price).toBe(Math.round((p.previousPrice ?? 0) * 0.95));

    // Realistic scales: rents are monthly (hundreds to a few thousands), sales are not.
    const rents = properties.filter((p) => p.transactionType === 'RENT').map((p) => p.price);
    const sales = properties.filter((p) => p.transactionType === 'SALE').map((p) => p.price);
    expect(Math.max(...rents)).toBeLessThan(15_000);
    expect(Math.min(...sales)).toBeGreaterThanOrEqual(20_000);
  });

  it('is the same on every seed (deterministic data)', async () => {
    const again = expectStatus(await admin(app, 'POST', '/admin/v1/demo-seed'), 201).data;
    const strip = (list: AdminProperty[]) =>
      list
        .map(({ id: _id, agentId: _agent, ...rest }) => {
          const { createdAt: _c, updatedAt: _u, agent: _a, ...stable } = rest as Record<string, unknown>;
          return stable;
        })
        .sort((a, b) => String(a.code).localeCompare(String(b.code)));
    expect(strip(await allAdminProperties(again.organization.id))).toEqual(
      strip(await allAdminProperties(seed.organization.id)),
    );
  });
});

describe('demo seed: what the portal shows', () => {
  it('lists published ACTIVE properties only, approximate ones without address or zip code', async () => {
    const admins = await allAdminProperties(seed.organization.id);
    const visible = new Set(
      admins.filter((p) => p.status === 'ACTIVE' && p.publishedOnPortal).map((p) => p.code),
    );
    const portal = await allPortalProperties(seed.publishableKey);
    expect(new Set(portal.map((p) => p.code))).toEqual(visible);
    expect(portal.length).toBe(128);

    const approximate = portal.filter((p) => p.approximateLocation);
    expect(approximate.length).toBeGreaterThan(0);
    for (const p of approximate) {
      expect(p.address, p.code).toBeNull();
      expect(p.zipCode, p.code).toBeNull();
      const { latitude, longitude } = p.coordinates ?? { latitude: NaN, longitude: NaN };
      expect(Math.round(latitude * 100) / 100, p.code).toBe(latitude);
      expect(Math.round(longitude * 100) / 100, p.code).toBe(longitude);
    }
    expect(portal.filter((p) => !p.approximateLocation).every((p) => p.address !== null)).toBe(true);
  });

  it('offers 5 cities in /v1/filters, and the accent-insensitive city filter finds Málaga', async () => {
    const filters = expectStatus(
      await api(app, 'GET', '/v1/filters', { key: seed.publishableKey }),
      200,
    ).data;
    expect(filters.cities.map((c: { value: string }) => c.value).sort()).toEqual([...DEMO_CITIES].sort());
    expect(filters.total).toBe(128);
    const malaga = expectStatus(
      await api(app, 'GET', '/v1/properties?city=malaga&pageSize=1', { key: seed.publishableKey }),
      200,
    );
    expect(malaga.meta.total).toBe(filters.cities.find((c: { value: string }) => c.value === 'Málaga').count);
    const featured = expectStatus(
      await api(app, 'GET', '/v1/properties/featured', { key: seed.publishableKey }),
      200,
    );
    expect(featured.meta.total).toBe(10);
  });

  it('has 4 agents, 2 of them bookable (one confirms automatically), and branded portal settings', async () => {
    const agents = expectStatus(await api(app, 'GET', '/v1/agents', { key: seed.publishableKey }), 200);
    expect(agents.meta.total).toBe(4);
    const booking = expectStatus(
      await api(app, 'GET', '/v1/booking/agents', { key: seed.publishableKey }),
      200,
    );
    // SPEC.md double-wraps the booking answers: {data: {data: [...]}}.
    expect(booking.data.data.map((a: { slug: string }) => a.slug).sort()).toEqual([
      'javier-morales',
      'lucia-navarro',
    ]);

    const adminAgents = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${seed.organization.id}/agents?bookable=true`),
      200,
    ).data;
    expect(
      adminAgents.map((a: { booking: { autoConfirm: boolean } }) => a.booking.autoConfirm).sort(),
    ).toEqual([false, true]);

    const portal = expectStatus(await api(app, 'GET', '/v1/portal', { key: seed.publishableKey }), 200).data;
    expect(portal).toMatchObject({
      agencyName: 'Demo Realty',
      defaultCurrency: 'EUR',
      defaultCountry: 'ES',
      colors: { primary: '#0F4C5C' },
      contact: { phone: '+34952123456' },
    });
    expect(Object.keys(portal.socialLinks).length).toBeGreaterThanOrEqual(3);
  });
});

describe('demo seed: the Kyero feed', () => {
  it("validates against Kyero's schema v3.4, every listing with its photos", async () => {
    const made = await api(app, 'POST', '/v1/feeds/token', { key: seed.secretKey });
    const { urls } = expectStatus(made, 201).data as { urls: { kyero: string } };
    const response = await app.inject({ method: 'GET', url: new URL(urls.kyero).pathname });
    expect(response.statusCode).toBe(200);
    await expectValidKyero(response.body);
    const properties = response.body.match(/<property>[\s\S]*?<\/property>/g) ?? [];
    expect(properties.length).toBe(128);
    for (const property of properties) expect(property).toMatch(/<images><image id="1"><url>https:/);
  });
});

describe('demo seed: the test twin', () => {
  let testKeys: { publishable: string; secret: string };
  let twinId: string;

  beforeAll(async () => {
    const orgId = seed.organization.id;
    twinId = expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${orgId}`), 200).data
      .testOrganizationId;
    const create = async (type: string) =>
      expectStatus(
        await admin(app, 'POST', `/admin/v1/organizations/${orgId}/api-keys`, { type, mode: 'test' }),
        201,
      ).data.key as string;
    testKeys = { publishable: await create('publishable'), secret: await create('secret') };
  });

  it("has the live agency's 150 properties, so test keys list the same 128 on the portal", async () => {
    const codes = (list: { code: string }[]) => list.map((p) => p.code).sort();
    expect(codes(await allAdminProperties(twinId))).toEqual(
      codes(await allAdminProperties(seed.organization.id)),
    );
    expect((await allPortalProperties(testKeys.publishable)).length).toBe(128);
    const withSecret = expectStatus(
      await api(app, 'GET', '/v1/properties?city=malaga&pageSize=1', { key: testKeys.secret }),
      200,
    );
    expect(withSecret.meta.total).toBeGreaterThan(0);
    const me = expectStatus(await api(app, 'GET', '/v1/me', { key: testKeys.secret }), 200).data;
    expect(me.organization).toMatchObject({ id: twinId, livemode: false });
  });

  it('has the 4 agents, and the 2 bookable ones offer free slots to test keys', async () => {
    for (const key of [testKeys.publishable, testKeys.secret]) {
      const agents = expectStatus(await api(app, 'GET', '/v1/agents', { key }), 200);
      expect(agents.meta.total).toBe(4);
    }
    const booking = expectStatus(
      await api(app, 'GET', '/v1/booking/agents', { key: testKeys.publishable }),
      200,
    );
    const slugs = booking.data.data.map((a: { slug: string }) => a.slug).sort();
    expect(slugs).toEqual(['javier-morales', 'lucia-navarro']);
    // The month three days from now always has working days left (the README tour asks the same).
    const day = new Date(Date.now() + 3 * 86_400_000);
    for (const slug of slugs) {
      const availability = expectStatus(
        await api(
          app,
          'GET',
          `/v1/booking/${slug}/availability?month=${day.getUTCMonth()}&year=${day.getUTCFullYear()}`,
          { key: testKeys.publishable },
        ),
        200,
      ).data.data;
      expect(availability.configured, slug).toBe(true);
      expect(availability.availableDates.length, slug).toBeGreaterThan(0);
      expect(availability.availableDates[0].slots.length, slug).toBeGreaterThan(0);
    }
  });

  it('has the portal settings, and starts with an empty CRM', async () => {
    const portal = expectStatus(await api(app, 'GET', '/v1/portal', { key: testKeys.publishable }), 200).data;
    expect(portal).toMatchObject({ agencyName: 'Demo Realty', colors: { primary: '#0F4C5C' } });
    const contacts = expectStatus(await api(app, 'GET', '/v1/contacts', { key: testKeys.secret }), 200);
    expect(contacts.meta.total).toBe(0);
  });
});

describe('demo seed: the CRM', () => {
  const get = async (path: string) =>
    expectStatus(await api(app, 'GET', path, { key: seed.secretKey }), 200) as {
      data: Record<string, unknown>[];
      meta: { total: number };
    };

  it('has contacts in every status', async () => {
    for (const status of ['NEW', 'CONTACTED', 'QUALIFIED', 'UNQUALIFIED', 'CONVERTED', 'ARCHIVED']) {
      expect((await get(`/v1/contacts?status=${status}`)).meta.total, status).toBeGreaterThan(0);
    }
  });

  it('has a sales pipeline with WON and LOST stages, and deals open, won and lost', async () => {
    const [pipeline] = (await get('/v1/pipelines')).data as { stages: { kind: string }[] }[];
    expect(pipeline?.stages.map((stage) => stage.kind)).toEqual([
      'OPEN',
      'OPEN',
      'OPEN',
      'OPEN',
      'WON',
      'LOST',
    ]);
    for (const status of ['OPEN', 'WON', 'LOST']) {
      expect((await get(`/v1/deals?status=${status}`)).meta.total, status).toBeGreaterThan(0);
    }
  });

  it('has pending tasks and upcoming appointments', async () => {
    expect((await get('/v1/tasks?status=PENDING')).meta.total).toBeGreaterThan(0);
    expect((await get('/v1/tasks?status=DONE')).meta.total).toBeGreaterThan(0);
    // One a day for six days, plus the visit request the seed confirmed.
    expect((await get(`/v1/appointments?from=${new Date().toISOString()}`)).meta.total).toBe(7);
  });

  it("has what an integrator's v1 calls leave: leads, decided visit requests, notes, consents, a merge", async () => {
    const leads = (await get('/v1/leads')).data;
    expect(leads.map((lead) => lead.outcome).sort()).toEqual(['CREATED', 'MATCHED']);
    expect(leads.find((lead) => lead.outcome === 'MATCHED')).toMatchObject({ matchedOn: 'PHONE' });
    expect(leads.find((lead) => lead.outcome === 'CREATED')).toMatchObject({
      referrer: 'https://demo-realty.example/propiedades',
      utmSource: 'idealista',
    });
    const visits = (await get('/v1/visit-requests')).data;
    expect(visits.map((visit) => visit.status).sort()).toEqual([
      'CONFIRMED',
      'DECLINED',
      'PENDING',
      'PENDING',
    ]);
    expect(visits.find((visit) => visit.status === 'CONFIRMED')?.appointmentId).toMatch(/^apt_/);
    const [first] = (await get('/v1/contacts?sortBy=createdAt&sortOrder=asc&pageSize=1')).data;
    expect((await get(`/v1/contacts/${first?.id}/notes`)).data).toHaveLength(1);
    const consents = expectStatus(
      await api(app, 'GET', `/v1/contacts/${first?.id}/consents`, { key: seed.secretKey }),
      200,
    );
    expect(consents.data.current.EMAIL).toMatchObject({ status: 'GRANTED' });
    const merged = (await get('/v1/event-log?type=contact.merged')).data;
    expect(merged).toHaveLength(1);
  });
});

describe('demo seed: conversations', () => {
  it('has an active number, approved and pending templates, and open, closed, opted-out and taken-over conversations', async () => {
    const orgId = seed.organization.id;
    const numbers = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${orgId}/messaging-numbers`),
      200,
    );
    expect(numbers.data.filter((n: { active: boolean }) => n.active)).toHaveLength(1);
    const templates = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${orgId}/message-templates`),
      200,
    );
    const statuses = templates.data.map((t: { status: string }) => t.status);
    expect(statuses).toContain('APPROVED');
    expect(statuses).toContain('PENDING');
    const list = expectStatus(await api(app, 'GET', '/v1/conversations', { key: seed.secretKey }), 200);
    const modes = list.data.map((c: { messagingMode: string }) => c.messagingMode).sort();
    expect(modes).toEqual([
      'BLOCKED',
      'FREE_FORM',
      'FREE_FORM',
      'HUMAN_AGENT_ONLY',
      'TEMPLATE_ONLY',
      'TEMPLATE_ONLY',
    ]);
    const closed = list.data.find((c: { messagingMode: string }) => c.messagingMode === 'TEMPLATE_ONLY');
    expect(closed.lastMessage).toMatchObject({
      type: 'TEMPLATE',
      usage: { category: 'MARKETING', billable: true },
    });
  });
});
