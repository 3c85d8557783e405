/**
 * The RESO fields our amenities and status history give (OnMarketDate, View, ExteriorFeatures,
 * PatioAndPorchFeatures, PetsAllowed, Furnished, CoolingYN, HeatingYN, FireplaceYN), their `$filter`
 * forms (has, any, all, dates), and the Lookup resource that lists every lookup value.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { LOOKUP_VALUES } from '../../../src/features/reso/reso.fields.ts';
import { LOOKUPS_REVISION, lookupsDigest } from '../../../src/features/reso/reso.lookups.ts';
import { createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { createListing, resoPage, type ResoRecord } from './support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
});

afterAll(async () => {
  await app.close();
});

/** Today in the organization's time zone, as PostgreSQL computes it. */
async function todayOf(organizationId: string): Promise<string> {
  const db = await testDatabase();
  const rows = await db.tenantTx(organizationId, (tx) =>
    queryRows<{ day: string }>(
      tx,
      sql`SELECT (now() AT TIME ZONE timezone)::date::text AS day FROM organizations WHERE id = ${organizationId}`,
    ),
  );
  return rows[0]?.day as string;
}

async function record(key: string, id: string): Promise<ResoRecord> {
  const response = await api(app, 'GET', `/v1/reso/Property('${id}')`, { key });
  return expectStatus(response, 200) as ResoRecord;
}

async function keysMatching(filter: string, key = agency.secret.key): Promise<string[]> {
  const page = await resoPage(app, key, { $filter: filter, $select: 'ListingKey', $top: '1000' });
  return page.value.map((r) => r.ListingKey).sort();
}

async function filterError(filter: string): Promise<string> {
  const response = await api(app, 'GET', `/v1/reso/Property?$filter=${encodeURIComponent(filter)}`, {
    key: agency.secret.key,
  });
  expect(response.statusCode, `${filter}: ${response.body}`).toBe(400);
  const { error } = response.json();
  expect(error.target).toBe('$filter');
  return error.message as string;
}

describe('OnMarketDate: the day a listing first went ACTIVE', () => {
  it('is set when a listing is created ACTIVE, or first activated, and kept through later moves', async () => {
    const today = await todayOf(agency.org.id);
    const active = await createListing(app, agency);
    expect((await record(agency.secret.key, active.id)).OnMarketDate).toBe(today);

    const draft = await createListing(app, agency, { status: 'DRAFT' });
    expect((await record(agency.secret.key, draft.id)).OnMarketDate).toBeNull();
    const patch = (status: string) =>
      api(app, 'PATCH', `/v1/listings/${draft.id}`, { key: agency.secret.key, body: { status } });
    expectStatus(await patch('ACTIVE'), 200);
    expect((await record(agency.secret.key, draft.id)).OnMarketDate).toBe(today);

    // A date once given stays, whatever is written later: through a move off the market and back.
    const earlier = await createListing(app, agency, { status: 'DRAFT' });
    const db = await testDatabase();
    const setDate = (day: string) =>
      db.tenantTx(agency.org.id, (tx) =>
        queryRows(tx, sql`UPDATE properties SET on_market_date = ${day}::date WHERE id = ${earlier.id}`),
      );
    await setDate('2024-02-29');
    const move = (status: string) =>
      api(app, 'PATCH', `/v1/listings/${earlier.id}`, { key: agency.secret.key, body: { status } });
    for (const status of ['ACTIVE', 'INACTIVE', 'ACTIVE']) expectStatus(await move(status), 200);
    await setDate('2025-01-01');
    expect((await record(agency.secret.key, earlier.id)).OnMarketDate).toBe('2024-02-29');

    expect(await keysMatching(`OnMarketDate eq 2024-02-29`)).toEqual([earlier.id]);
    expect(await keysMatching(`OnMarketDate lt 2024-03-01 and OnMarketDate ge 2024-02-29`)).toEqual([
      earlier.id,
    ]);
    expect(await keysMatching(`OnMarketDate eq null`)).not.toContain(earlier.id);
  });

  it('refuses what is not a date, and operators dates do not take', async () => {
    expect(await filterError('OnMarketDate eq 2024-02-30')).toMatch(/OnMarketDate is compared with a date/);
    expect(await filterError("OnMarketDate eq '2024-02-01'")).toMatch(/a date such as 2026-01-01/);
    expect(await filterError('OnMarketDate eq 2024-02-01T00:00:00Z')).toMatch(/a date such as/);
    expect(await filterError("contains(OnMarketDate,'2024')")).toMatch(/takes a text field/);
  });
});

