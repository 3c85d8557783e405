/** A deprecated route (config.deprecated): RFC 9745 Deprecation and RFC 8594 Sunset on every answer, `deprecated` in the document. */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { api, expectError, expectStatus } from '../helpers/http.ts';
import { buildProbeApp } from '../helpers/probe-app.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildProbeApp();
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

it('answers with Deprecation, Sunset and a Link to the replacement, on success and failure alike', async () => {
  const ok = await api(app, 'GET', '/v1/probe/legacy', { key: tenant.secret.key });
  expectStatus(ok, 200);
  expect(ok.headers.deprecation).toBe(`@${Date.parse('2026-11-01T00:00:00Z') / 1000}`);
  expect(ok.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
  expect(ok.headers.link).toBe('<https://docs.example.com/migrate>; rel="deprecation"; type="text/html"');
  const refused = await api(app, 'GET', '/v1/probe/legacy', { key: 'service_sk_live_nope' });
  expectError(refused, 401, 'UNAUTHORIZED');
  expect(refused.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
  // Routes that are not deprecated carry none of it.
  const current = await api(app, 'GET', '/v1/me', { key: tenant.secret.key });
  expect(current.headers.deprecation).toBeUndefined();
  expect(current.headers.sunset).toBeUndefined();
});

it('marks the operation deprecated in the document and declares the headers on its answers', async () => {
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  const operation = doc.paths['/v1/probe/legacy'].get;
  expect(operation.deprecated).toBe(true);
  expect(Object.keys(operation.responses['200'].headers)).toEqual(
    expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
  );
  expect(doc.paths['/v1/me'].get.deprecated).toBeUndefined();
});
