import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { createOrganization } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

let app: FastifyInstance;

const importUrl = (orgId: string) => `/admin/v1/organizations/${orgId}/properties/import`;

/** A valid import row; `n` makes the code unique. */
function row(n: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    code: `IMP-${n}`,
    title: `Imported flat ${n}`,
    description: 'Sunny, close to the beach.',
    transactionType: 'SALE',
    type: 'APARTMENT',
    price: 200000 + n,
    city: 'Málaga',
    neighborhood: 'Soho',
    address: `Calle Trinidad Grund ${n}`,
    zipCode: '29001',
    coordinates: { latitude: 36.71814, longitude: -4.42281 },
    bedrooms: 2,
    bathrooms: 1,
    area: 75.5,
    amenities: ['elevator', 'terrace'],
    photos: [{ url: `https://images.example.com/${n}.jpg`, caption: 'Living room' }],
    customFields: { energyRating: 'B', floor: 3 },
    ...overrides,
  };
}

async function importRows(orgId: string, rows: unknown[], extra: Record<string, unknown> = {}) {
  return expectStatus(await admin(app, 'POST', importUrl(orgId), { rows, ...extra }), 200).data;
}

async function adminList(orgId: string) {
  return expectStatus(
    await admin(app, 'GET', `/admin/v1/organizations/${orgId}/properties?pageSize=100`),
    200,
  );
}

async function eventsOf(organizationId: string) {
  const db = await testDatabase();
  return db.systemTx((tx) =>
    queryRows<{ type: string; data: { property: { code: string }; changes?: string[] } }>(
      tx,
      sql`SELECT type, data FROM events WHERE organization_id = ${organizationId}
          AND type LIKE 'property.%' ORDER BY created_at, id`,
    ),
  );
}

