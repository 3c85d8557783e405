/**
 * Deleted listings in the RESO walk (issue 40 item 1, decision 0263): a Delete record with the listing's
 * keys and the deletion instant, found by a walk resumed after it, by `StandardStatus eq 'Delete'` and by
 * its key, paged with the listings without repeat or miss; never another organization's, and none left
 * behind when the organization itself goes.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { deleteOrganization } from '../../../src/features/organizations/index.ts';
import { RESO_FIELDS } from '../../../src/features/reso/reso.mapping.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import {
  createApiKey,
  createTenant,
  FAST,
  SPANISH_AGENCY,
  type SpanishAgency,
} from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import {
  createListing,
  keysOf,
  pathOf,
  resoPage,
  seedTiedListings,
  walk,
  type ResoRecord,
} from './support.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp();
});

afterAll(async () => {
  await app.close();
});

const statusesOf = (records: ResoRecord[]) => records.map((record) => record.StandardStatus);

async function deleteListing(key: string, id: string): Promise<void> {
  expectStatus(await api(app, 'DELETE', `/v1/listings/${id}`, { key }), 200);
}

/** The organization's rows of reso_deletions, read past row-level security. */
async function deletionsOf(organizationId: string): Promise<{ property_id: string }[]> {
  const db = await testDatabase();
  return db.systemTx((tx) =>
    queryRows<{ property_id: string }>(
      tx,
      sql`SELECT property_id FROM reso_deletions WHERE organization_id = ${organizationId} ORDER BY deleted_at`,
    ),
  );
}

describe('GET /v1/reso/Property: the Delete record of a deleted listing', () => {
  it('comes to a walk resumed after the last record seen: its keys, StandardStatus Delete, the rest null', async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const [a, b, c] = [
      await createListing(app, agency),
      await createListing(app, agency, { photos: [{ url: 'https://images.example.com/b.jpg' }] }),
      await createListing(app, agency),
    ];
    const before = await resoPage(app, agency.secret.key);
    expect(keysOf(before.value)).toEqual([a.id, b.id, c.id]);
    const lastSeen = before.value.at(-1)?.ModificationTimestamp as string;

    await deleteListing(agency.secret.key, b.id);
    const resumed = await resoPage(app, agency.secret.key, {
      $filter: `ModificationTimestamp gt ${lastSeen}`,
    });
    expect(resumed.value).toHaveLength(1);
    const record = resumed.value[0] as ResoRecord;
    expect(Object.keys(record)).toEqual([...RESO_FIELDS]);
    const nulls = RESO_FIELDS.filter(
      (field) =>
        !['ListingKey', 'ListingId', 'StandardStatus', 'Media', 'ModificationTimestamp'].includes(field),
    );
    expect(record).toEqual({
      ...Object.fromEntries(nulls.map((field) => [field, null])),
      ListingKey: b.id,
      ListingId: b.code,
      StandardStatus: 'Delete',
      Media: [],
      ModificationTimestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
    });
    expect(record.ModificationTimestamp > lastSeen).toBe(true);

    // From the start: the listings left, then the Delete record, in ModificationTimestamp order.
    const all = await resoPage(app, agency.secret.key);
    expect(keysOf(all.value)).toEqual([a.id, c.id, b.id]);
    expect(statusesOf(all.value)).toEqual(['Active', 'Active', 'Delete']);

    // By its key: the same Delete record, without Media.
    const one = expectStatus(
      await api(app, 'GET', `/v1/reso/Property('${b.id}')`, { key: agency.secret.key }),
      200,
    );
    expect(one).toEqual({ '@odata.context': expect.stringMatching(/\$entity$/), ...record });
    const selected = expectStatus(
      await api(app, 'GET', `/v1/reso/Property('${b.id}')?$select=ListingKey,StandardStatus,ListPrice`, {
        key: agency.secret.key,
      }),
      200,
    );
    expect(selected).toMatchObject({ ListingKey: b.id, StandardStatus: 'Delete', ListPrice: null });
    const media = expectStatus(
      await api(app, 'GET', `/v1/reso/Property('${b.id}')/Media`, { key: agency.secret.key }),
      200,
    );
    expect(media.value).toEqual([]);
  });

  it('ends a walk during which listings were deleted, seen or not, with their Delete records', async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await createListing(app, agency)).id);
    const first = await resoPage(app, agency.secret.key, { $top: '2' });
    const seen = await walk(app, agency.secret.key, first, async (_page, index) => {
      if (index !== 0) return;
      await deleteListing(agency.secret.key, ids[0] as string);
      await deleteListing(agency.secret.key, ids[3] as string);
    });
    expect(keysOf(seen)).toEqual([ids[0], ids[1], ids[2], ids[4], ids[0], ids[3]]);
    expect(statusesOf(seen)).toEqual(['Active', 'Active', 'Active', 'Active', 'Delete', 'Delete']);
    const stamps = seen.map((record) => record.ModificationTimestamp);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it("is dated after the listing's last change, whatever the clock says", async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const [id] = await seedTiedListings(agency.org.id, 1, {
      tag: 'Late',
      updatedAt: '2999-01-01T00:00:00.000001Z',
    });
    await deleteListing(agency.secret.key, id as string);
    const page = await resoPage(app, agency.secret.key);
    expect(page.value).toMatchObject([
      { ListingKey: id, StandardStatus: 'Delete', ModificationTimestamp: '2999-01-01T00:00:00.000002Z' },
    ]);
  });

  it('goes if a listing with the same key is created again: a key is a listing or a Delete record', async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const options = { tag: 'Back', updatedAt: '2026-01-01T00:00:00.000001Z' };
    const [id] = await seedTiedListings(agency.org.id, 1, options);
    await deleteListing(agency.secret.key, id as string);
    expect(await deletionsOf(agency.org.id)).toHaveLength(1);
    await seedTiedListings(agency.org.id, 1, options);
    expect(await deletionsOf(agency.org.id)).toEqual([]);
    const page = await resoPage(app, agency.secret.key);
    expect(page.value).toMatchObject([{ ListingKey: id, StandardStatus: 'Active' }]);
  });
});

