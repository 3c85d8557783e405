import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import {
  createApiKey,
  createProperty,
  createTenant,
  type Tenant,
  busyPublishableKey,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

type Breakdown = { criterio: string; puntos: number; peso: number; estado: string }[];
type Match = {
  id: string;
  title: string;
  price: number;
  currency: string;
  city: string;
  neighborhood: string | null;
  photoUrl: string | null;
  matchScore: number;
  breakdown: Breakdown;
};
type Result = { contact: { id: string }; searchId: string; total: number; properties: Match[] };

let app: FastifyInstance;
let tenant: Tenant;
let key: string;
let phoneSequence = 0;

/** A new valid Spanish mobile number per call, so tests do not share contacts by accident. */
function nextPhone(): string {
  phoneSequence += 1;
  return `+3461${String(Date.now() % 10_000).padStart(4, '0')}${String(phoneSequence).padStart(3, '0')}`;
}

const person = () => ({ firstName: 'Lucía', phone: nextPhone() });

async function find(body: Record<string, unknown>, apiKey = key): Promise<Result> {
  return expectStatus(await api(app, 'POST', '/v1/finder', { key: apiKey, body }), 201).data;
}

async function systemRows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

/** `[criterio, puntos, peso, estado]` per item: compact enough to read next to docs/finder.md. */
const compact = (breakdown: Breakdown) => breakdown.map((b) => [b.criterio, b.puntos, b.peso, b.estado]);

async function highLimitKey(orgId: string) {
  return await busyPublishableKey(app, orgId);
}

// The stock of the main tenant, named by role. Created in this order, so createdAt rises.
const ids: Record<string, string> = {};

const FULL_SEARCH = {
  transactionType: 'SALE',
  propertyType: 'APARTMENT',
  city: 'malaga',
  neighborhood: 'CENTRO',
  budgetMin: 200000,
  budgetMax: 300000,
  minBedrooms: 2,
  amenities: ['pool', 'terrace'],
};

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  key = await highLimitKey(tenant.org.id);
  const stock: Record<string, Record<string, unknown>> = {
    perfect: { price: 250000, bedrooms: 2, amenities: ['pool', 'terrace', 'elevator'] },
    partials: {
      transactionType: 'SALE_OR_RENT',
      type: 'PENTHOUSE',
      price: 320000,
      bedrooms: 1,
      amenities: ['pool'],
      photos: [],
    },
    house: { city: 'MALAGA', type: 'HOUSE', price: 280000, bedrooms: 2, amenities: ['terrace'] },
    madrid: {
      city: 'Madrid',
      neighborhood: 'Salamanca',
      price: 250000,
      bedrooms: 2,
      amenities: ['pool', 'terrace'],
    },
    cheap: { price: 150000, bedrooms: 2, amenities: ['terrace', 'pool'] },
    studio: { type: 'STUDIO', neighborhood: 'El Palo', price: 300000, bedrooms: 0, amenities: [] },
    overBudget: { price: 340000, bedrooms: 2, amenities: ['pool', 'terrace'] },
    rental: { transactionType: 'RENT', price: 1200, bedrooms: 2, amenities: ['pool', 'terrace'] },
    unpublished: { publishedOnPortal: false, price: 250000, bedrooms: 2, amenities: ['pool', 'terrace'] },
    reserved: { status: 'RESERVED', price: 250000, bedrooms: 2, amenities: ['pool', 'terrace'] },
    sold: { status: 'SOLD', price: 250000, bedrooms: 2, amenities: ['pool', 'terrace'] },
    madridRent: { transactionType: 'RENT', city: 'Madrid', neighborhood: 'Chamberí', price: 1500 },
    madridEither: { transactionType: 'SALE_OR_RENT', city: 'madrid', neighborhood: null, price: 900000 },
  };
  for (const [name, overrides] of Object.entries(stock)) {
    ids[name] = (
      await createProperty(app, tenant.org.id, {
        city: 'Málaga',
        neighborhood: 'Centro',
        title: `Listing ${name}`,
        ...overrides,
      })
    ).id;
  }
}, 60_000);

afterAll(async () => {
  await app.close();
});

