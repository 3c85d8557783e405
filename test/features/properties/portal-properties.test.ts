import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiKey,
  createProperty,
  createTenant,
  type Tenant,
  busyPublishableKey,
} from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;
let key: string;
const ids: Record<string, string> = {};

type Item = { id: string; code: string; price: number; area: number | null; [k: string]: unknown };

async function list(query: string, apiKey = key) {
  return expectStatus(await api(app, 'GET', `/v1/properties${query}`, { key: apiKey }), 200) as {
    data: Item[];
    meta: { total: number; page: number; pageSize: number; totalPages: number };
  };
}
const codes = (body: { data: Item[] }) => body.data.map((p) => p.code);

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  key = await busyPublishableKey(app, tenant.org.id);
  // A small stock where every filter keeps a different subset. Created in this order, so
  // createdAt rises from A to H.
  const stock: Record<string, Record<string, unknown>> = {
    A: {
      city: 'Málaga',
      neighborhood: 'El Palo',
      price: 200000,
      area: 70,
      bedrooms: 2,
      bathrooms: 1,
      amenities: ['pool', 'petFriendly'],
      coordinates: { latitude: 36.7213, longitude: -4.3556 },
    },
    B: {
      city: 'Malaga',
      neighborhood: 'Centro',
      price: 450000,
      area: 120,
      bedrooms: 3,
      bathrooms: 2,
      type: 'PENTHOUSE',
      amenities: ['terrace', 'elevator'],
      featured: true,
      coordinates: { latitude: 36.7202, longitude: -4.4203 },
    },
    C: {
      city: 'Madrid',
      neighborhood: 'Salamanca',
      price: 1200,
      transactionType: 'RENT',
      area: 60,
      bedrooms: 1,
      amenities: ['furnished'],
      title: 'Loft con terraza en Salamanca',
      coordinates: { latitude: 40.4297, longitude: -3.6794 },
    },
    D: {
      city: 'Madrid',
      neighborhood: 'Chamberí',
      price: 850000,
      transactionType: 'SALE_OR_RENT',
      type: 'HOUSE',
      area: 200,
      bedrooms: 4,
      bathrooms: 3,
      amenities: ['garden', 'pool', 'parking'],
      coordinates: { latitude: 40.4361, longitude: -3.7037 },
      approximateLocation: true,
    },
    E: {
      city: 'Sevilla',
      price: 300000,
      area: null,
      bedrooms: 0,
      amenities: [],
      coordinates: null,
      featured: true,
    },
    F: { city: 'Málaga', price: 99000, status: 'RESERVED' },
    G: { city: 'Málaga', price: 98000, publishedOnPortal: false },
    H: { city: 'Málaga', price: 97000, status: 'SOLD' },
  };
  for (const [code, overrides] of Object.entries(stock)) {
    const created = await createProperty(app, tenant.org.id, {
      code,
      internalNotes: 'owner wants a quick sale',
      customFields: { keyBox: '4471' },
      ...overrides,
    });
    ids[code] = created.id;
  }
  // Another agency's stock in the same city must never show up.
  const other = await createTenant(app);
  await createProperty(app, other.org.id, { code: 'A', city: 'Málaga', price: 1 });
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/properties: what the portal shows', () => {
  it('lists only ACTIVE published properties of the key’s agency, newest first, with paging meta', async () => {
    const body = await list('');
    expect(codes(body)).toEqual(['E', 'D', 'C', 'B', 'A']);
    expect(body.meta).toEqual({ total: 5, page: 1, pageSize: 12, totalPages: 1 });
  });

  it('never returns internal notes or custom fields, nor publishedOnPortal', async () => {
    const body = await list('');
    for (const item of body.data) {
      expect(item).not.toHaveProperty('internalNotes');
      expect(item).not.toHaveProperty('customFields');
      expect(JSON.stringify(item)).not.toContain('4471');
    }
  });

  it('hides the exact location of approximate properties: address and zipCode null, coordinates rounded to 2 decimals', async () => {
    const d = (await list('?city=madrid&type=HOUSE')).data[0] as Item;
    expect(d.code).toBe('D');
    expect(d.approximateLocation).toBe(true);
    expect(d.address).toBeNull();
    expect(d.zipCode).toBeNull();
    expect(d.coordinates).toEqual({ latitude: 40.44, longitude: -3.7 });
    const a = (await list('?city=malaga&neighborhood=palo')).data[0] as Item;
    expect(a.address).toBe('Calle Larios 1');
    expect(a.coordinates).toEqual({ latitude: 36.7213, longitude: -4.3556 });
  });

  it('shows the full property model', async () => {
    const b = (await list('?featured=true&city=malaga')).data[0] as Item;
    expect(b).toEqual({
      id: ids.B,
      code: 'B',
      title: expect.any(String),
      description: expect.any(String),
      transactionType: 'SALE',
      type: 'PENTHOUSE',
      status: 'ACTIVE',
      featured: true,
      price: 450000,
      previousPrice: null,
      currency: 'EUR',
      city: 'Malaga',
      neighborhood: 'Centro',
      address: 'Calle Larios 1',
      zipCode: '29005',
      coordinates: { latitude: 36.7202, longitude: -4.4203 },
      addressVisibility: 'EXACT',
      approximateLocation: false,
      language: 'en',
      bedrooms: 3,
      bathrooms: 2,
      area: 120,
      amenities: ['terrace', 'elevator'],
      // Every photo has an id (derived from its URL for a photo given by URL) and altText (decision 0233).
      photos: [
        {
          id: expect.stringMatching(/^ph_[0-9A-Za-z]{22}$/),
          url: 'https://images.example.com/p1.jpg',
          caption: 'Living room',
          altText: null,
        },
      ],
      agent: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });
});