describe('GET /v1/reso/Property: $filter, $orderby, $skip and $count over listings and Delete records', () => {
  let agency: SpanishAgency;
  let live: string[];
  let deleted: string[];
  let deletedCode: string;
  beforeAll(async () => {
    agency = await createTenant(app, SPANISH_AGENCY);
    const created: { id: string; code: string }[] = [];
    for (let i = 0; i < 6; i += 1) created.push(await createListing(app, agency));
    const [l1, l2, l3, l4, l5, l6] = created as [
      (typeof created)[0],
      (typeof created)[0],
      (typeof created)[0],
      (typeof created)[0],
      (typeof created)[0],
      (typeof created)[0],
    ];
    await deleteListing(agency.secret.key, l2.id);
    await deleteListing(agency.secret.key, l4.id);
    // A listing changed after the deletions comes after their Delete records.
    expectStatus(
      await api(app, 'PATCH', `/v1/listings/${l1.id}`, { key: agency.secret.key, body: { status: 'SOLD' } }),
      200,
    );
    live = [l3.id, l5.id, l6.id, l1.id];
    deleted = [l2.id, l4.id];
    deletedCode = l4.code;
  });
  const filtered = async (filter: string) =>
    keysOf((await resoPage(app, agency.secret.key, { $filter: filter })).value);

  it('matches exactly the Delete records with StandardStatus eq Delete, and the listings with ne', async () => {
    expect(await filtered("StandardStatus eq 'Delete'")).toEqual(deleted);
    expect(await filtered("StandardStatus has org.reso.metadata.enums.StandardStatus'Delete'")).toEqual(
      deleted,
    );
    expect(await filtered("StandardStatus ne 'Delete'")).toEqual(live);
    expect(await filtered("not (StandardStatus eq 'Delete')")).toEqual(live);
    expect(await filtered("StandardStatus in ('Closed','Delete')")).toEqual([...deleted, live[3]]);
    expect(await filtered("StandardStatus eq 'Active'")).toEqual(live.slice(0, 3));
    expect(await filtered("StandardStatus ne 'Active'")).toEqual([...deleted, live[3]]);
  });

  it("compares the fields a Delete record lacks as null (OData's null semantics)", async () => {
    expect(await filtered('ListPrice gt 0')).toEqual(live);
    expect(await filtered('not (ListPrice gt 0)')).toEqual(deleted);
    expect(await filtered('ListPrice eq null')).toEqual(deleted);
    expect(await filtered('PhotosCount eq 0')).toEqual(live);
    expect(await filtered("MlsStatus eq 'ACTIVE'")).toEqual(live.slice(0, 3));
    expect(await filtered("MlsStatus ne 'ACTIVE'")).toEqual([...deleted, live[3]]);
    expect(await filtered('MlsStatus eq null')).toEqual(deleted);
    expect(await filtered("PropertyType eq 'Residential'")).toEqual(live);
    expect(await filtered("PropertyType ne 'Residential'")).toEqual(deleted);
    expect(await filtered('PropertyType eq null')).toEqual(deleted);
    expect(await filtered('PropertySubType eq null')).toEqual(deleted);
    expect(await filtered('LeaseConsideredYN eq null')).toEqual(deleted);
    expect(await filtered('LeaseConsideredYN eq false')).toEqual(live);
    expect(await filtered("City eq 'Málaga'")).toEqual(live);
    expect(await filtered("not (City eq 'Málaga')")).toEqual(deleted);
    expect(await filtered('OriginalEntryTimestamp lt now()')).toEqual(live);
    expect(await filtered('InternetEntireListingDisplayYN eq null')).toEqual(deleted);
  });

  it('compares the fields a Delete record has: ListingKey, ListingId, ModificationTimestamp', async () => {
    expect(await filtered(`ListingKey eq '${deleted[0]}'`)).toEqual([deleted[0]]);
    expect(await filtered(`ListingId eq '${deletedCode}'`)).toEqual([deleted[1]]);
    expect(await filtered("startswith(ListingId,'R-')")).toEqual([...live.slice(0, 3), ...deleted, live[3]]);
    expect(await filtered('date(ModificationTimestamp) ge 2000-01-01')).toHaveLength(6);
    expect(await filtered('ModificationTimestamp lt now()')).toHaveLength(6);
  });

  it('pages both with $top, $skip and every $orderby without repeat or miss, and counts both', async () => {
    const everything = [...live.slice(0, 3), ...deleted, live[3]];
    const key = agency.secret.key;
    const asc = await walk(app, key, await resoPage(app, key, { $top: '2', $count: 'true' }));
    expect(keysOf(asc)).toEqual(everything);
    const desc = await walk(
      app,
      key,
      await resoPage(app, key, { $top: '2', $orderby: 'ModificationTimestamp desc' }),
    );
    expect(keysOf(desc)).toEqual([...everything].reverse());

    const byKey = (await resoPage(app, key, { $orderby: 'ListingKey asc' })).value;
    expect(new Set(keysOf(byKey))).toEqual(new Set(everything));
    expect(
      keysOf(await walk(app, key, await resoPage(app, key, { $top: '4', $orderby: 'ListingKey asc' }))),
    ).toEqual(keysOf(byKey));
    const byKeyDesc = await walk(
      app,
      key,
      await resoPage(app, key, { $top: '3', $orderby: 'ListingKey desc' }),
    );
    expect(keysOf(byKeyDesc)).toEqual(keysOf(byKey).reverse());

    const skipped = await resoPage(app, key, { $top: '2', $skip: '2', $count: 'true' });
    expect(keysOf(skipped.value)).toEqual(everything.slice(2, 4));
    expect(skipped['@odata.count']).toBe(6);
    expect(pathOf(skipped['@odata.nextLink'] as string)).toContain('$skiptoken=');
    expect(keysOf(await walk(app, key, skipped))).toEqual(everything.slice(2));
    const past = await resoPage(app, key, { $skip: '6', $count: 'true' });
    expect(past).toMatchObject({ '@odata.count': 6, value: [] });

    const counted = await resoPage(app, key, {
      $top: '0',
      $count: 'true',
      $filter: "StandardStatus eq 'Delete'",
    });
    expect(counted['@odata.count']).toBe(2);
    const walked = await resoPage(app, key, { $top: '5', $count: 'true' });
    expect(walked['@odata.count']).toBe(6);
    const next = expectStatus(
      await api(app, 'GET', pathOf(walked['@odata.nextLink'] as string), { key }),
      200,
    );
    expect(next['@odata.count']).toBe(6);
    expect(keysOf(next.value)).toEqual([live[3]]);
  });
});

