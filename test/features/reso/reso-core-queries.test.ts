/**
 * Every testing query of RESO Web API Core 2.0.0 (RCP-37 §3.5), as RESO's web-api-commander sends them
 * (its sample-web-api-server.core.2.0.0.resoscript and web-api-server.core.feature), against a seeded
 * agency, asserting what RESO asserts: the status, the OData-Version header, JSON with results, the
 * selected fields present, and every record satisfying the filter. Our RESOScript parameters: KeyField
 * ListingKey; IntegerField BedroomsTotal (1, 15); DecimalField ListPrice (0.00, 1234567.89); the single
 * lookup StandardStatus 'Active' (org.reso.metadata.enums.StandardStatus); TimestampField
 * ModificationTimestamp (the field $orderby walks) with 2019-12-31T23:55:55-09:00; DateField OnMarketDate
 * with 2020-01-01 (and date() of the timestamp, which we also take); MultipleValueLookupField
 * ExteriorFeatures with 'Balcony' and 'Garden' (org.reso.metadata.enums.ExteriorFeatures).
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
const keys: string[] = [];

const DATETIME = '2019-12-31T23:55:55-09:00';
const DATETIME_UTC = Date.parse(DATETIME);
const NS = 'org.reso.metadata.enums.StandardStatus';

/**
 * [bedrooms, price, status, updated_at, on_market_date, amenities]: around every boundary the queries
 * test (balcony and garden are ExteriorFeatures' Balcony and Garden; the others map elsewhere or nowhere).
 */
const SEED: [number, string, string, string, string | null, string[]][] = [
  [0, '0.00', 'DRAFT', '2019-12-30T12:00:00Z', null, []],
  [1, '95000.00', 'ACTIVE', '2019-12-31T10:00:00Z', '2019-12-31', ['balcony']],
  [1, '120000.50', 'RESERVED', DATETIME, '2020-01-01', ['balcony', 'garden', 'pool']],
  [2, '250000.00', 'ACTIVE', '2020-01-01T08:55:56Z', '2020-01-01', ['garden']],
  [3, '310000.00', 'SOLD', '2021-06-01T00:00:00Z', '2020-06-01', ['seaView', 'terrace']],
  [4, '1234567.89', 'ACTIVE', '2022-03-15T09:30:00.123456Z', '2021-12-31', ['balcony', 'garden']],
  [5, '2500000.00', 'INACTIVE', '2023-01-01T00:00:00Z', '2019-06-30', []],
  [15, '750000.00', 'ACTIVE', '2024-05-05T05:05:05Z', '2024-05-01', ['pool', 'gym']],
  [20, '990000.00', 'RENTED', '2025-01-01T00:00:00Z', '2020-01-02', ['balcony']],
];

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  const db = await testDatabase();
  const organizationId = agency.org.id;
  await db.tenantTx(organizationId, async (tx) => {
    for (const [n, [bedrooms, price, status, at, onMarket, amenities]] of SEED.entries()) {
      const id = `prop_core${String(n).padStart(18, '0')}`;
      keys.push(id);
      const photos = JSON.stringify([
        { url: `https://images.example.com/core/${n}.jpg`, caption: `Photo ${n}` },
      ]);
      await queryRows(
        tx,
        sql`INSERT INTO properties (id, organization_id, code, title, transaction_type, type, status, price,
              currency, bedrooms, city, search_city, search_text, photos, created_at, updated_at,
              on_market_date, amenities)
            VALUES (${id}, ${organizationId}, ${`CORE-${n}`}, ${`Core ${n}`}, 'SALE', 'HOUSE', ${status},
              ${price}::numeric, 'EUR', ${bedrooms}, 'Ronda', 'ronda', 'core', ${photos}::jsonb,
              ${at}::timestamptz, ${at}::timestamptz, ${onMarket}::date,
              string_to_array(${amenities.join(',')}, ',')::text[])`,
      );
    }
  });
});

afterAll(async () => {
  await app.close();
});

type Row = Record<string, unknown>;

/** A RESO request: 200, OData-Version 4.0 or 4.01, JSON; its body. */
async function get(path: string): Promise<{ value?: Row[]; [name: string]: unknown }> {
  const response = await api(app, 'GET', `/v1/reso/${path}`, { key: agency.secret.key });
  const body = expectStatus(response, 200);
  expect(['4.0', '4.01'], path).toContain(response.headers['odata-version']);
  return body;
}

