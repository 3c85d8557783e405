import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/test-app.ts';

let app: FastifyInstance;
let doc: {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      { operationId?: string; security?: unknown[]; responses: Record<string, unknown>; summary?: string }
    >
  >;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

beforeAll(async () => {
  app = await buildTestApp();
  const response = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  expect(response.statusCode).toBe(200);
  doc = response.json();
});
afterAll(async () => {
  await app.close();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );

describe('GET /v1/openapi.json', () => {
  it('is OpenAPI 3.1 with the X-API-Key and admin bearer security schemes, served without a key', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.ApiKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    );
    expect(doc.components.securitySchemes.AdminToken).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
  });

  it('describes every registered route with an operationId, a summary and responses', () => {
    const documented = new Set(operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`));
    const registered = app.routeTable.filter((route) => !route.hidden);
    expect(registered.length).toBeGreaterThan(10);
    for (const route of registered) {
      const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      expect(documented.has(`${route.method} ${path}`), `${route.method} ${path}`).toBe(true);
    }
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, operation } of operations()) {
      expect(operation.operationId, path).toMatch(/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/);
      expect(operation.summary, path).toBeTruthy();
    }
  });

  it('lists the error responses each route can give, as the named ErrorResponse schema', () => {
    const me = doc.paths['/v1/me']?.get;
    expect(Object.keys(me?.responses ?? {}).sort()).toEqual(['200', '400', '401', '403', '429', '500']);
    expect(JSON.stringify(me?.responses['401'])).toContain('#/components/schemas/ErrorResponse');
    expect(me?.security).toEqual([{ ApiKey: [] }]);
    const create = doc.paths['/admin/v1/organizations/{orgId}/api-keys']?.post;
    expect(Object.keys(create?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '401', '404', '413', '415', '500']),
    );
    expect(create?.security).toEqual([{ AdminToken: [] }]);
    expect(doc.paths['/healthz']?.get?.security).toEqual([]);
  });

  it('names its component schemas (no def-N)', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).toEqual(
      expect.arrayContaining([
        'ErrorResponse',
        'PageMeta',
        'Me',
        'EventType',
        'AdminOrganization',
        'AdminApiKey',
      ]),
    );
    expect(names.filter((name) => /^def-\d+$/.test(name))).toEqual([]);
  });

  it('serves the reference page at /docs', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
  });
});
