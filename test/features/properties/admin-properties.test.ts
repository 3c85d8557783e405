import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProperty, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { queryRows } from '../../../src/db/database.ts';
import { sql } from 'drizzle-orm';

let app: FastifyInstance;
let tenant: Tenant;
const base = () => `/admin/v1/organizations/${tenant.org.id}/properties`;

async function eventsOf(organizationId: string, type: string) {
  const db = await testDatabase();
  return db.systemTx((tx) =>
    queryRows<{ data: Record<string, unknown> }>(
      tx,
      sql`SELECT data FROM events WHERE organization_id = ${organizationId} AND type = ${type} ORDER BY created_at, id`,
    ),
  );
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

describe('admin property CRUD', () => {
  it('creates with defaults (ACTIVE, published, organization currency) and records property.created', async () => {
    const created = expectStatus(
      await admin(app, 'POST', base(), {
        code: 'CRUD-1',
        title: '  Quiet flat  ',
        transactionType: 'RENT',
        type: 'STUDIO',
        price: 900,
        city: 'Valencia',
      }),
      201,
    ).data;
    expect(created).toMatchObject({
      code: 'CRUD-1',
      title: 'Quiet flat',
      status: 'ACTIVE',
      publishedOnPortal: true,
      featured: false,
      currency: 'USD',
      description: '',
      bedrooms: 0,
      amenities: [],
      photos: [],
      coordinates: null,
      agent: null,
      agentId: null,
      internalNotes: null,
      customFields: {},
    });
    expect(created.id).toMatch(/^prop_/);
    const events = await eventsOf(tenant.org.id, 'property.created');
    expect(events.map((e) => (e.data.property as { code: string }).code)).toContain('CRUD-1');
  });

  it('updates some fields, keeps the rest, recomputes the portal view and records property.updated', async () => {
    const property = await createProperty(app, tenant.org.id, { code: 'CRUD-2' });
    const updated = expectStatus(
      await admin(app, 'PATCH', `${base()}/${property.id}`, {
        price: 199000,
        city: 'Córdoba',
        approximateLocation: true,
        neighborhood: null,
      }),
      200,
    ).data;
    expect(updated).toMatchObject({
      price: 199000,
      city: 'Córdoba',
      neighborhood: null,
      title: property.title,
    });
    expect(updated.coordinates).toEqual({ latitude: 36.72016, longitude: -4.42034 });
    const portal = expectStatus(
      await api(app, 'GET', `/v1/properties/${property.id}`, { key: tenant.publishable.key }),
      200,
    ).data;
    expect(portal.coordinates).toEqual({ latitude: 36.72, longitude: -4.42 });
    expect(portal.address).toBeNull();
    const found = expectStatus(
      await api(app, 'GET', '/v1/properties?city=cordoba', { key: tenant.publishable.key }),
      200,
    );
    expect(found.data.map((p: { id: string }) => p.id)).toEqual([property.id]);
    const [event] = (await eventsOf(tenant.org.id, 'property.updated')).slice(-1);
    expect(event?.data.changes).toEqual(['approximateLocation', 'city', 'neighborhood', 'price']);
  });

  it('keeps a 0 and a null as sent (no type coercion of JSON bodies)', async () => {
    const property = await createProperty(app, tenant.org.id, { code: 'CRUD-0', area: 0, bedrooms: 0 });
    expect(property.area).toBe(0);
    const cleared = expectStatus(
      await admin(app, 'PATCH', `${base()}/${property.id}`, { area: null }),
      200,
    ).data;
    expect(cleared.area).toBeNull();
    expectError(
      await admin(app, 'PATCH', `${base()}/${property.id}`, { price: '100' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await admin(app, 'PATCH', `${base()}/${property.id}`, { agentId: 5 }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('unpublishing hides the property from the portal at once', async () => {
    const property = await createProperty(app, tenant.org.id, { code: 'CRUD-3' });
    expectStatus(await admin(app, 'PATCH', `${base()}/${property.id}`, { publishedOnPortal: false }), 200);
    expectError(
      await api(app, 'GET', `/v1/properties/${property.id}`, { key: tenant.publishable.key }),
      404,
      'NOT_FOUND',
    );
  });

  it('deletes and records property.deleted; a second delete is 404', async () => {
    const property = await createProperty(app, tenant.org.id, { code: 'CRUD-4' });
    expect(expectStatus(await admin(app, 'DELETE', `${base()}/${property.id}`), 200).data).toEqual({
      id: property.id,
      deleted: true,
    });
    expectError(await admin(app, 'DELETE', `${base()}/${property.id}`), 404, 'NOT_FOUND');
    expectError(await admin(app, 'GET', `${base()}/${property.id}`), 404, 'NOT_FOUND');
    const events = await eventsOf(tenant.org.id, 'property.deleted');
    expect(events.map((e) => (e.data.property as { id: string }).id)).toContain(property.id);
  });

  it('filters the back-office list by code and text', async () => {
    await createProperty(app, tenant.org.id, { code: 'FIND-ME', title: 'Ático con vistas' });
    const byCode = expectStatus(await admin(app, 'GET', `${base()}?code=FIND-ME`), 200);
    expect(byCode.data.map((p: { code: string }) => p.code)).toEqual(['FIND-ME']);
    const byText = expectStatus(await admin(app, 'GET', `${base()}?q=atico%20vistas`), 200);
    expect(byText.data.map((p: { code: string }) => p.code)).toEqual(['FIND-ME']);
  });
});

describe('admin property errors', () => {
  it('refuses a taken code with 409 DUPLICATE naming the existing property, on create and on update', async () => {
    const first = await createProperty(app, tenant.org.id, { code: 'DUP-1' });
    const error = expectError(
      await admin(app, 'POST', base(), {
        code: 'DUP-1',
        title: 'x',
        transactionType: 'SALE',
        type: 'HOUSE',
        price: 1,
        city: 'x',
      }),
      409,
      'DUPLICATE',
    );
    expect(error).toMatchObject({ existingId: first.id });
    const second = await createProperty(app, tenant.org.id, { code: 'DUP-2' });
    expectError(await admin(app, 'PATCH', `${base()}/${second.id}`, { code: 'DUP-1' }), 409, 'DUPLICATE');
  });

  it('lets two agencies use the same code', async () => {
    const other = await createTenant(app);
    await createProperty(app, tenant.org.id, { code: 'SHARED' });
    await createProperty(app, other.org.id, { code: 'SHARED' });
  });

  it.each([
    [{ code: '' }, 'code'],
    [{ code: 'has space' }, 'code'],
    [{ title: undefined }, 'title'],
    [{ transactionType: 'LEASE' }, 'transactionType'],
    [{ type: 'CASTLE' }, 'type'],
    [{ status: 'GONE' }, 'status'],
    [{ price: -1 }, 'price'],
    [{ currency: 'eur' }, 'currency'],
    [{ coordinates: { latitude: 91, longitude: 0 } }, 'latitude'],
    [{ bedrooms: 1.5 }, 'bedrooms'],
    [{ amenities: ['pool', 'pool'] }, 'amenities'],
    [{ amenities: ['jacuzzi'] }, 'amenities'],
    [{ photos: [{ url: 'ftp://x.example/p.jpg' }] }, 'url'],
    [{ agentId: 'agt_0000000000000000000000' }, 'agentId'],
    [{ unknownField: 1 }, 'unknownField'],
  ])('%j -> 400 naming %s', async (overrides, field) => {
    const body = {
      code: 'BAD-1',
      title: 'x',
      transactionType: 'SALE',
      type: 'HOUSE',
      price: 1,
      city: 'x',
      ...overrides,
    };
    const error = expectError(await admin(app, 'POST', base(), body), 400, 'VALIDATION_ERROR');
    expect(error.message).toContain(field);
  });

  it('refuses an empty change', async () => {
    const property = await createProperty(app, tenant.org.id);
    expectError(await admin(app, 'PATCH', `${base()}/${property.id}`, {}), 400, 'VALIDATION_ERROR');
  });

  it('answers 404 for an unknown organization and for another organization’s property', async () => {
    expectError(
      await admin(app, 'GET', '/admin/v1/organizations/org_0000000000000000000000/properties'),
      404,
      'NOT_FOUND',
    );
    expectError(await admin(app, 'GET', '/admin/v1/organizations/nope/properties'), 404, 'NOT_FOUND');
    expectError(
      await admin(app, 'POST', '/admin/v1/organizations/nope/properties', {}),
      400,
      'VALIDATION_ERROR',
    );
    const other = await createTenant(app);
    const theirs = await createProperty(app, other.org.id);
    expectError(await admin(app, 'GET', `${base()}/${theirs.id}`), 404, 'NOT_FOUND');
    expectError(await admin(app, 'PATCH', `${base()}/${theirs.id}`, { price: 1 }), 404, 'NOT_FOUND');
    expectError(await admin(app, 'DELETE', `${base()}/${theirs.id}`), 404, 'NOT_FOUND');
    expect(
      expectStatus(
        await admin(app, 'GET', `/admin/v1/organizations/${other.org.id}/properties/${theirs.id}`),
        200,
      ).data.id,
    ).toBe(theirs.id);
  });

  it('needs the admin token', async () => {
    const response = await app.inject({ method: 'GET', url: base() });
    expectError(response, 401, 'UNAUTHORIZED');
  });
});