describe('GET /v1/properties: filters', () => {
  const cases: [string, string[]][] = [
    ['?city=malaga', ['B', 'A']],
    ['?city=MÁLAGA', ['B', 'A']],
    ['?city=ala', ['B', 'A']],
    ['?city=madr', ['D', 'C']],
    ['?neighborhood=chamberi', ['D']],
    ['?q=terraza', ['C']],
    ['?q=loft salamanca', ['C']],
    ['?q=loft sevilla', []],
    ['?transactionType=SALE', ['E', 'D', 'B', 'A']],
    ['?transactionType=RENT', ['D', 'C']],
    ['?transactionType=SALE_OR_RENT', ['D']],
    ['?type=PENTHOUSE', ['B']],
    ['?priceMax=300000', ['E', 'C', 'A']],
    ['?priceMin=300000', ['E', 'D', 'B']],
    ['?priceMin=200000&priceMax=300000', ['E', 'A']],
    ['?bedroomsMin=3', ['D', 'B']],
    ['?bathroomsMin=2', ['D', 'B']],
    ['?areaMin=100', ['D', 'B']],
    ['?areaMax=70', ['C', 'A']],
    ['?hasPool=1', ['D', 'A']],
    ['?hasPool=true&hasPetFriendly=1', ['A']],
    ['?hasPool=0', ['E', 'D', 'C', 'B', 'A']],
    ['?hasGarden=1&hasParking=1', ['D']],
    ['?featured=true', ['E', 'B']],
    ['?bounds=36,-5,37,-4', ['B', 'A']],
    ['?bounds=40,-4,41,-3', ['D', 'C']],
    ['?near=36.7213,-4.3556&radiusKm=1', ['A']],
    ['?near=36.7213,-4.3556&radiusKm=10', ['B', 'A']],
    ['?near=40.4297,-3.6794', ['D', 'C']],
    ['?city=malaga&priceMax=300000&sortBy=price', ['A']],
  ];
  it.each(cases)('%s', async (query, expected) => {
    expect(codes(await list(query))).toEqual(expected);
  });

  it('filters approximate properties on their rounded coordinates, so a viewport cannot pin them', async () => {
    // D is at 40.4361,-3.7037, shown as 40.44,-3.70: a box around the exact point misses it.
    expect(codes(await list('?bounds=40.435,-3.705,40.437,-3.703'))).toEqual([]);
    expect(codes(await list('?bounds=40.439,-3.701,40.441,-3.699'))).toEqual(['D']);
  });
});