describe('GET /v1/reso/$metadata: the fields a Delete record lacks', () => {
  it('says Nullable="false" only of the fields every record has', async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const response = await api(app, 'GET', '/v1/reso/$metadata', { key: agency.secret.key });
    expect(response.statusCode, response.body).toBe(200);
    const property = response.body.slice(
      response.body.indexOf('<EntityType Name="Property"'),
      response.body.indexOf('<EntityType Name="Media"'),
    );
    const notNullable = [...property.matchAll(/<Property Name="(\w+)"[^>]*Nullable="false"/g)].map(
      (m) => m[1],
    );
    expect(notNullable).toEqual(['ListingKey', 'ListingId', 'StandardStatus', 'ModificationTimestamp']);
  });
});

describe('Delete records and tenancy', () => {
  it("never shows another organization's Delete records, in the walk, by key or in the table", async () => {
    const [one, other] = [await createTenant(app, SPANISH_AGENCY), await createTenant(app, SPANISH_AGENCY)];
    const gone = await createListing(app, one);
    await createListing(app, other);
    await deleteListing(one.secret.key, gone.id);
    expect(statusesOf((await resoPage(app, one.secret.key)).value)).toEqual(['Delete']);
    expect(statusesOf((await resoPage(app, other.secret.key)).value)).toEqual(['Active']);
    expect(
      await resoPage(app, other.secret.key, { $filter: "StandardStatus eq 'Delete'", $count: 'true' }),
    ).toMatchObject({
      '@odata.count': 0,
      value: [],
    });
    const byKey = await api(app, 'GET', `/v1/reso/Property('${gone.id}')`, { key: other.secret.key });
    expect(byKey.statusCode, byKey.body).toBe(404);
    // Row-level security: the other tenant's transaction sees none of them.
    const db = await testDatabase();
    const seen = await db.tenantTx(other.org.id, (tx) =>
      queryRows<{ property_id: string }>(tx, sql`SELECT property_id FROM reso_deletions`),
    );
    expect(seen).toEqual([]);
    expect(await deletionsOf(one.org.id)).toEqual([{ property_id: gone.id }]);
  });

  it('leaves none when the organization itself is deleted, its twin included, and the deletion succeeds', async () => {
    const agency = await createTenant(app, SPANISH_AGENCY);
    const twinId = agency.org.testOrganizationId as string;
    const testKey = await createApiKey(app, agency.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: [...SCOPES],
      accessLevel: 3,
      ...FAST,
    });
    const twin = { ...agency, secret: testKey };
    const neighbour = await createTenant(app, SPANISH_AGENCY);
    for (const tenant of [agency, twin, neighbour]) {
      const gone = await createListing(app, tenant);
      await createListing(app, tenant);
      await deleteListing(tenant.secret.key, gone.id);
    }
    expect(await deletionsOf(agency.org.id)).toHaveLength(1);
    expect(await deletionsOf(twinId)).toHaveLength(1);

    await deleteOrganization(await testDatabase(), agency.org.id);
    expect(await deletionsOf(agency.org.id)).toEqual([]);
    expect(await deletionsOf(twinId)).toEqual([]);
    expect(await deletionsOf(neighbour.org.id)).toHaveLength(1);
  });
});
