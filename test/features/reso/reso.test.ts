/**
 * RESO Web API's Property resource (issue 25 item 6, docs/reso.md): RESO Data Dictionary 2.0 names,
 * the status and type mappings, $filter on ModificationTimestamp and StandardStatus, replication with
 * $top and @odata.nextLink while rows change, $select, $orderby, $count and one record by its key.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESO_FIELDS } from '../../../src/features/reso/reso.mapping.ts';
import { createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createListing, pathOf, resoPage, seedTiedListings, walk, type ResoRecord } from './support.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp();
});

afterAll(async () => {
  await app.close();
});

const keysOf = (records: ResoRecord[]) => records.map((record) => record.ListingKey);

describe('GET /v1/reso/Property: the record', () => {
  let agency: SpanishAgency;
  beforeAll(async () => {
    agency = await createTenant(app, SPANISH_AGENCY);
  });

  it('answers an OData collection in RESO DD 2.0 names, the agency view of every field', async () => {
    const listing = await createListing(app, agency, {
      status: 'RESERVED',
      price: 310000,
      currency: 'EUR',
      description: 'Sea views',
      address: 'Calle Larios 12',
      zipCode: '29005',
      neighborhood: 'Centro',
      coordinates: { latitude: 36.72016, longitude: -4.42034 },
      approximateLocation: true,
      bedrooms: 3,
      bathrooms: 2,
      area: 95.5,
      internalNotes: 'Keys at the office',
      publishedOnPortal: false,
      photos: [
        { url: 'https://images.example.com/a.jpg', caption: 'Living room' },
        { url: 'https://images.example.com/b.jpg' },
      ],
    });
    const page = await resoPage(app, agency.secret.key);
    expect(page['@odata.context']).toBe('http://localhost:80/v1/reso/$metadata#Property');
    const record = page.value.find((r) => r.ListingKey === listing.id) as ResoRecord;
    expect(Object.keys(record)).toEqual([...RESO_FIELDS]);
    expect(record).toMatchObject({
      ListingId: listing.code,
      StandardStatus: 'Pending',
      MlsStatus: 'RESERVED',
      PropertyType: 'Residential',
      PropertySubType: 'Condominium',
      LeaseConsideredYN: false,
      ListPrice: 310000,
      PreviousListPrice: null,
      ListPriceCurrency: 'EUR',
      BedroomsTotal: 3,
      BathroomsTotalInteger: 2,
      LivingArea: 95.5,
      LivingAreaUnits: 'Square Meters',
      // The agency's view: exact address and coordinates even where the portal approximates them.
      UnparsedAddress: 'Calle Larios 12',
      PostalCode: '29005',
      City: 'Málaga',
      SubdivisionName: 'Centro',
      Latitude: 36.72016,
      Longitude: -4.42034,
      PublicRemarks: 'Sea views',
      PrivateRemarks: 'Keys at the office',
      ListAgentKey: null,
      InternetEntireListingDisplayYN: false,
      InternetAddressDisplayYN: false,
      PhotosCount: 2,
    });
    expect(record.Media).toEqual([
      expect.objectContaining({
        MediaCategory: 'Photo',
        MediaURL: 'https://images.example.com/a.jpg',
        Order: 1,
        ShortDescription: 'Living room',
      }),
      expect.objectContaining({
        MediaURL: 'https://images.example.com/b.jpg',
        Order: 2,
        ShortDescription: null,
      }),
    ]);
    // Photos given by URL get a key derived from the listing and the URL: present, distinct, stable.
    const media = record.Media as {
      MediaKey: string;
      ResourceRecordKey: string;
      ModificationTimestamp: string;
    }[];
    for (const item of media) {
      expect(item.MediaKey).toMatch(/^med_[0-9a-f]{24}$/);
      expect(item).toMatchObject({ ResourceName: 'Property', ResourceRecordKey: listing.id });
      expect(item.ModificationTimestamp).toBe(record.ModificationTimestamp);
    }
    expect(new Set(media.map((item) => item.MediaKey)).size).toBe(2);
    const again = await resoPage(app, agency.secret.key, { $filter: `ListingKey eq '${listing.id}'` });
    expect((again.value[0]?.Media as { MediaKey: string }[]).map((item) => item.MediaKey)).toEqual(
      media.map((item) => item.MediaKey),
    );
    // Timestamps to the microsecond, so `gt` the last one seen is exact.
    expect(record.ModificationTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(record.OriginalEntryTimestamp).toMatch(/\.\d{6}Z$/);
  });

  it('maps every status to StandardStatus and type with transaction type to PropertyType', async () => {
    const cases = [
      [{ status: 'DRAFT' }, { StandardStatus: 'Incomplete', MlsStatus: 'DRAFT' }],
      [
        { status: 'ACTIVE', type: 'HOUSE' },
        { StandardStatus: 'Active', PropertySubType: 'Single Family Residence' },
      ],
      [{ status: 'SOLD' }, { StandardStatus: 'Closed', PropertyType: 'Residential' }],
      [
        { status: 'RENTED', transactionType: 'RENT' },
        { StandardStatus: 'Closed', PropertyType: 'Residential Lease', PropertySubType: 'Apartment' },
      ],
      [{ status: 'INACTIVE' }, { StandardStatus: 'Withdrawn', MlsStatus: 'INACTIVE' }],
      [
        { type: 'OFFICE', transactionType: 'RENT' },
        { PropertyType: 'Commercial Lease', PropertySubType: 'Office', LeaseConsideredYN: null },
      ],
      [{ type: 'LAND' }, { PropertyType: 'Land', PropertySubType: 'Unimproved Land' }],
      [
        { type: 'WAREHOUSE', transactionType: 'SALE_OR_RENT' },
        { PropertyType: 'Commercial Sale', PropertySubType: 'Warehouse', LeaseConsideredYN: true },
      ],
    ] as const;
    for (const [input, expected] of cases) {
      const listing = await createListing(app, agency, input);
      const response = await api(app, 'GET', `/v1/reso/Property('${listing.id}')`, {
        key: agency.readOnly.key,
      });
      expect(expectStatus(response, 200), JSON.stringify(input)).toMatchObject(expected);
    }
  });
});

describe('GET /v1/reso/Property: $filter', () => {
  let agency: SpanishAgency;
  let a: ResoRecord;
  let b: ResoRecord;
  let c: ResoRecord;
  beforeAll(async () => {
    agency = await createTenant(app, SPANISH_AGENCY);
    await createListing(app, agency, { status: 'ACTIVE' });
    await createListing(app, agency, { status: 'SOLD' });
    await createListing(app, agency, { status: 'RENTED', transactionType: 'RENT' });
    await createListing(app, agency, { status: 'DRAFT' });
    [a, b, c] = (await resoPage(app, agency.secret.key)).value.slice(1) as [
      ResoRecord,
      ResoRecord,
      ResoRecord,
    ];
  });
  const filtered = async (filter: string) =>
    keysOf((await resoPage(app, agency.secret.key, { $filter: filter })).value);

  it('compares ModificationTimestamp to the microsecond: gt, ge, lt, le, eq, ne around a record', async () => {
    const at = b.ModificationTimestamp;
    expect(await filtered(`ModificationTimestamp gt ${at}`)).toEqual([c.ListingKey]);
    expect(await filtered(`ModificationTimestamp ge ${at}`)).toEqual([b.ListingKey, c.ListingKey]);
    expect(await filtered(`ModificationTimestamp lt ${at}`)).toHaveLength(2);
    expect(await filtered(`ModificationTimestamp lt ${at}`)).toContain(a.ListingKey);
    expect(await filtered(`ModificationTimestamp le ${at}`)).toHaveLength(3);
    expect(await filtered(`ModificationTimestamp eq ${at}`)).toEqual([b.ListingKey]);
    expect(await filtered(`ModificationTimestamp ne ${at}`)).toHaveLength(3);
    // Another zone, whole seconds: a second after the last record, in Madrid's summer time.
    const utc = new Date(c.ModificationTimestamp).getTime() + 1000;
    const later = new Date(utc + 2 * 3_600_000).toISOString().slice(0, 19);
    expect(await filtered(`ModificationTimestamp gt ${later}+02:00`)).toEqual([]);
    expect(await filtered(`ModificationTimestamp lt ${later}+02:00`)).toHaveLength(4);
    expect(await filtered('ModificationTimestamp gt 2000-01-01T00:00Z')).toHaveLength(4);
  });

  it('filters StandardStatus with eq, ne and in, combined with and, or, not and parentheses', async () => {
    const statuses = async (filter: string) =>
      (await resoPage(app, agency.secret.key, { $filter: filter, $select: 'MlsStatus' })).value
        .map((record) => record.MlsStatus)
        .sort();
    expect(await statuses("StandardStatus eq 'Closed'")).toEqual(['RENTED', 'SOLD']);
    expect(await statuses("StandardStatus ne 'Closed'")).toEqual(['ACTIVE', 'DRAFT']);
    expect(await statuses("StandardStatus in ('Active','Incomplete')")).toEqual(['ACTIVE', 'DRAFT']);
    expect(await statuses("StandardStatus eq 'Coming Soon'")).toEqual([]);
    expect(await statuses("not (StandardStatus eq 'Closed') and StandardStatus ne 'Active'")).toEqual([
      'DRAFT',
    ]);
    expect(
      await statuses(
        `(StandardStatus eq 'Active' or StandardStatus eq 'Incomplete') and ModificationTimestamp lt ${c.ModificationTimestamp}`,
      ),
    ).toEqual(['ACTIVE']);
  });
});

describe('GET /v1/reso/Property: replication, $select, $orderby, $count', () => {
  it('walks every record with $top and @odata.nextLink, a record changed mid-walk coming again later', async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) ids.push((await createListing(app, agency)).id);
    const update = (id: string, price: number) =>
      api(app, 'PATCH', `/v1/listings/${id}`, { key: agency.secret.key, body: { price } });
    const first = await resoPage(app, agency.secret.key, {
      $top: '3',
      $select: 'ListingKey,ListPrice,ModificationTimestamp',
    });
    expect(first.value).toHaveLength(3);
    expect(first['@odata.nextLink']).toContain('$top=3');
    const seen = await walk(app, agency.secret.key, first, async (_page, index) => {
      if (index !== 0) return;
      // Between pages: one record already seen, one not yet seen.
      expectStatus(await update(ids[0] as string, 1), 200);
      expectStatus(await update(ids[4] as string, 5), 200);
    });
    const keys = keysOf(seen);
    expect(new Set(keys)).toEqual(new Set(ids));
    expect(keys).toEqual([...ids.slice(0, 4), ...ids.slice(5), ids[0], ids[4]]);
    expect(seen.at(-2)?.ListPrice).toBe(1);
    expect(seen.at(-1)?.ListPrice).toBe(5);
    const stamps = seen.map((record) => record.ModificationTimestamp);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it('orders records of one instant by ListingKey, with no repeat or miss across pages, either direction', async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const tied = await seedTiedListings(agency.org.id, 5, {
      tag: 'Ties',
      updatedAt: '2026-01-01T00:00:00.000001Z',
    });
    const asc = await walk(app, agency.secret.key, await resoPage(app, agency.secret.key, { $top: '2' }));
    expect(keysOf(asc)).toEqual(tied);
    expect(asc[0]?.ModificationTimestamp).toBe('2026-01-01T00:00:00.000001Z');
    const desc = await walk(
      app,
      agency.secret.key,
      await resoPage(app, agency.secret.key, {
        $top: '2',
        $orderby: 'ModificationTimestamp desc,ListingKey desc',
      }),
    );
    expect(keysOf(desc)).toEqual([...tied].reverse());
    const byKey = await walk(
      app,
      agency.secret.key,
      await resoPage(app, agency.secret.key, { $top: '3', $orderby: 'ListingKey desc' }),
    );
    expect(keysOf(byKey)).toEqual([...tied].reverse());
    // $skip pages alike; its nextLink continues with a $skiptoken.
    const skipped = await resoPage(app, agency.secret.key, { $top: '2', $skip: '2' });
    expect(keysOf(skipped.value)).toEqual(tied.slice(2, 4));
    const next = pathOf(skipped['@odata.nextLink'] as string);
    expect(next).toContain('$skiptoken=');
    expect(next).not.toContain('$skip=');
    expect(keysOf(await walk(app, agency.secret.key, skipped))).toEqual(tied.slice(2));
  });

  it('selects fields, orders by ModificationTimestamp desc and counts the matches', async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1)
      ids.push((await createListing(app, agency, { status: i === 0 ? 'SOLD' : 'ACTIVE' })).id);
    const page = await resoPage(app, agency.secret.key, {
      $select: 'ListPrice, ListingKey',
      $orderby: 'ModificationTimestamp desc',
      $top: '2',
      $count: 'true',
    });
    expect(page['@odata.context']).toBe(
      'http://localhost:80/v1/reso/$metadata#Property(ListingKey,ListPrice)',
    );
    expect(page['@odata.count']).toBe(4);
    expect(page.value.map((record) => Object.keys(record))).toEqual([
      ['ListingKey', 'ListPrice'],
      ['ListingKey', 'ListPrice'],
    ]);
    expect(keysOf(page.value)).toEqual([ids[3], ids[2]]);
    const second = expectStatus(
      await api(app, 'GET', pathOf(page['@odata.nextLink'] as string), { key: agency.secret.key }),
      200,
    );
    expect(second['@odata.count']).toBe(4);
    expect(keysOf(second.value)).toEqual([ids[1], ids[0]]);
    expect(second['@odata.nextLink']).toBeUndefined();
    const closed = await resoPage(app, agency.secret.key, {
      $filter: "StandardStatus eq 'Closed'",
      $count: 'true',
      $top: '0',
    });
    expect(closed).toEqual({ '@odata.context': expect.any(String), '@odata.count': 1, value: [] });
    expect((await resoPage(app, agency.secret.key))['@odata.count']).toBeUndefined();
  });
});

describe("GET /v1/reso/Property('{ListingKey}')", () => {
  it('answers one record, with the key quoted raw or percent-encoded, and $select', async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const listing = await createListing(app, agency);
    const one = expectStatus(
      await api(app, 'GET', `/v1/reso/Property('${listing.id}')`, { key: agency.secret.key }),
      200,
    );
    expect(one['@odata.context']).toBe('http://localhost:80/v1/reso/$metadata#Property/$entity');
    expect(one).toMatchObject({ ListingKey: listing.id, ListingId: listing.code, StandardStatus: 'Active' });
    const encoded = await api(app, 'GET', `/v1/reso/Property%28%27${listing.id}%27%29`, {
      key: agency.secret.key,
    });
    expect(expectStatus(encoded, 200)).toEqual(one);
    const selected = expectStatus(
      await api(app, 'GET', `/v1/reso/Property('${listing.id}')?$select=ListingKey,City`, {
        key: agency.secret.key,
      }),
      200,
    );
    expect(selected).toEqual({
      '@odata.context': 'http://localhost:80/v1/reso/$metadata#Property(ListingKey,City)/$entity',
      ListingKey: listing.id,
      City: 'Málaga',
    });
  });
});