/** The commander's checks of a filtered query: results, the selected fields in each, the filter holds. */
async function query(options: string, select: string[], holds: (row: Row) => boolean) {
  const body = await get(`Property?${options.replaceAll(' ', '%20')}`);
  const rows = body.value ?? [];
  expect(rows.length, `${options}: the response has results`).toBeGreaterThan(0);
  for (const row of rows) {
    for (const field of select) expect(row, `${options}: ${field} present`).toHaveProperty(field);
    expect(holds(row), `${options}: ${JSON.stringify(row)}`).toBe(true);
  }
  return rows;
}

const beds = (row: Row) => row.BedroomsTotal as number;
const price = (row: Row) => row.ListPrice as number;
const at = (row: Row) => Date.parse(row.ModificationTimestamp as string);
const day = (row: Row) => (row.ModificationTimestamp as string).slice(0, 10);
const onMarket = (row: Row) => row.OnMarketDate as string | null;
const exterior = (row: Row) => row.ExteriorFeatures as string[];
const S_INT = '$top=5&$select=ListingKey,BedroomsTotal&$filter=';
const S_DEC = '$top=5&$select=ListingKey,ListPrice&$filter=';
const S_TS = '$top=5&$select=ListingKey,ModificationTimestamp&$filter=';
const S_ENUM = '$top=5&$select=ListingKey,StandardStatus&$filter=';
const S_DATE = '$top=5&$select=ListingKey,OnMarketDate&$filter=';
const S_MULTI = '$top=5&$select=ListingKey,ExteriorFeatures&$filter=';
const MULTI = 'org.reso.metadata.enums.ExteriorFeatures';
const SORT = '$top=20&$select=ListingKey,BedroomsTotal,ModificationTimestamp&$orderby=ModificationTimestamp';