describe('POST /v1/finder: scoring', () => {
  it('scores every criterion as docs/finder.md says, best first and newest first among equal scores', async () => {
    const result = await find({ ...FULL_SEARCH, ...person() });
    const byId = new Map(result.properties.map((p) => [p.id, p]));
    expect(result.properties.map((p) => p.id)).toEqual([
      ids.perfect,
      ids.cheap, // 75, the newest of the three at 75
      ids.madrid, // 75
      ids.house, // 75, the oldest
      ids.partials, // 67
    ]);
    expect(result.total).toBe(5);

    const perfect = byId.get(ids.perfect as string) as Match;
    expect(perfect.matchScore).toBe(100);
    expect(compact(perfect.breakdown)).toEqual([
      ['transactionType', 10, 10, 'match'],
      ['propertyType', 20, 20, 'match'],
      ['budget', 25, 25, 'match'],
      ['location', 25, 25, 'match'],
      ['bedrooms', 10, 10, 'match'],
      ['amenities', 10, 10, 'match'],
    ]);
    expect(perfect).toMatchObject({
      title: 'Listing perfect',
      price: 250000,
      currency: 'EUR',
      city: 'Málaga',
      neighborhood: 'Centro',
      photoUrl: 'https://images.example.com/p1.jpg',
    });

    // SALE_OR_RENT suits a buyer; a penthouse is of the apartment family; 320 000 is within 10%
    // over the budget; one bedroom fewer; one amenity of two.
    const partials = byId.get(ids.partials as string) as Match;
    expect(compact(partials.breakdown)).toEqual([
      ['transactionType', 10, 10, 'match'],
      ['propertyType', 10, 20, 'partial'],
      ['budget', 12, 25, 'partial'],
      ['location', 25, 25, 'match'],
      ['bedrooms', 5, 10, 'partial'],
      ['amenities', 5, 10, 'partial'],
    ]);
    expect(partials.matchScore).toBe(67);
    expect(partials.photoUrl).toBeNull();

    expect(compact((byId.get(ids.house as string) as Match).breakdown)).toEqual([
      ['transactionType', 10, 10, 'match'],
      ['propertyType', 0, 20, 'miss'],
      ['budget', 25, 25, 'match'],
      ['location', 25, 25, 'match'],
      ['bedrooms', 10, 10, 'match'],
      ['amenities', 5, 10, 'partial'],
    ]);
    expect((byId.get(ids.madrid as string) as Match).breakdown[3]).toEqual({
      criterio: 'location',
      puntos: 0,
      peso: 25,
      estado: 'miss',
    });
    // 150 000 is more than 10% under budgetMin.
    expect((byId.get(ids.cheap as string) as Match).breakdown[2]).toMatchObject({
      puntos: 0,
      estado: 'miss',
    });
    for (const match of result.properties) {
      expect(match.breakdown.reduce((sum, b) => sum + b.puntos, 0)).toBe(match.matchScore);
    }
  });

  it('leaves out what scores under 60, costs more than budgetMax + 10%, or does not suit the transaction', async () => {
    const result = await find({ ...FULL_SEARCH, ...person() });
    const listed = result.properties.map((p) => p.id);
    // The studio scores 57 (El Palo is another neighborhood of the same city: partial).
    for (const name of ['studio', 'overBudget', 'rental', 'madridRent'])
      expect(listed).not.toContain(ids[name]);
  });

  it('never shows unpublished listings or listings that are not ACTIVE', async () => {
    const result = await find({ ...FULL_SEARCH, ...person() });
    const listed = result.properties.map((p) => p.id);
    for (const name of ['unpublished', 'reserved', 'sold']) expect(listed).not.toContain(ids[name]);
  });

  it('rescales the weights of the criteria given to 100 and lists only those criteria', async () => {
    // transactionType 10 and location 25 of 35: 28.57 and 71.43, the point left over to the larger fraction.
    const result = await find({ transactionType: 'RENT', city: 'MADRID', ...person() });
    expect(result.properties.map((p) => p.id)).toEqual([ids.madridEither, ids.madridRent]);
    expect(result.total).toBe(2);
    expect(compact((result.properties[1] as Match).breakdown)).toEqual([
      ['transactionType', 29, 29, 'match'],
      ['location', 71, 71, 'match'],
    ]);
    expect((result.properties[1] as Match).matchScore).toBe(100);
  });

  it('matches city and neighborhood case- and accent-insensitively', async () => {
    const plain = await find({ city: 'malaga', neighborhood: 'centro', ...person() });
    const accented = await find({ city: '  MÁLAGA ', neighborhood: 'Céntro', ...person() });
    expect(plain.total).toBeGreaterThan(0);
    expect(accented.properties.map((p) => p.id)).toEqual(plain.properties.map((p) => p.id));
    expect(plain.properties.map((p) => p.id)).toContain(ids.house); // stored as "MALAGA"
    expect(plain.properties.every((p) => p.matchScore === 100)).toBe(true);
  });

  it('scores amenities in proportion to those the listing has', async () => {
    // budget 25 and amenities 10 of 35: 71 and 29; 1 of 3 amenities -> floor(29 / 3) = 9.
    const result = await find({ budgetMax: 300000, amenities: ['pool', 'terrace', 'elevator'], ...person() });
    const perfect = result.properties.find((p) => p.id === ids.perfect) as Match;
    expect(compact(perfect.breakdown)).toEqual([
      ['budget', 71, 71, 'match'],
      ['amenities', 29, 29, 'match'],
    ]);
    const cheap = result.properties.find((p) => p.id === ids.cheap) as Match;
    expect(compact(cheap.breakdown)).toEqual([
      ['budget', 71, 71, 'match'],
      ['amenities', 19, 29, 'partial'],
    ]);
    const studio = result.properties.find((p) => p.id === ids.studio) as Match;
    expect(compact(studio.breakdown)).toEqual([
      ['budget', 71, 71, 'match'],
      ['amenities', 0, 29, 'miss'],
    ]);
    // Over budget by up to 10% with one amenity of three: 35 + 9 = 44, under 60.
    expect(result.properties.map((p) => p.id)).not.toContain(ids.partials);
  });

  it('answers at most 12, and total counts them all', async () => {
    const big = await createTenant(app);
    const bigKey = await highLimitKey(big.org.id);
    const created: string[] = [];
    for (let i = 0; i < 14; i++) created.push((await createProperty(app, big.org.id, { type: 'VILLA' })).id);
    const result = await find({ propertyType: 'VILLA', ...person() }, bigKey);
    expect(result.total).toBe(14);
    expect(result.properties).toHaveLength(12);
    // All score 100: newest first.
    expect(result.properties.map((p) => p.id)).toEqual(created.reverse().slice(0, 12));
  }, 60_000);

  it('answers total 0 and no properties when nothing matches', async () => {
    const result = await find({ city: 'Sevilla', ...person() });
    expect(result).toMatchObject({ total: 0, properties: [] });
  });
});