async function createAgent(orgId: string) {
  const response = await admin(app, 'POST', `/admin/v1/organizations/${orgId}/agents`, {
    firstName: 'Lucía',
    lastName: 'Navarro',
  });
  return expectStatus(response, 201).data as { id: string };
}

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('POST /admin/v1/organizations/{orgId}/properties/import: happy path', () => {
  it('creates every row with the same columns a single create computes, and one property.created each', async () => {
    const org = await createOrganization(app);
    const agent = await createAgent(org.id);
    const result = await importRows(org.id, [
      row(1, { agentId: agent.id }),
      row(2, { approximateLocation: true }),
    ]);
    expect(result).toEqual({
      received: 2,
      created: 2,
      updated: 0,
      unchanged: 0,
      failed: 0,
      dryRun: false,
      errors: [],
    });

    const list = await adminList(org.id);
    expect(list.meta.total).toBe(2);
    const first = list.data.find((p: { code: string }) => p.code === 'IMP-1');
    expect(first).toMatchObject({
      title: 'Imported flat 1',
      currency: 'USD', // the organization's default: the row has none
      status: 'ACTIVE',
      publishedOnPortal: true,
      agentId: agent.id,
      customFields: { energyRating: 'B', floor: 3 },
      photos: [{ url: 'https://images.example.com/1.jpg', caption: 'Living room' }],
    });

    // Derived columns: the portal finds it accent-insensitively and rounds the approximate one.
    const publishable = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, { type: 'publishable' }),
      201,
    ).data.key;
    const portal = expectStatus(
      await api(app, 'GET', '/v1/properties?city=malaga&sortBy=price&sortOrder=asc', { key: publishable }),
      200,
    );
    expect(portal.data.map((p: { code: string }) => p.code)).toEqual(['IMP-1', 'IMP-2']);
    expect(portal.data[1]).toMatchObject({
      address: null,
      zipCode: null,
      coordinates: { latitude: 36.72, longitude: -4.42 },
    });

    const events = await eventsOf(org.id);
    expect(events.map((e) => [e.type, e.data.property.code])).toEqual([
      ['property.created', 'IMP-1'],
      ['property.created', 'IMP-2'],
    ]);
  });

  it('is idempotent: the same rows again change nothing and record no event', async () => {
    const org = await createOrganization(app);
    const rows = [row(1), row(2), row(3)];
    await importRows(org.id, rows);
    const before = await adminList(org.id);

    const again = await importRows(org.id, rows);
    expect(again).toMatchObject({ received: 3, created: 0, updated: 0, unchanged: 3, failed: 0 });
    const after = await adminList(org.id);
    expect(after.data).toEqual(before.data); // same ids, same updatedAt
    expect((await eventsOf(org.id)).length).toBe(3);
  });

  it('replaces a changed row by code (absent fields back to defaults) and names the changed fields', async () => {
    const org = await createOrganization(app);
    await importRows(org.id, [row(1, { featured: true }), row(2)]);
    const original = (await adminList(org.id)).data.find((p: { code: string }) => p.code === 'IMP-1');

    const changed = row(1, { price: 185000, coordinates: { latitude: 36.7, longitude: -4.4 } });
    const result = await importRows(org.id, [changed, row(2)]);
    expect(result).toMatchObject({ created: 0, updated: 1, unchanged: 1, failed: 0 });

    const updated = (await adminList(org.id)).data.find((p: { code: string }) => p.code === 'IMP-1');
    expect(updated.id).toBe(original.id);
    expect(updated).toMatchObject({
      price: 185000,
      featured: false,
      coordinates: { latitude: 36.7, longitude: -4.4 },
    });
    expect(updated.createdAt).toBe(original.createdAt);
    expect(updated.updatedAt > original.updatedAt).toBe(true);

    // property.updated names the fields; the new price also records property.price_changed after it.
    const [updatedEvent, priceEvent] = (await eventsOf(org.id)).slice(-2);
    expect(updatedEvent).toMatchObject({
      type: 'property.updated',
      data: { property: { code: 'IMP-1' }, changes: ['coordinates', 'featured', 'price'] },
    });
    expect(priceEvent).toMatchObject({
      type: 'property.price_changed',
      data: { property: { code: 'IMP-1' }, price: 185000 },
    });
  });

  it('dryRun counts what would change and writes nothing', async () => {
    const org = await createOrganization(app);
    await importRows(org.id, [row(1)]);
    const result = await importRows(org.id, [row(1, { price: 1 }), row(2), row(3, { price: -5 })], {
      dryRun: true,
    });
    expect(result).toMatchObject({ dryRun: true, created: 1, updated: 1, unchanged: 0, failed: 1 });
    const list = await adminList(org.id);
    expect(list.meta.total).toBe(1);
    expect(list.data[0].price).toBe(200001);
  });

  it('accepts a test twin id and imports into the twin only', async () => {
    const org = await createOrganization(app);
    const twin = org.testOrganizationId as string;
    expect(await importRows(twin, [row(1)])).toMatchObject({ created: 1 });
    expect((await adminList(twin)).meta.total).toBe(1);
    expect((await adminList(org.id)).meta.total).toBe(0);
  });
});