describe('the amenity fields and their filters', () => {
  let seaView: string;
  let furnished: string;
  let plain: string;
  beforeAll(async () => {
    seaView = (
      await createListing(app, agency, { amenities: ['seaView', 'balcony', 'terrace', 'petFriendly'] })
    ).id;
    furnished = (
      await createListing(app, agency, { amenities: ['furnished', 'airConditioning', 'fireplace', 'garden'] })
    ).id;
    plain = (await createListing(app, agency, { amenities: ['pool', 'gym'] })).id;
    await createListing(app, other, { amenities: ['seaView', 'balcony'] });
  });

  it('gives each amenity its DD 2.0 field and value, and nothing for the ones without one', async () => {
    expect(await record(agency.secret.key, seaView)).toMatchObject({
      View: ['Ocean'],
      ExteriorFeatures: ['Balcony'],
      PatioAndPorchFeatures: ['Terrace'],
      PetsAllowed: ['Yes'],
      Furnished: null,
      CoolingYN: null,
      HeatingYN: null,
      FireplaceYN: null,
    });
    expect(await record(agency.secret.key, furnished)).toMatchObject({
      View: [],
      ExteriorFeatures: ['Garden'],
      Furnished: 'Furnished',
      CoolingYN: true,
      FireplaceYN: true,
      HeatingYN: null,
    });
    expect(await record(agency.secret.key, plain)).toMatchObject({
      View: [],
      ExteriorFeatures: [],
      PatioAndPorchFeatures: [],
      PetsAllowed: [],
    });
  });

  it('filters with has, any, all, and compares the single lookup and the flags', async () => {
    const ns = 'org.reso.metadata.enums';
    expect(await keysMatching(`View has ${ns}.View'Ocean'`)).toEqual([seaView]);
    expect(await keysMatching(`View has 'Ocean'`)).toEqual([seaView]);
    expect(await keysMatching(`ExteriorFeatures/any(f: f eq 'Garden' or f eq 'Balcony')`)).toEqual(
      [seaView, furnished].sort(),
    );
    expect(await keysMatching(`PatioAndPorchFeatures/any()`)).toEqual([seaView]);
    // all() holds for an empty collection: every listing without a View but the sea-view one.
    const all = await keysMatching(`View/all(v: v eq 'Ocean')`);
    expect(all).toEqual(expect.arrayContaining([seaView, furnished, plain]));
    expect(await keysMatching(`not (View/all(v: v eq 'Mountain(s)'))`)).toEqual([seaView]);
    // A DD value we never give matches nothing.
    expect(await keysMatching(`View has 'Mountain(s)'`)).toEqual([]);
    expect(await keysMatching(`Furnished eq 'Furnished'`)).toEqual([furnished]);
    expect(await keysMatching(`CoolingYN eq true and FireplaceYN eq true`)).toEqual([furnished]);
    expect(await keysMatching(`HeatingYN eq true`)).toEqual([]);
    expect(await keysMatching(`PetsAllowed has 'Yes'`, other.secret.key)).toEqual([]);
  });

  it('refuses collection comparisons outside has, any and all, with a message saying what works', async () => {
    expect(await filterError(`View eq 'Ocean'`)).toMatch(/View is a collection: it takes has/);
    expect(await filterError(`View in ('Ocean')`)).toMatch(/View is a collection/);
    expect(await filterError(`BedroomsTotal/any(b: b eq 3)`)).toMatch(/BedroomsTotal is not a collection/);
    expect(await filterError(`View/count eq 1`)).toMatch(/takes \/any\(\.\.\.\) or \/all/);
    expect(await filterError(`View/any(v: w eq 'Ocean')`)).toMatch(/compares v with eq/);
    expect(await filterError(`View/any(v: v ne 'Ocean')`)).toMatch(/compares v with eq/);
    expect(await filterError(`View/any(v: v eq 'Ocean'`)).toMatch(/'\)' closing View\/any/);
    expect(await filterError(`View/all()`)).toMatch(/expected the lambda variable/);
    expect(await filterError(`View has ${'org.reso.metadata.enums.View'}'Nowhere'`)).toMatch(
      /View is compared with one of 'Ocean'/,
    );
  });
});