describe('RESO Web API Core 2.0.0: metadata, service document, key, $select, $top, $skip, $count', () => {
  it('metadata-request: valid XML CSDL with the endpoint resource and its key', async () => {
    const response = await api(app, 'GET', '/v1/reso/$metadata?$format=application/xml', {
      key: agency.secret.key,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['odata-version']).toBe('4.0');
    expect(response.headers['content-type']).toMatch(/^application\/xml/);
    expect(XMLValidator.validate(response.body)).toBe(true);
    const edmx = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(response.body);
    const schema = edmx['edmx:Edmx']['edmx:DataServices'].Schema[0];
    const property = schema.EntityType.find((type: Row) => type.Name === 'Property');
    expect(property.Key.PropertyRef.Name).toBe('ListingKey');
    expect(schema.EntityContainer.EntitySet.map((set: Row) => set.Name)).toEqual(['Property', 'Lookup']);
  });

  it('service-document, fetch-by-key, select, top, skip and count', async () => {
    const service = await get('');
    expect(service.value).toEqual([
      { name: 'Property', kind: 'EntitySet', url: 'Property' },
      { name: 'Lookup', kind: 'EntitySet', url: 'Lookup' },
    ]);
    const one = await get(`Property('${keys[0]}')?$select=ListingKey`);
    expect(one.ListingKey).toBe(keys[0]);
    expect(one.value).toBeUndefined();
    await query('$select=ListingKey,BedroomsTotal', ['ListingKey', 'BedroomsTotal'], () => true);
    const top = await query('$select=ListingKey&$top=5', ['ListingKey'], () => true);
    expect(top.length).toBeLessThanOrEqual(5);
    const skipped = await query('$select=ListingKey&$top=5&$skip=5', ['ListingKey'], () => true);
    for (const row of skipped) expect(top.map((r) => r.ListingKey)).not.toContain(row.ListingKey);
    const counted = await get('Property?$count=true');
    expect(counted['@odata.count']).toBeGreaterThanOrEqual((counted.value ?? []).length);
  });
});

describe('RESO Web API Core 2.0.0: $orderby and $filter on integers, decimals, dates, timestamps', () => {
  it('orderby-timestamp-asc and -desc, alone and with filter-int-gt', async () => {
    for (const filter of ['', '&$filter=BedroomsTotal gt 1']) {
      const asc = await query(`${SORT} asc${filter}`, ['ListingKey', 'ModificationTimestamp'], (r) =>
        filter === '' ? true : beds(r) > 1,
      );
      expect(asc.map(at)).toEqual([...asc.map(at)].sort((a, b) => a - b));
      const desc = await query(`${SORT} desc${filter}`, ['ListingKey', 'ModificationTimestamp'], (r) =>
        filter === '' ? true : beds(r) > 1,
      );
      expect(desc.map(at)).toEqual([...desc.map(at)].sort((a, b) => b - a));
    }
  });

  it('filter-int-and, -or, -not, -eq, -ne, -gt, -ge, -lt, -le', async () => {
    const fields = ['ListingKey', 'BedroomsTotal'];
    await query(
      `${S_INT}BedroomsTotal gt 1 and BedroomsTotal lt 15`,
      fields,
      (r) => beds(r) > 1 && beds(r) < 15,
    );
    await query(
      `${S_INT}BedroomsTotal lt 15 or BedroomsTotal gt 1`,
      fields,
      (r) => beds(r) < 15 || beds(r) > 1,
    );
    await query(`${S_INT}not (BedroomsTotal le -1)`, fields, (r) => beds(r) > -1);
    await query(`${S_INT}BedroomsTotal eq 1`, fields, (r) => beds(r) === 1);
    await query(`${S_INT}BedroomsTotal ne 1`, fields, (r) => beds(r) !== 1);
    await query(`${S_INT}BedroomsTotal gt 1`, fields, (r) => beds(r) > 1);
    await query(`${S_INT}BedroomsTotal ge 1`, fields, (r) => beds(r) >= 1);
    await query(`${S_INT}BedroomsTotal lt 15`, fields, (r) => beds(r) < 15);
    await query(`${S_INT}BedroomsTotal le 1`, fields, (r) => beds(r) <= 1);
  });

  it('filter-decimal-eq, -ne, -gt, -ge, -lt, -le', async () => {
    const fields = ['ListingKey', 'ListPrice'];
    await query(`${S_DEC}ListPrice eq 0.00`, fields, (r) => price(r) === 0);
    await query(`${S_DEC}ListPrice ne 0.00`, fields, (r) => price(r) !== 0);
    await query(`${S_DEC}ListPrice gt 0.00`, fields, (r) => price(r) > 0);
    await query(`${S_DEC}ListPrice ge 0.00`, fields, (r) => price(r) >= 0);
    await query(`${S_DEC}ListPrice lt 1234567.89`, fields, (r) => price(r) < 1234567.89);
    await query(`${S_DEC}ListPrice le 1234567.89`, fields, (r) => price(r) <= 1234567.89);
    const exact = await query(`${S_DEC}ListPrice eq 1234567.89`, fields, (r) => price(r) === 1234567.89);
    expect(exact).toHaveLength(1);
  });

  it('filter-date-eq, -ne, -gt, -ge, -lt, -le on the Edm.Date OnMarketDate', async () => {
    const fields = ['ListingKey', 'OnMarketDate'];
    const d = '2020-01-01';
    // OData's null semantics: a listing never on the market (null) matches only ne.
    const eq = await query(`${S_DATE}OnMarketDate eq ${d}`, fields, (r) => onMarket(r) === d);
    expect(eq).toHaveLength(2);
    await query(`${S_DATE}OnMarketDate ne ${d}`, fields, (r) => onMarket(r) !== d);
    await query(`${S_DATE}OnMarketDate gt ${d}`, fields, (r) => (onMarket(r) ?? '') > d);
    await query(`${S_DATE}OnMarketDate ge ${d}`, fields, (r) => (onMarket(r) ?? '') >= d);
    await query(
      `${S_DATE}OnMarketDate lt ${d}`,
      fields,
      (r) => onMarket(r) !== null && (onMarket(r) as string) < d,
    );
    await query(
      `${S_DATE}OnMarketDate le ${d}`,
      fields,
      (r) => onMarket(r) !== null && (onMarket(r) as string) <= d,
    );
  });

  it('the same date comparisons on date() of a timestamp', async () => {
    const fields = ['ListingKey', 'ModificationTimestamp'];
    const d = '2019-12-31';
    await query(`${S_TS}date(ModificationTimestamp) eq ${d}`, fields, (r) => day(r) === d);
    await query(`${S_TS}date(ModificationTimestamp) ne ${d}`, fields, (r) => day(r) !== d);
    await query(`${S_TS}date(ModificationTimestamp) gt ${d}`, fields, (r) => day(r) > d);
    await query(`${S_TS}date(ModificationTimestamp) ge ${d}`, fields, (r) => day(r) >= d);
    await query(`${S_TS}date(ModificationTimestamp) lt ${d}`, fields, (r) => day(r) < d);
    await query(`${S_TS}date(ModificationTimestamp) le ${d}`, fields, (r) => day(r) <= d);
  });

  it('filter-datetime-eq, -ne, -gt, -ge, and -lt, -le against now()', async () => {
    const fields = ['ListingKey', 'ModificationTimestamp'];
    const v = DATETIME.replace('+', '%2B');
    const eq = await query(`${S_TS}ModificationTimestamp eq ${v}`, fields, (r) => at(r) === DATETIME_UTC);
    expect(eq).toHaveLength(1);
    await query(`${S_TS}ModificationTimestamp ne ${v}`, fields, (r) => at(r) !== DATETIME_UTC);
    await query(`${S_TS}ModificationTimestamp gt ${v}`, fields, (r) => at(r) > DATETIME_UTC);
    await query(`${S_TS}ModificationTimestamp ge ${v}`, fields, (r) => at(r) >= DATETIME_UTC);
    const now = Date.now() + 1000;
    await query(`${S_TS}ModificationTimestamp lt now()`, fields, (r) => at(r) < now);
    await query(`${S_TS}ModificationTimestamp le now()`, fields, (r) => at(r) <= now);
  });
});

describe('RESO Web API Core 2.0.0: lookups, response codes', () => {
  it("filter-enum-single-has, -eq, -ne with the enum literal, and the string lookup's own forms", async () => {
    const fields = ['ListingKey', 'StandardStatus'];
    const active = (r: Row) => r.StandardStatus === 'Active';
    await query(`${S_ENUM}StandardStatus has ${NS}'Active'`, fields, active);
    await query(`${S_ENUM}StandardStatus eq ${NS}'Active'`, fields, active);
    await query(`${S_ENUM}StandardStatus ne ${NS}'Active'`, fields, (r) => !active(r));
    await query(`${S_ENUM}StandardStatus eq 'Active'`, fields, active);
    const statuses = ['Active', 'Pending'];
    await query(`${S_ENUM}StandardStatus in ('Active','Pending')`, fields, (r) =>
      statuses.includes(r.StandardStatus as string),
    );
  });

  it('filter-enum-multi-has, -multi-has-and, filter-coll-enum-any, -all on ExteriorFeatures', async () => {
    const fields = ['ListingKey', 'ExteriorFeatures'];
    const has = (value: string) => (r: Row) => exterior(r).includes(value);
    const one = await query(`${S_MULTI}ExteriorFeatures has ${MULTI}'Balcony'`, fields, has('Balcony'));
    expect(one).toHaveLength(4);
    const both = await query(
      `${S_MULTI}ExteriorFeatures has ${MULTI}'Balcony' and ExteriorFeatures has ${MULTI}'Garden'`,
      fields,
      (r) => has('Balcony')(r) && has('Garden')(r),
    );
    expect(both).toHaveLength(2);
    const any = await query(
      `${S_MULTI}ExteriorFeatures/any(enum:enum eq ${MULTI}'Balcony')`,
      fields,
      has('Balcony'),
    );
    expect(any).toHaveLength(4);
    // all(): every value is Balcony, or there is none (RESO's commander accepts the empty list too).
    const all = await query(
      `$top=20&$select=ListingKey,ExteriorFeatures&$filter=ExteriorFeatures/all(enum:enum eq ${MULTI}'Balcony')`,
      fields,
      (r) => exterior(r).every((value) => value === 'Balcony'),
    );
    expect(all.filter((r) => exterior(r).length > 0)).toHaveLength(2);
    expect(all).toHaveLength(SEED.filter(([, , , , , a]) => !a.includes('garden')).length);
  });

  it('response-code-400 and response-code-404', async () => {
    const bad = await api(
      app,
      'GET',
      `/v1/reso/Property?$filter=${encodeURIComponent("BadField eq 'SoBad'")}`,
      {
        key: agency.secret.key,
      },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['odata-version']).toBe('4.0');
    const missing = await api(app, 'GET', '/v1/reso/ResourceNotFound', { key: agency.secret.key });
    expect(missing.statusCode).toBe(404);
  });
});

describe('RESO Web API Core 2.1.0 additions: $expand=Media, the Media navigation path, nextLink', () => {
  it('expands Media on every record, and serves Property(key)/Media with the same records', async () => {
    const rows = await query('$select=ListingKey&$expand=Media', ['ListingKey', 'Media'], (r) =>
      Array.isArray(r.Media),
    );
    const first = rows[0] as { ListingKey: string; Media: Row[] };
    expect(first.Media[0]).toMatchObject({ ResourceRecordKey: first.ListingKey, ResourceName: 'Property' });
    const media = await get(`Property('${first.ListingKey}')/Media`);
    expect(media.value).toEqual(first.Media);
  });

  it('gives no nextLink once every record is read, and a nextLink per page before', async () => {
    const all = await get(`Property?$top=${SEED.length}`);
    expect(all['@odata.nextLink']).toBeUndefined();
    const paged = await get('Property?$top=1&$filter=ModificationTimestamp%20gt%202018-01-01T00:00:00Z');
    expect(paged['@odata.nextLink']).toEqual(expect.stringContaining('$skiptoken='));
  });
});
