import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.ts';
import { api, expectStatus } from '../helpers/http.ts';
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

describe('headers in the document', () => {
  type Responses = Record<string, { headers?: Record<string, unknown> }>;
  const responsesOf = (path: string, method: string) =>
    (doc.paths[path]?.[method] as unknown as { responses: Responses }).responses;
  const declared = (path: string, method: string, status: string) =>
    Object.keys(responsesOf(path, method)[status]?.headers ?? {}).sort();

  it('declares X-Request-Id on every answer, and each header once under components.headers', () => {
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Responses)) {
        expect(Object.keys(response.headers ?? {}), `${method} ${path} ${status}`).toContain('X-Request-Id');
      }
    }
    const components = (doc.components as { headers?: Record<string, unknown> }).headers ?? {};
    expect(Object.keys(components).sort()).toEqual(
      [
        'Allow',
        'Cache-Control',
        'ETag',
        'Idempotent-Replayed',
        'Pragma',
        'RateLimit',
        'RateLimit-Policy',
        'Retry-After',
        'Vary',
        'WWW-Authenticate',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-Request-Id',
      ].sort(),
    );
  });

  it('declares the validators of the cacheable portal reads: ETag, Cache-Control, Vary, If-None-Match and 304', () => {
    const cached = [
      '/v1/properties',
      '/v1/properties/featured',
      '/v1/properties/{id}',
      '/v1/filters',
      '/v1/agents',
      '/v1/portal',
    ];
    for (const path of cached) {
      const operation = doc.paths[path]?.get as unknown as {
        parameters?: Array<{ $ref?: string }>;
        responses: Responses;
      };
      expect(
        operation.parameters?.some((p) => p.$ref === '#/components/parameters/IfNoneMatch'),
        path,
      ).toBe(true);
      for (const status of ['200', '304']) {
        expect(declared(path, 'get', status), `${path} ${status}`).toEqual(
          expect.arrayContaining(['Cache-Control', 'ETag', 'Vary', 'X-Request-Id']),
        );
      }
      expect(declared(path, 'get', '404')).not.toContain('ETag');
    }
    // Only those: a keyed read of the CRM is not cacheable.
    expect(responsesOf('/v1/contacts', 'get')['304']).toBeUndefined();
    expect(declared('/v1/contacts', 'get', '200')).not.toContain('ETag');
  });

  it('declares what a keyed write really answers with: rate limits, a replay flag, and the 401 challenge', async () => {
    const tenant = await createTenant(app);
    const idempotencyKey = `doc-check-${Date.now()}`;
    const create = () =>
      api(app, 'POST', '/v1/contacts', {
        key: tenant.secret.key,
        headers: { 'idempotency-key': idempotencyKey },
        body: { firstName: 'Header', phone: '+34600111222' },
      });
    const first = await create();
    expectStatus(first, 201);
    const replay = await create();
    expectStatus(replay, 201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const names = declared('/v1/contacts', 'post', '201');
    expect(names).toEqual(
      [
        'Idempotent-Replayed',
        'RateLimit',
        'RateLimit-Policy',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-Request-Id',
      ].sort(),
    );
    for (const name of names) expect(replay.headers[name.toLowerCase()], name).toBeDefined();

    const refused = await api(app, 'POST', '/v1/contacts', { body: { firstName: 'No key' } });
    expectStatus(refused, 401);
    expect(declared('/v1/contacts', 'post', '401')).toEqual(['WWW-Authenticate', 'X-Request-Id']);
    expect(refused.headers['www-authenticate']).toBeDefined();
    expect(declared('/mcp', 'get', '405')).toEqual(['Allow', 'X-Request-Id']);
  });

  it('declares Idempotency-Key on every POST that honours it, with the pattern the server enforces', async () => {
    const parameters = (path: string, method: string) =>
      ((doc.paths[path]?.[method] as unknown as { parameters?: { $ref?: string }[] }).parameters ?? []).map(
        (p) => p.$ref,
      );
    const reference = '#/components/parameters/IdempotencyKey';
    for (const route of app.routeTable.filter((r) => !r.hidden)) {
      const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      expect(
        parameters(path, route.method.toLowerCase()).includes(reference),
        `${route.method} ${path}`,
        // Every POST but the MCP endpoint's (JSON-RPC) and the OAuth token endpoint's (RFC 6749 clients
        // send none, and an answer holding a key is never stored): the operator's own (creating an
        // organization) included, scoped to the operator (decision 0241).
      ).toBe(route.method === 'POST' && route.url !== '/mcp' && route.url !== '/oauth/token');
    }
    const parameter = (
      doc.components as unknown as { parameters: Record<string, { schema: { pattern: string } }> }
    ).parameters.IdempotencyKey;
    const pattern = new RegExp(parameter?.schema.pattern ?? 'missing');
    const tenant = await createTenant(app);
    for (const key of ['short', 'x'.repeat(129), 'has space!', 'abc:DEF-123_4.5', 'x'.repeat(128)]) {
      const response = await api(app, 'POST', '/v1/contacts', {
        key: tenant.secret.key,
        headers: { 'idempotency-key': key },
        body: {
          firstName: 'Pattern',
          phone: `+3460${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
        },
      });
      expect(response.statusCode, `${key}: ${response.body}`).toBe(pattern.test(key) ? 201 : 400);
    }
  });
});

describe('request schemas as strict as the services', () => {
  type Node = { $ref?: string; properties?: Record<string, Node>; items?: Node; pattern?: string };
  const resolve = (node: Node): Node =>
    node.$ref
      ? resolve((doc.components.schemas as Record<string, Node>)[node.$ref.split('/').at(-1) ?? ''] ?? {})
      : node;
  const bodyOf = (path: string, method: string) =>
    resolve(
      (doc.paths[path]?.[method] as unknown as { requestBody: { content: Record<string, { schema: Node }> } })
        .requestBody.content['application/json']?.schema ?? {},
    );

  it('refuses blank names in the schema, as the services do after trimming', () => {
    expect(bodyOf('/v1/contacts', 'post').properties?.firstName?.pattern).toBe('\\S');
    expect(bodyOf('/admin/v1/organizations/{orgId}/deals', 'post').properties?.title?.pattern).toBe('\\S');
    const pipeline = bodyOf('/admin/v1/organizations/{orgId}/pipelines', 'post');
    expect(pipeline.properties?.name?.pattern).toBe('\\S');
    expect(resolve(pipeline.properties?.stages?.items ?? {}).properties?.name?.pattern).toBe('\\S');
  });
});