describe('GET /v1/reso/Lookup', () => {
  const lookups = async (query = '', key = agency.secret.key) =>
    expectStatus(await api(app, 'GET', `/v1/reso/Lookup${query}`, { key }), 200);

  it('lists every value of every lookup field, the same names $metadata annotates', async () => {
    const body = await lookups('?$count=true');
    const total = Object.values(LOOKUP_VALUES).flat().length;
    expect(body['@odata.count']).toBe(total);
    expect(body.value).toHaveLength(total);
    expect(body.value).toContainEqual({
      LookupKey: 'StandardStatus.Active',
      LookupName: 'StandardStatus',
      LookupValue: 'Active',
      StandardLookupValue: 'Active',
      LegacyODataValue: 'Active',
      ModificationTimestamp: LOOKUPS_REVISION.at,
    });
    expect(body.value).toContainEqual(expect.objectContaining({ LookupName: 'View', LookupValue: 'Ocean' }));
    expect(body.value).toContainEqual(
      expect.objectContaining({ LookupName: 'PropertySubType', LegacyODataValue: 'SingleFamilyResidence' }),
    );
    const metadata = await api(app, 'GET', '/v1/reso/$metadata', { key: agency.secret.key });
    const edmx = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(metadata.body);
    const types = edmx['edmx:Edmx']['edmx:DataServices'].Schema[0].EntityType;
    const property = types.find((type: { Name: string }) => type.Name === 'Property');
    const annotated = property.Property.filter((field: { Annotation?: unknown }) => field.Annotation).map(
      (field: { Annotation: { String: string } }) => field.Annotation.String,
    );
    const named = new Set((body.value as { LookupName: string }[]).map((lookup) => lookup.LookupName));
    for (const name of annotated) expect(named, name).toContain(name);
    expect(property.Property.find((f: { Name: string }) => f.Name === 'View').Type).toBe(
      'Collection(Edm.String)',
    );
    expect(property.Property.find((f: { Name: string }) => f.Name === 'OnMarketDate').Type).toBe('Edm.Date');
    expect(types.map((type: { Name: string }) => type.Name)).toContain('Lookup');
  });

  it('takes $select, $top and $skip, with a next link, and refuses other options', async () => {
    const first = await lookups('?$top=3&$select=LookupName,LookupValue');
    expect(first.value).toHaveLength(3);
    expect(Object.keys(first.value[0])).toEqual(['LookupName', 'LookupValue']);
    const next = new URL(first['@odata.nextLink']);
    const second = await lookups(next.search);
    expect(second.value[0]).not.toEqual(first.value[0]);
    const bad = await api(
      app,
      'GET',
      `/v1/reso/Lookup?$filter=${encodeURIComponent("LookupName eq 'View'")}`,
      {
        key: agency.secret.key,
      },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['odata-version']).toBe('4.0');
    expect(bad.json().error.target).toBe('$filter');
    const field = await api(app, 'GET', '/v1/reso/Lookup?$select=Nope', { key: agency.secret.key });
    expect(field.statusCode).toBe(400);
    expect(field.json().error.message).toMatch(/Nope is not a field of Lookup/);
  });

  it('needs a secret key with listings:read, like the rest of the RESO service', async () => {
    const anonymous = await api(app, 'GET', '/v1/reso/Lookup');
    expect(anonymous.statusCode).toBe(401);
    const publishable = await api(app, 'GET', '/v1/reso/Lookup', { key: agency.publishable.key });
    expect(publishable.statusCode).toBe(403);
  });

  it('has a revision that moves with the values (a change to the mapping needs a new timestamp)', () => {
    expect(
      LOOKUPS_REVISION.digest,
      `the lookup values changed: set LOOKUPS_REVISION to { at: <now>, digest: '${lookupsDigest()}' }`,
    ).toBe(lookupsDigest());
  });
});