describe('POST /v1/finder: what it saves', () => {
  it('saves the person as a contact and reuses it on a second search with the same phone', async () => {
    const phone = nextPhone();
    const first = await find({
      city: 'Málaga',
      budgetMax: 300000,
      firstName: 'Marta',
      phone,
      email: 'marta@example.com',
    });
    const second = await find({
      propertyType: 'HOUSE',
      firstName: 'Marta',
      phone: phone.replace('+34', '+34 '),
    });
    expect(second.contact.id).toBe(first.contact.id);
    const contacts = await systemRows<Record<string, unknown>>(
      sql`SELECT * FROM contacts WHERE organization_id = ${tenant.org.id} AND phone = ${phone}`,
    );
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({
      id: first.contact.id,
      first_name: 'Marta',
      email: 'marta@example.com',
      source: 'FINDER',
      preferred_city: 'Málaga',
      preferred_type: 'HOUSE',
      tags: ['finder'],
    });
    expect(Number(contacts[0]?.budget)).toBe(300000);
  });

  it('saves the search with its criteria, alerts choice, total and the listings shown', async () => {
    const result = await find({ ...FULL_SEARCH, ...person(), subscribedToAlerts: true });
    const quiet = await find({ city: 'Málaga', ...person() });
    const searches = await systemRows<Record<string, unknown>>(
      sql`SELECT * FROM finder_searches WHERE id IN (${result.searchId}, ${quiet.searchId}) ORDER BY created_at`,
    );
    expect(searches).toHaveLength(2);
    expect(searches[0]).toMatchObject({
      id: result.searchId,
      organization_id: tenant.org.id,
      contact_id: result.contact.id,
      criteria: { ...FULL_SEARCH },
      subscribed_to_alerts: true,
      total: 5,
      property_ids: result.properties.map((p) => p.id),
    });
    expect(searches[1]).toMatchObject({ subscribed_to_alerts: false, criteria: { city: 'Málaga' } });
  });

  it('records finder.submitted with contact.created, matching its catalog schema', async () => {
    const result = await find({ ...FULL_SEARCH, ...person(), subscribedToAlerts: true });
    const events = await systemRows<{ type: string; data: Record<string, unknown>; livemode: boolean }>(
      sql`SELECT type, data, livemode FROM events WHERE organization_id = ${tenant.org.id}
          AND (type = 'finder.submitted' AND data -> 'search' ->> 'id' = ${result.searchId}
               OR type = 'contact.created' AND data -> 'contact' ->> 'id' = ${result.contact.id})
          ORDER BY type`,
    );
    expect(events.map((e) => e.type)).toEqual(['contact.created', 'finder.submitted']);
    const data = events[1]?.data as { search: Record<string, unknown> };
    expect(data.search).toMatchObject({
      id: result.searchId,
      contactId: result.contact.id,
      criteria: FULL_SEARCH,
      subscribedToAlerts: true,
      total: result.total,
      propertyIds: result.properties.map((p) => p.id),
    });
    expect(events[1]?.livemode).toBe(true);
    expect(() => eventCatalog.check('finder.submitted', data)).not.toThrow();
  });

  it('counts a FINDER_SUBMIT analytics event with each search', async () => {
    const count = async () =>
      (
        await systemRows<{ n: string }>(
          sql`SELECT count(*) AS n FROM analytics_events WHERE organization_id = ${tenant.org.id} AND type = 'FINDER_SUBMIT'`,
        )
      )[0]?.n;
    const before = Number(await count());
    await find({ city: 'Málaga', ...person() });
    expect(Number(await count())).toBe(before + 1);
  });

  it('lists finder.submitted in the event catalog', async () => {
    const body = expectStatus(
      await api(app, 'GET', '/v1/events', { key: tenant.secret.key, query: { pageSize: '100' } }),
      200,
    );
    expect(body.data.map((e: { type: string }) => e.type)).toContain('finder.submitted');
  });

  it('works with a secret key too', async () => {
    const result = await find({ city: 'Málaga', ...person() }, tenant.secret.key);
    expect(result.total).toBeGreaterThan(0);
  });
});

