// The portal's GET /v1/properties in cursor mode (incremental sync, docs/decisions/0190-0194).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCursorMode, walkCursor, type CursorModeCase } from '../../helpers/cursor.ts';
import { createApiKey, createProperty, createTenant } from '../../helpers/factories.ts';
import { admin, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let fixtures: CursorModeCase;
let propertiesPath: string;
const FAST = { type: 'publishable', rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };

beforeAll(async () => {
  app = await buildTestApp();
  const [tenant, other] = [await createTenant(app), await createTenant(app)];
  propertiesPath = `/admin/v1/organizations/${tenant.org.id}/properties`;
  const ids: string[] = [];
  for (const bedrooms of [2, 4, 1, 5]) ids.push((await createProperty(app, tenant.org.id, { bedrooms })).id);
  await createProperty(app, tenant.org.id, { publishedOnPortal: false });
  await createProperty(app, other.org.id);
  fixtures = {
    app,
    path: '/v1/properties',
    key: (await createApiKey(app, tenant.org.id, FAST)).key,
    otherKey: (await createApiKey(app, other.org.id, FAST)).key,
    ids,
    filter: { bedroomsMin: '3' },
    filtered: [ids[1]!, ids[3]!],
    change: async (id) => {
      expectStatus(await admin(app, 'PATCH', `${propertiesPath}/${id}`, { price: 260000 }), 200);
    },
    otherSort: 'price',
  };
});
afterAll(async () => {
  await app.close();
});

describeCursorMode('GET /v1/properties (portal)', 'published property', () => fixtures);

describe('GET /v1/properties (portal) in cursor mode: what the portal shows', () => {
  it('lists only what the portal shows: an unpublished property drops out of the walk', async () => {
    const [hidden, ...shown] = fixtures.ids;
    expectStatus(await admin(app, 'PATCH', `${propertiesPath}/${hidden}`, { publishedOnPortal: false }), 200);
    const { items } = await walkCursor(app, '/v1/properties', fixtures.key, { updatedAfter: '2000-01-01' });
    expect(items.map((item) => item.id)).toEqual(shown);
    expect(items.every((item) => typeof item.updatedAt === 'string')).toBe(true);
  });
});
