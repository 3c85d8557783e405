import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/events (the event catalog)', () => {
  it('serves every event type with description, example and schema', async () => {
    const body = expectStatus(await api(app, 'GET', '/v1/events', { key: tenant.secret.key }), 200);
    const created = body.data.find((entry: { type: string }) => entry.type === 'api_key.created');
    expect(created).toMatchObject({ type: 'api_key.created', description: expect.any(String) });
    expect(created.example.apiKey.id).toMatch(/^key_/);
    expect(created.schema.properties.apiKey.type).toBe('object');
    expect(body.meta).toEqual({ total: eventCatalog.list().length, page: 1, pageSize: 100, totalPages: 1 });
  });

  it('pages the catalog and refuses a page size over 100', async () => {
    const page = expectStatus(
      await api(app, 'GET', '/v1/events', { key: tenant.secret.key, query: { pageSize: '1', page: '2' } }),
      200,
    );
    expect(page.data).toHaveLength(1);
    expect(page.meta).toMatchObject({ page: 2, pageSize: 1 });
    const past = expectStatus(
      await api(app, 'GET', '/v1/events', { key: tenant.secret.key, query: { page: '99' } }),
      200,
    );
    expect(past.data).toEqual([]);
    expect(past.meta.total).toBe(eventCatalog.list().length);
    const error = expectError(
      await api(app, 'GET', '/v1/events', { key: tenant.secret.key, query: { pageSize: '101' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toBe('query.pageSize must be <= 100');
    expectError(
      await api(app, 'GET', '/v1/events', { key: tenant.secret.key, query: { page: '0' } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('needs events:read', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['deals:read'] });
    expectError(await api(app, 'GET', '/v1/events', { key: key.key }), 403, 'FORBIDDEN');
    expectStatus(await api(app, 'GET', '/v1/events', { key: tenant.readOnly.key }), 200);
  });
});