describe('POST /v1/finder: errors', () => {
  const who = { firstName: 'Lucía', phone: '+34612000001' };
  const search = { city: 'Málaga' };
  // [case, the whole body, the field the 400 must name]
  const cases: [string, Record<string, unknown>, string][] = [
    ['firstName missing', { ...search, phone: who.phone }, 'body.firstName'],
    ['firstName too short', { ...search, ...who, firstName: 'L' }, 'body.firstName'],
    ['firstName of spaces', { ...search, ...who, firstName: '    ' }, 'body.firstName'],
    ['phone missing', { ...search, firstName: who.firstName }, 'body.phone'],
    ['phone too short', { ...search, ...who, phone: '12345' }, 'body.phone'],
    ['phone not a number', { ...search, ...who, phone: '+34 000 abc 000' }, 'body.phone'],
    ['email malformed', { ...search, ...who, email: 'nope' }, 'body.email'],
    ['transactionType SALE_OR_RENT', { ...who, transactionType: 'SALE_OR_RENT' }, 'body.transactionType'],
    ['propertyType unknown', { ...who, propertyType: 'CASTLE' }, 'body.propertyType'],
    ['city empty', { ...who, city: '' }, 'body.city'],
    ['city blank', { ...who, city: '   ' }, 'body.city'],
    ['neighborhood blank', { ...who, neighborhood: ' ' }, 'body.neighborhood'],
    ['budgetMin negative', { ...who, budgetMin: -1 }, 'body.budgetMin'],
    ['budgetMax a string', { ...who, budgetMax: '300000' }, 'body.budgetMax'],
    ['budgetMin over budgetMax', { ...who, budgetMin: 300001, budgetMax: 300000 }, 'body.budgetMax'],
    ['minBedrooms not an integer', { ...who, minBedrooms: 2.5 }, 'body.minBedrooms'],
    ['minBedrooms over 20', { ...who, minBedrooms: 21 }, 'body.minBedrooms'],
    ['amenity unknown', { ...who, amenities: ['jacuzzi'] }, 'body.amenities[0]'],
    ['amenity twice', { ...who, amenities: ['pool', 'pool'] }, 'body.amenities'],
    [
      'subscribedToAlerts not a boolean',
      { ...search, ...who, subscribedToAlerts: 'yes' },
      'body.subscribedToAlerts',
    ],
    ['unknown member', { ...search, ...who, maxPrice: 3 }, 'body.maxPrice'],
    ['no criterion', { ...who }, 'body'],
    ['only an empty amenity list', { ...who, amenities: [] }, 'body'],
  ];
  for (const [name, body, field] of cases) {
    it(`400 naming ${field}: ${name}`, async () => {
      const response = await api(app, 'POST', '/v1/finder', { key, body });
      const error = expectError(response, 400, 'VALIDATION_ERROR');
      expect(
        error.details?.map((d) => d.field),
        response.body,
      ).toContain(field);
      expect(error.message).toContain(field);
    });
  }

  it('saves nothing when the request is refused', async () => {
    const phone = nextPhone();
    expectError(
      await api(app, 'POST', '/v1/finder', {
        key,
        body: { budgetMin: 5, budgetMax: 1, firstName: 'Nadie', phone },
      }),
      400,
      'VALIDATION_ERROR',
    );
    const contacts = await systemRows(sql`SELECT id FROM contacts WHERE phone = ${phone}`);
    expect(contacts).toHaveLength(0);
  });
});