describe('properties import: errors', () => {
  it('reports every bad row with its index, code and field, and imports the good ones', async () => {
    const org = await createOrganization(app);
    const result = await importRows(org.id, [
      row(1),
      row(2, { price: 'cheap', bogus: true }),
      { code: 'IMP-3', title: 'No city' },
      row(4, { transactionType: 'BUY' }),
      row(5, { coordinates: { latitude: 123, longitude: 0 } }),
      row(6, { photos: [{ url: 'ftp://files.example.com/a.jpg' }] }),
      row(7, { neighborhood: 42 }),
      'not an object',
      row(9),
      row(1, { title: 'Same code again' }),
    ]);
    expect(result).toMatchObject({ received: 10, created: 2, updated: 0, unchanged: 0, failed: 8 });
    const byIndex = (index: number) =>
      result.errors
        .filter((e: { index: number }) => e.index === index)
        .map((e: { field: string; message: string }) => `${e.field}: ${e.message}`);
    expect(byIndex(1)).toEqual(expect.arrayContaining(['price: must be number', 'bogus: is not allowed']));
    expect(result.errors.find((e: { index: number }) => e.index === 1).code).toBe('IMP-2');
    expect(byIndex(2)).toEqual(
      expect.arrayContaining([
        'transactionType: is required',
        'type: is required',
        'price: is required',
        'city: is required',
      ]),
    );
    expect(byIndex(3)).toEqual(['transactionType: must be one of SALE, RENT, SALE_OR_RENT']);
    expect(byIndex(4)).toEqual(['coordinates.latitude: must be <= 90']);
    expect(byIndex(5)).toEqual(['photos[0].url: must be an http(s) URL']);
    expect(byIndex(6)).toEqual(['neighborhood: must be string or null']);
    expect(byIndex(7)).toEqual([': must be an object']);
    expect(result.errors.find((e: { index: number }) => e.index === 7).code).toBeNull();
    expect(byIndex(9)).toEqual(['code: repeats the code of row 0 of this batch']);

    const codes = (await adminList(org.id)).data.map((p: { code: string }) => p.code).sort();
    expect(codes).toEqual(['IMP-1', 'IMP-9']);
  });

  it('refuses an unknown or malformed agentId for that row only', async () => {
    const org = await createOrganization(app);
    const result = await importRows(org.id, [
      row(1, { agentId: 'agt_0000000000000000000000' }),
      row(2, { agentId: 'nonsense' }),
      row(3, { agentId: null }),
    ]);
    expect(result).toMatchObject({ created: 1, failed: 2 });
    expect(result.errors).toEqual([
      { index: 0, code: 'IMP-1', field: 'agentId', message: 'does not name an agent of this organization' },
      { index: 1, code: 'IMP-2', field: 'agentId', message: 'does not name an agent of this organization' },
    ]);
  });

  it('answers 400 naming body.rows for an empty batch, more than 1000 rows, or rows that are not an array', async () => {
    const org = await createOrganization(app);
    const cases: unknown[] = [
      { rows: [] },
      { rows: Array.from({ length: 1001 }, (_, i) => ({ code: `X${i}` })) },
      { rows: {} },
      {},
    ];
    for (const body of cases) {
      const error = expectError(await admin(app, 'POST', importUrl(org.id), body), 400, 'VALIDATION_ERROR');
      expect(error.message).toContain('body.rows');
    }
    const extra = expectError(
      await admin(app, 'POST', importUrl(org.id), { rows: [row(1)], mode: 'merge' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(extra.details).toEqual([{ field: 'body.mode', message: 'is not allowed' }]);
    expect((await adminList(org.id)).meta.total).toBe(0);
  });

  it('answers 404 for an unknown or malformed organization id', async () => {
    expectError(
      await admin(app, 'POST', importUrl('org_0000000000000000000000'), { rows: [row(1)] }),
      404,
      'NOT_FOUND',
    );
    expectError(await admin(app, 'POST', importUrl('nonsense'), { rows: [row(1)] }), 404, 'NOT_FOUND');
  });

  it('needs the admin token', async () => {
    const org = await createOrganization(app);
    const response = await app.inject({
      method: 'POST',
      url: importUrl(org.id),
      payload: { rows: [row(1)] },
    });
    expect(response.statusCode, response.body).toBe(401);
  });
});

describe('properties import: security', () => {
  it("refuses another organization's agent, and never touches another organization's property of the same code", async () => {
    const mine = await createOrganization(app);
    const other = await createOrganization(app);
    const otherAgent = await createAgent(other.id);
    await importRows(other.id, [row(1, { title: 'Theirs' })]);

    const result = await importRows(mine.id, [row(1, { title: 'Mine' }), row(2, { agentId: otherAgent.id })]);
    expect(result).toMatchObject({ created: 1, updated: 0, failed: 1 });
    expect(result.errors).toEqual([
      { index: 1, code: 'IMP-2', field: 'agentId', message: 'does not name an agent of this organization' },
    ]);

    const theirs = await adminList(other.id);
    expect(theirs.data.map((p: { title: string }) => p.title)).toEqual(['Theirs']);
    expect((await adminList(mine.id)).data.map((p: { title: string }) => p.title)).toEqual(['Mine']);
  });
});