describe('GET /v1/properties: sorting and paging', () => {
  it.each([
    ['?sortBy=price', ['C', 'A', 'E', 'B', 'D']],
    ['?sortBy=price&sortOrder=asc', ['C', 'A', 'E', 'B', 'D']],
    ['?sortBy=price&sortOrder=desc', ['D', 'B', 'E', 'A', 'C']],
    ['?sortBy=area&sortOrder=asc', ['C', 'A', 'B', 'D', 'E']],
    ['?sortBy=area&sortOrder=desc', ['D', 'B', 'A', 'C', 'E']],
    ['?sortBy=createdAt&sortOrder=asc', ['A', 'B', 'C', 'D', 'E']],
    ['?sortBy=createdAt', ['E', 'D', 'C', 'B', 'A']],
    ['?near=36.72,-4.40&radiusKm=500&sortBy=distance', ['B', 'A', 'C', 'D']],
  ])('%s', async (query, expected) => {
    expect(codes(await list(query))).toEqual(expected);
  });

  it('pages with true meta, and answers an empty page past the end', async () => {
    const first = await list('?sortBy=price&pageSize=2');
    expect(codes(first)).toEqual(['C', 'A']);
    expect(first.meta).toEqual({ total: 5, page: 1, pageSize: 2, totalPages: 3 });
    const third = await list('?sortBy=price&pageSize=2&page=3');
    expect(codes(third)).toEqual(['D']);
    const past = await list('?sortBy=price&pageSize=2&page=9');
    expect(past.data).toEqual([]);
    expect(past.meta).toEqual({ total: 5, page: 9, pageSize: 2, totalPages: 3 });
    expect((await list('?pageSize=48')).meta.pageSize).toBe(48);
  });
});