describe('POST /v1/finder: security', () => {
  it("never shows or touches another agency's data", async () => {
    const other = await createTenant(app);
    const otherKey = await highLimitKey(other.org.id);
    const theirs = await createProperty(app, other.org.id, {
      city: 'Málaga',
      neighborhood: 'Centro',
      price: 250000,
    });

    const phone = nextPhone();
    const mine = await find({ ...FULL_SEARCH, firstName: 'Lucía', phone });
    expect(mine.properties.map((p) => p.id)).not.toContain(theirs.id);

    // The same person searching on the other agency's portal becomes a contact of that agency only.
    const foreign = await find({ ...FULL_SEARCH, firstName: 'Lucía', phone }, otherKey);
    expect(foreign.contact.id).not.toBe(mine.contact.id);
    expect(foreign.properties.map((p) => p.id)).toEqual([theirs.id]);
    expect(foreign.total).toBe(1);
    for (const id of Object.values(ids)) expect(foreign.properties.map((p) => p.id)).not.toContain(id);

    const rows = await systemRows<{ organization_id: string }>(
      sql`SELECT organization_id FROM contacts WHERE phone = ${phone} ORDER BY organization_id`,
    );
    expect(rows.map((r) => r.organization_id).sort()).toEqual([tenant.org.id, other.org.id].sort());
  });

  it("a test key searches the test twin's stock, not the live one", async () => {
    const testKey = (
      await createApiKey(app, tenant.org.id, { type: 'publishable', mode: 'test', writeLimitPerMinute: 1000 })
    ).key;
    const result = await find({ ...FULL_SEARCH, ...person() }, testKey);
    expect(result).toMatchObject({ total: 0, properties: [] });
    const twinProperty = await createProperty(app, tenant.org.testOrganizationId as string, {
      price: 250000,
    });
    const again = await find({ city: 'Málaga', ...person() }, testKey);
    expect(again.properties.map((p) => p.id)).toEqual([twinProperty.id]);
  });

  it('is refused to a key without finder:write', async () => {
    const readOnly = await createApiKey(app, tenant.org.id, { type: 'publishable', scopes: ['portal:read'] });
    const response = await api(app, 'POST', '/v1/finder', {
      key: readOnly.key,
      body: { city: 'Málaga', ...person() },
    });
    expectError(response, 403, 'FORBIDDEN');
  });
});
