/**
 * Issue 25 items 4 and 5 over HTTP: a listing's title and description per language (the portal picks
 * by `lang` or Accept-Language among the organization's languages, falls back to its default, says
 * which in Content-Language and each listing's `language`, and its cache keeps languages apart), and
 * address privacy (EXACT, STREET, HIDDEN and the coordinate precision) on the portal and MCP.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { callOk, connect, listen } from '../../mcp/support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;
let sequence = 0;

type Row = Record<string, unknown>;

function body(overrides: Row = {}) {
  sequence += 1;
  return {
    code: `LL-${sequence}`,
    title: `Piso luminoso ${sequence}`,
    description: 'Cerca del mar',
    transactionType: 'SALE',
    type: 'APARTMENT',
    price: 250000,
    city: 'Madrid',
    address: 'Calle Mayor 12, 3ºB',
    zipCode: '28013',
    coordinates: { latitude: 40.416775, longitude: -3.70379 },
    ...overrides,
  };
}

async function create(owner: SpanishAgency, overrides: Row = {}): Promise<Row> {
  const response = await api(app, 'POST', '/v1/listings', { key: owner.secret.key, body: body(overrides) });
  return expectStatus(response, 201).data as Row;
}

const portalGet = (
  id: string,
  options: { query?: Record<string, string>; headers?: Record<string, string> } = {},
) => api(app, 'GET', `/v1/properties/${id}`, { key: agency.publishable.key, ...options });

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
  expectStatus(
    await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}`, {
      defaultLanguage: 'es',
      languages: ['es', 'en', 'pt'],
    }),
    200,
  );
});

afterAll(async () => {
  await app.close();
});

describe('languages', () => {
  it("keeps the organization's languages, the default first, and shows them on GET /v1/portal", async () => {
    const organization = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${agency.org.id}`),
      200,
    ).data as Row;
    expect(organization).toMatchObject({ defaultLanguage: 'es', languages: ['es', 'en', 'pt'] });
    const portal = expectStatus(await api(app, 'GET', '/v1/portal', { key: agency.publishable.key }), 200)
      .data as Row;
    expect(portal).toMatchObject({ defaultLanguage: 'es', languages: ['es', 'en', 'pt'] });
    // A new default given alone: the old one stays served.
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${other.org.id}`, { defaultLanguage: 'pt' }),
      200,
    );
    const changed = expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${other.org.id}`), 200)
      .data as Row;
    expect(changed).toMatchObject({ defaultLanguage: 'pt', languages: ['pt', 'en'] });
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${other.org.id}`, {
        defaultLanguage: 'en',
        languages: ['en'],
      }),
      200,
    );
  });

  it('refuses a language that is not ISO 639-1 lower case, and repeated languages', async () => {
    const bad = expectError(
      await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}`, { languages: ['es', 'EN'] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(JSON.stringify(bad.details)).toMatch(/languages/);
    expectError(
      await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}`, { languages: ['es', 'es'] }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('stores translations in the agency view and refuses one in the default language', async () => {
    const listing = await create(agency, {
      translations: { en: { title: '  Bright flat  ', description: 'Near the sea' } },
    });
    expect(listing).toMatchObject({
      title: expect.stringMatching(/^Piso luminoso/),
      translations: { en: { title: 'Bright flat', description: 'Near the sea' } },
    });
    const error = expectError(
      await api(app, 'POST', '/v1/listings', {
        key: agency.secret.key,
        body: body({ translations: { es: { title: 'Otro', description: '' } } }),
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details?.[0]?.field).toBe('body.translations.es');
    expectError(
      await api(app, 'POST', '/v1/listings', {
        key: agency.secret.key,
        body: body({ translations: { english: { title: 'Flat', description: '' } } }),
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('serves the language asked by lang or Accept-Language, falling back to the default, and says which', async () => {
    const listing = await create(agency, {
      title: 'Ático con terraza',
      translations: { en: { title: 'Penthouse with terrace', description: 'Sunny' } },
    });
    const id = listing.id as string;
    const plain = await portalGet(id);
    expect(expectStatus(plain, 200).data).toMatchObject({ title: 'Ático con terraza', language: 'es' });
    expect(plain.headers['content-language']).toBe('es');

    const english = await portalGet(id, { query: { lang: 'en' } });
    expect(expectStatus(english, 200).data).toMatchObject({
      title: 'Penthouse with terrace',
      description: 'Sunny',
      language: 'en',
    });
    expect(english.headers['content-language']).toBe('en');

    const negotiated = await portalGet(id, {
      headers: { 'accept-language': 'fr;q=0.9, en-GB;q=0.8, es;q=0.1' },
    });
    expect(expectStatus(negotiated, 200).data).toMatchObject({
      title: 'Penthouse with terrace',
      language: 'en',
    });
    expect(negotiated.headers.vary).toMatch(/Accept-Language/);

    // lang wins over the header; a served language the listing lacks, and one not served: the default.
    const explicit = await portalGet(id, { query: { lang: 'es' }, headers: { 'accept-language': 'en' } });
    expect(expectStatus(explicit, 200).data).toMatchObject({ language: 'es' });
    for (const query of [{ lang: 'pt' }, { lang: 'fr' }]) {
      const fallback = await portalGet(id, { query });
      expect(expectStatus(fallback, 200).data).toMatchObject({ title: 'Ático con terraza', language: 'es' });
      expect(fallback.headers['content-language']).toBe('es');
    }
    expectError(await portalGet(id, { query: { lang: 'EN' } }), 400, 'VALIDATION_ERROR');
  });

  it('lists in the served language (Content-Language) with each listing naming its own, and caches languages apart', async () => {
    const translated = await create(agency, {
      title: 'Casa con jardín zafiro',
      translations: { en: { title: 'House with a sapphire garden', description: '' } },
    });
    const untranslated = await create(agency, { title: 'Casa sin traducir zafiro' });
    const list = async (headers: Record<string, string>) => {
      const response = await api(app, 'GET', '/v1/properties', {
        key: agency.publishable.key,
        query: { q: 'zafiro', sortBy: 'price' },
        headers,
      });
      const rows = expectStatus(response, 200).data as Row[];
      return { response, byId: new Map(rows.map((row) => [row.id, row])) };
    };
    for (let round = 0; round < 2; round += 1) {
      // The second round is answered from the portal cache: same bodies, same headers.
      const english = await list({ 'accept-language': 'en' });
      expect(english.response.headers['content-language']).toBe('en');
      expect(english.byId.get(translated.id)).toMatchObject({
        title: 'House with a sapphire garden',
        language: 'en',
      });
      expect(english.byId.get(untranslated.id)).toMatchObject({
        title: 'Casa sin traducir zafiro',
        language: 'es',
      });
      const spanish = await list({ 'accept-language': 'es' });
      expect(spanish.response.headers['content-language']).toBe('es');
      expect(spanish.byId.get(translated.id)).toMatchObject({
        title: 'Casa con jardín zafiro',
        language: 'es',
      });
      expect(spanish.response.headers.etag).not.toBe(english.response.headers.etag);
    }
  });

  it('finds a listing by the words of its translations', async () => {
    const listing = await create(agency, {
      title: 'Chalet en la sierra',
      translations: { pt: { title: 'Moradia na serra esmeraldina', description: '' } },
    });
    const found = expectStatus(
      await api(app, 'GET', '/v1/properties', { key: agency.publishable.key, query: { q: 'esmeraldina' } }),
      200,
    ).data as Row[];
    expect(found.map((row) => row.id)).toEqual([listing.id]);
  });
});

describe('address visibility', () => {
  it('EXACT shows the address, zip code and coordinates as written', async () => {
    const listing = await create(agency);
    expect(listing).toMatchObject({
      addressVisibility: 'EXACT',
      coordinatePrecision: null,
      approximateLocation: false,
    });
    const shown = expectStatus(await portalGet(listing.id as string), 200).data;
    expect(shown).toMatchObject({
      address: 'Calle Mayor 12, 3ºB',
      zipCode: '28013',
      coordinates: { latitude: 40.416775, longitude: -3.70379 },
      addressVisibility: 'EXACT',
      approximateLocation: false,
    });
  });

  it('STREET shows the street without its number, the zip code, and coordinates to 3 decimals', async () => {
    const listing = await create(agency, { addressVisibility: 'STREET' });
    const shown = expectStatus(await portalGet(listing.id as string), 200).data;
    expect(shown).toMatchObject({
      address: 'Calle Mayor',
      zipCode: '28013',
      coordinates: { latitude: 40.417, longitude: -3.704 },
      addressVisibility: 'STREET',
      approximateLocation: false,
    });
    const english = await create(agency, {
      addressVisibility: 'STREET',
      address: '221B Baker Street, London',
    });
    expect(expectStatus(await portalGet(english.id as string), 200).data).toMatchObject({
      address: 'Baker Street',
    });
    // The agency view keeps everything exact.
    expect(listing).toMatchObject({
      address: 'Calle Mayor 12, 3ºB',
      coordinates: { latitude: 40.416775, longitude: -3.70379 },
    });
  });

  it('HIDDEN (or approximateLocation) shows no address or zip code and coordinates to 2 decimals', async () => {
    for (const overrides of [{ addressVisibility: 'HIDDEN' }, { approximateLocation: true }]) {
      const listing = await create(agency, overrides);
      expect(listing).toMatchObject({ addressVisibility: 'HIDDEN', approximateLocation: true });
      const shown = expectStatus(await portalGet(listing.id as string), 200).data;
      expect(shown).toMatchObject({
        address: null,
        zipCode: null,
        coordinates: { latitude: 40.42, longitude: -3.7 },
        approximateLocation: true,
      });
    }
  });

  it('rounds to the precision asked, never finer than the visibility allows', async () => {
    const coarse = await create(agency, { coordinatePrecision: 1 });
    expect(expectStatus(await portalGet(coarse.id as string), 200).data).toMatchObject({
      address: 'Calle Mayor 12, 3ºB',
      coordinates: { latitude: 40.4, longitude: -3.7 },
    });
    const tooFine = expectError(
      await api(app, 'POST', '/v1/listings', {
        key: agency.secret.key,
        body: body({ addressVisibility: 'STREET', coordinatePrecision: 4 }),
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(tooFine.details?.[0]).toMatchObject({ field: 'body.coordinatePrecision' });
    const contradiction = expectError(
      await api(app, 'POST', '/v1/listings', {
        key: agency.secret.key,
        body: body({ addressVisibility: 'EXACT', approximateLocation: true }),
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(contradiction.details?.[0]).toMatchObject({ field: 'body.approximateLocation' });
    expectError(
      await api(app, 'POST', '/v1/listings', {
        key: agency.secret.key,
        body: body({ addressVisibility: 'STREETS' }),
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('changes with PATCH: approximateLocation alone moves between HIDDEN and EXACT, a new visibility gets its default precision', async () => {
    const listing = await create(agency, { addressVisibility: 'HIDDEN' });
    const id = listing.id as string;
    const patch = async (changes: Row) =>
      expectStatus(
        await api(app, 'PATCH', `/v1/listings/${id}`, { key: agency.secret.key, body: changes }),
        200,
      ).data as Row;
    expect(await patch({ approximateLocation: false })).toMatchObject({ addressVisibility: 'EXACT' });
    expect(expectStatus(await portalGet(id), 200).data).toMatchObject({ address: 'Calle Mayor 12, 3ºB' });
    expect(await patch({ addressVisibility: 'EXACT', coordinatePrecision: 5 })).toMatchObject({
      coordinatePrecision: 5,
    });
    expect(await patch({ addressVisibility: 'STREET' })).toMatchObject({
      addressVisibility: 'STREET',
      coordinatePrecision: null,
    });
    expect(expectStatus(await portalGet(id), 200).data).toMatchObject({
      address: 'Calle Mayor',
      coordinates: { latitude: 40.417, longitude: -3.704 },
    });
  });

  it("shows MCP's portal tools the same location as the portal, and another agency nothing", async () => {
    const hidden = await create(agency, { addressVisibility: 'HIDDEN', title: 'Refugio oculto' });
    const street = await create(agency, { addressVisibility: 'STREET', title: 'Calle visible' });
    const exact = await create(agency, { title: 'Casa exacta' });
    const url = await listen(app);
    const client: Client = await connect(url, agency.secret.key);
    try {
      for (const [listing, expected] of [
        [hidden, { address: null, zipCode: null, coordinates: { latitude: 40.42, longitude: -3.7 } }],
        [
          street,
          { address: 'Calle Mayor', zipCode: '28013', coordinates: { latitude: 40.417, longitude: -3.704 } },
        ],
        [
          exact,
          {
            address: 'Calle Mayor 12, 3ºB',
            zipCode: '28013',
            coordinates: { latitude: 40.416775, longitude: -3.70379 },
          },
        ],
      ] as const) {
        const { data } = await callOk<{ data: Row }>(client, 'get_property', { propertyId: listing.id });
        expect(data.data).toMatchObject(expected);
      }
      const translated = await create(agency, {
        title: 'Casa del lago',
        translations: { en: { title: 'Lake house', description: '' } },
      });
      const english = await callOk<{ data: Row }>(client, 'get_property', {
        propertyId: translated.id,
        lang: 'en',
      });
      expect(english.data.data).toMatchObject({ title: 'Lake house', language: 'en' });
      const unserved = await callOk<{ data: Row }>(client, 'get_property', {
        propertyId: translated.id,
        lang: 'fr',
      });
      expect(unserved.data.data).toMatchObject({ title: 'Casa del lago', language: 'es' });
      const found = await callOk<{ data: Row[] }>(client, 'search_properties', { q: 'lago', lang: 'en' });
      expect(found.data.data.map((row) => row.title)).toEqual(['Lake house']);
    } finally {
      await client.close();
    }
    expectError(
      await api(app, 'GET', `/v1/properties/${hidden.id as string}`, { key: other.publishable.key }),
      404,
      'NOT_FOUND',
    );
  });
});

describe("/v1/listings: the portal's filters on the agency's view", () => {
  it('filters by neighborhood, bathrooms, area, amenities and the map, on the exact coordinates', async () => {
    const owner = other;
    const make = (overrides: Row) =>
      create(owner, { neighborhood: 'Chamberí', bathrooms: 1, area: 80, ...overrides });
    const target = await make({
      status: 'DRAFT',
      neighborhood: 'Malasaña',
      bathrooms: 2,
      area: 120,
      amenities: ['pool', 'terrace'],
      addressVisibility: 'HIDDEN',
      coordinates: { latitude: 40.4261, longitude: -3.7047 },
    });
    await make({ amenities: ['pool'], coordinates: { latitude: 40.44, longitude: -3.69 } });
    await make({ bathrooms: 3, area: 200, coordinates: { latitude: 41.38, longitude: 2.17 } });
    const ids = async (query: Record<string, string>) =>
      (
        expectStatus(await api(app, 'GET', '/v1/listings', { key: owner.secret.key, query }), 200)
          .data as Row[]
      ).map((row) => row.id);
    expect(await ids({ neighborhood: 'malasana' })).toEqual([target.id]);
    expect(await ids({ bathroomsMin: '2', areaMax: '150' })).toEqual([target.id]);
    expect(await ids({ hasPool: '1', hasTerrace: 'true' })).toEqual([target.id]);
    // The exact point is inside a 100 m box the rounded one (40.43, -3.70) is not.
    expect(await ids({ bounds: '40.4255,-3.7055,40.4265,-3.7040' })).toEqual([target.id]);
    expect(await ids({ near: '40.4262,-3.7046', radiusKm: '0.1' })).toEqual([target.id]);
    for (const [query, field] of [
      [{ radiusKm: '3' }, 'query.radiusKm'],
      [{ bounds: '41,0,40,1' }, 'query.bounds'],
      [{ areaMin: '100', areaMax: '50' }, 'query.areaMax'],
      [{ priceMin: '10', priceMax: '5' }, 'query.priceMax'],
    ] as const) {
      const error = expectError(
        await api(app, 'GET', '/v1/listings', { key: owner.secret.key, query }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.details?.[0]?.field).toBe(field);
    }
    expectError(
      await api(app, 'GET', '/v1/listings', { key: owner.secret.key, query: { hasHelipad: '1' } }),
      400,
      'VALIDATION_ERROR',
    );
  });
});
