/**
 * The OData protocol of the RESO routes: the key as a bearer token through the one auth path, version
 * and content negotiation, OData-Version on every answer, and failures in OData's error format (with
 * the service's requestId).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createListing } from './support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  await createListing(app, agency);
});

afterAll(async () => {
  await app.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers: { 'x-api-key': agency.secret.key, ...headers } });
const bearer = (url: string, key: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}`, ...headers } });

/** An OData error: status, code, target, details as {code, target, message}, requestId as X-Request-Id. */
function odataError(
  response: Awaited<ReturnType<typeof get>>,
  status: number,
  code: string,
  target?: string,
) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['odata-version']).toBe('4.0');
  const { error } = response.json();
  expect(error, response.body).toMatchObject({ code, message: expect.any(String) });
  expect(Array.isArray(error.details), response.body).toBe(true);
  expect(error.requestId).toBe(response.headers['x-request-id']);
  if (target !== undefined) {
    expect(error.target, response.body).toBe(target);
    expect(error.details[0]).toEqual({ code, target, message: expect.any(String) });
  }
  return error as { message: string };
}

describe('the key as a bearer token', () => {
  it('takes a secret key as Authorization: Bearer, with the same checks as X-API-Key', async () => {
    const ok = await bearer('/v1/reso/Property?$top=1', agency.secret.key);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.headers['x-ratelimit-limit']).toBeDefined();
    expect((await bearer('/v1/reso/$metadata', agency.readOnly.key)).statusCode).toBe(200);
    const wrong = await bearer('/v1/reso/Property', 'service_sk_live_notarealkey');
    odataError(wrong, 401, 'UNAUTHORIZED');
    expect(wrong.headers['www-authenticate']).toMatch(/^ApiKey .*name="X-API-Key", Bearer realm=/);
    odataError(await bearer('/v1/reso/Property', agency.publishable.key), 403, 'FORBIDDEN');
    const unscoped = await createApiKey(app, agency.org.id, { type: 'secret', scopes: ['contacts:read'] });
    const refused = odataError(await bearer('/v1/reso/Property', unscoped.key), 403, 'FORBIDDEN');
    expect(refused.message).toContain('listings:read');
    // X-API-Key first when both come.
    const both = await bearer('/v1/reso', 'garbage', { 'x-api-key': agency.secret.key });
    expect(both.statusCode, both.body).toBe(200);
    // Elsewhere in /v1 a bearer token is still refused, as before.
    const elsewhere = await bearer('/v1/listings', agency.secret.key);
    expect(elsewhere.statusCode).toBe(401);
    const none = await app.inject({ method: 'GET', url: '/v1/reso/Property' });
    expect(odataError(none, 401, 'UNAUTHORIZED').message).toContain('Authorization: Bearer');
  });
});

describe('versions and formats', () => {
  it('answers OData-Version 4.0, reads 4.0 and 4.01 requests, refuses others and a lower MaxVersion', async () => {
    const cases: Record<string, string>[] = [
      {},
      { 'odata-version': '4.0' },
      { 'odata-version': '4.01' },
      { 'odata-maxversion': '4.01' },
    ];
    for (const headers of cases) {
      const response = await get('/v1/reso/Property?$top=1', headers);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['odata-version']).toBe('4.0');
    }
    odataError(
      await get('/v1/reso/Property', { 'odata-version': '5.0' }),
      400,
      'VALIDATION_ERROR',
      'OData-Version',
    );
    odataError(await get('/v1/reso', { 'odata-version': '3.0' }), 400, 'VALIDATION_ERROR', 'OData-Version');
    odataError(
      await get('/v1/reso/Property', { 'odata-maxversion': '3.0' }),
      400,
      'VALIDATION_ERROR',
      'OData-MaxVersion',
    );
  });

  it('gives XML metadata and JSON records, and a 406 to what accepts neither', async () => {
    const xml = await get('/v1/reso/$metadata', { accept: 'application/xml' });
    expect(xml.statusCode).toBe(200);
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    expect((await get('/v1/reso/$metadata?$format=xml')).statusCode).toBe(200);
    odataError(await get('/v1/reso/$metadata', { accept: 'application/json' }), 406, 'NOT_ACCEPTABLE');
    odataError(await get('/v1/reso/$metadata?$format=json'), 406, 'NOT_ACCEPTABLE');
    odataError(await get('/v1/reso/Property', { accept: 'application/xml' }), 406, 'NOT_ACCEPTABLE');
    odataError(await get('/v1/reso/Property?$format=xml'), 406, 'NOT_ACCEPTABLE');
    const json = await get('/v1/reso/Property?$format=json', {
      accept: 'application/json;odata.metadata=minimal',
    });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
  });
});

describe('paths that are no resource of the service', () => {
  it('answers an OData 404 once the key is admitted, and the OData 401 before', async () => {
    for (const path of [
      '/v1/reso/Member',
      '/v1/reso/OpenHouse?$top=1',
      "/v1/reso/Property('prop_0000000000000000000000')/Rooms",
      '/v1/reso/Property/extra',
    ]) {
      const error = odataError(await get(path), 404, 'NOT_FOUND');
      expect(error.message).toContain(path.split('?')[0]?.split('/').at(-1));
      odataError(await bearer(path, agency.readOnly.key), 404, 'NOT_FOUND');
      const anonymous = await app.inject({ method: 'GET', url: path });
      odataError(anonymous, 401, 'UNAUTHORIZED');
      expect(anonymous.headers['www-authenticate']).toMatch(/Bearer realm=/);
      odataError(await get(path, { 'x-api-key': agency.publishable.key }), 403, 'FORBIDDEN');
    }
  });

  it('leaves other methods to the service: a 405 on a RESO route, a 404 elsewhere', async () => {
    const known = await app.inject({ method: 'DELETE', url: '/v1/reso/Property' });
    expect(known.statusCode, known.body).toBe(405);
    expect(known.headers.allow).toBe('GET, HEAD');
    const unknown = await app.inject({ method: 'DELETE', url: '/v1/reso/Member' });
    expect(unknown.statusCode, unknown.body).toBe(404);
  });
});