describe('GET /v1/properties: bad input names the parameter', () => {
  it.each([
    ['?pageSize=49', 'pageSize'],
    ['?pageSize=0', 'pageSize'],
    ['?page=0', 'page'],
    ['?transactionType=BUY', 'transactionType'],
    ['?type=CASTLE', 'type'],
    ['?sortBy=rooms', 'sortBy'],
    ['?sortOrder=up', 'sortOrder'],
    ['?priceMax=cheap', 'priceMax'],
    ['?priceMin=-1', 'priceMin'],
    ['?bedroomsMin=1.5', 'bedroomsMin'],
    ['?hasPool=yes', 'hasPool'],
    ['?hasJacuzzi=1', 'hasJacuzzi'],
    ['?priceMin=5&priceMax=1', 'priceMax'],
    ['?areaMin=5&areaMax=1', 'areaMax'],
    ['?bounds=1,2,3', 'bounds'],
    ['?bounds=50,0,40,1', 'bounds'],
    ['?bounds=0,10,1,5', 'bounds'],
    ['?near=91,0', 'near'],
    ['?near=abc', 'near'],
    ['?radiusKm=5', 'radiusKm'],
    ['?near=1,1&radiusKm=0', 'radiusKm'],
    ['?sortBy=distance', 'sortBy'],
    ['?q=a', 'q'],
    [`?city=${'x'.repeat(101)}`, 'city'],
  ])('%s -> 400 naming %s', async (query, field) => {
    const error = expectError(
      await api(app, 'GET', `/v1/properties${query}`, { key }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toContain(field);
    // DESIGN.md's prefixes: a query parameter is `query.<name>`, whether the schema or a rule refused it.
    expect(error.details?.map((detail) => detail.field)).toContain(`query.${field}`);
  });

  it('treats LIKE wildcards in text filters literally', async () => {
    expect(codes(await list('?city=%25'))).toEqual([]);
    expect(codes(await list('?city=_'))).toEqual([]);
  });
});

describe('GET /v1/properties/{id}', () => {
  it('returns a published property', async () => {
    const body = expectStatus(await api(app, 'GET', `/v1/properties/${ids.A}`, { key }), 200);
    expect(body.data.code).toBe('A');
    expect(body.data).not.toHaveProperty('internalNotes');
  });

  it('answers 404 for an unpublished, reserved or sold property, a malformed id, and another agency’s property', async () => {
    const other = await createTenant(app);
    for (const [id, apiKey] of [
      [ids.F, key],
      [ids.G, key],
      [ids.H, key],
      ['nope', key],
      [ids.A, other.publishable.key],
    ] as const) {
      const error = expectError(
        await api(app, 'GET', `/v1/properties/${id}`, { key: apiKey }),
        404,
        'NOT_FOUND',
      );
      expect(error.message).toBe(`Property ${id} not found`);
    }
  });
});

describe('GET /v1/properties/featured', () => {
  it('lists featured published properties, newest first', async () => {
    const body = expectStatus(await api(app, 'GET', '/v1/properties/featured', { key }), 200);
    expect(body.data.map((p: Item) => p.code)).toEqual(['E', 'B']);
    expect(body.meta.total).toBe(2);
  });
});

describe('GET /v1/filters', () => {
  it('gives facets with counts from the published stock only', async () => {
    const { data } = expectStatus(await api(app, 'GET', '/v1/filters', { key }), 200);
    expect(data.total).toBe(5);
    expect(data.cities).toEqual([
      { value: 'Madrid', count: 2 },
      { value: 'Malaga', count: 1 },
      { value: 'Málaga', count: 1 },
      { value: 'Sevilla', count: 1 },
    ]);
    expect(data.transactionTypes).toEqual([
      { value: 'SALE', count: 3 },
      { value: 'RENT', count: 1 },
      { value: 'SALE_OR_RENT', count: 1 },
    ]);
    expect(data.types).toContainEqual({ value: 'PENTHOUSE', count: 1 });
    expect(data.neighborhoods).toContainEqual({ city: 'Madrid', value: 'Chamberí', count: 1 });
    expect(data.bedrooms).toEqual([
      { value: 0, count: 1 },
      { value: 1, count: 1 },
      { value: 2, count: 1 },
      { value: 3, count: 1 },
      { value: 4, count: 1 },
    ]);
    expect(data.amenities).toContainEqual({ value: 'pool', flag: 'hasPool', count: 2 });
    expect(data.priceRanges).toEqual([
      { transactionType: 'RENT', currency: 'EUR', min: 1200, max: 1200 },
      { transactionType: 'SALE', currency: 'EUR', min: 200000, max: 450000 },
      { transactionType: 'SALE_OR_RENT', currency: 'EUR', min: 850000, max: 850000 },
    ]);
    expect(data.area).toEqual({ min: 60, max: 200 });
  });

  it('is empty for an agency without stock', async () => {
    const empty = await createTenant(app);
    const { data } = expectStatus(await api(app, 'GET', '/v1/filters', { key: empty.publishable.key }), 200);
    expect(data.total).toBe(0);
    expect(data.cities).toEqual([]);
    expect(data.area).toEqual({ min: null, max: null });
  });
});

describe('portal routes and keys', () => {
  it('answer a browser with CORS for the publishable key', async () => {
    const response = await api(app, 'GET', '/v1/properties', {
      key,
      headers: { origin: 'https://agency.example' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  it('refuse a secret key sent from a browser', async () => {
    expectError(
      await api(app, 'GET', '/v1/properties', {
        key: tenant.secret.key,
        headers: { origin: 'https://x.example' },
      }),
      403,
      'SECRET_KEY_IN_BROWSER',
    );
  });

  it('serve a server-side secret key with portal:read', async () => {
    expect((await list('', tenant.secret.key)).meta.total).toBe(5);
  });
});

describe('the test twin', () => {
  it('has its own stock: test keys never see live properties', async () => {
    const testKey = await createApiKey(app, tenant.org.id, { type: 'publishable', mode: 'test' });
    expect((await list('', testKey.key)).meta.total).toBe(0);
    await createProperty(app, tenant.org.testOrganizationId as string, { code: 'T1' });
    expect(codes(await list('', testKey.key))).toEqual(['T1']);
    expect(codes(await list('?city=malaga'))).toEqual(['B', 'A']);
  });
});

describe('admin properties', () => {
  it('lists every status with notes and exact location', async () => {
    const body = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${tenant.org.id}/properties?pageSize=100`),
      200,
    );
    expect(body.meta.total).toBe(8);
    const d = body.data.find((p: Item) => p.code === 'D');
    expect(d.coordinates).toEqual({ latitude: 40.4361, longitude: -3.7037 });
    expect(d.internalNotes).toBe('owner wants a quick sale');
    expect(d.customFields).toEqual({ keyBox: '4471' });
    const sold = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${tenant.org.id}/properties?status=SOLD`),
      200,
    );
    expect(sold.data.map((p: Item) => p.code)).toEqual(['H']);
  });
});
