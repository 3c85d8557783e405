import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_STATUS } from '../../src/platform/errors/errors.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../helpers/http.ts';
import { PROBE_FEATURES } from '../helpers/probe.ts';
import { ADMIN_TOKEN, buildTestApp, testDatabase } from '../helpers/test-app.ts';

let app: FastifyInstance;

/** POST a raw body (not JSON-encoded by the helper) to an admin route. */
const postRaw = (payload: string, contentType = 'application/json') =>
  app.inject({
    method: 'POST',
    url: '/admin/v1/organizations',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType },
    payload,
  });
let tenant: Tenant;
const logLines: string[] = [];

beforeAll(async () => {
  const db = await testDatabase();
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  app = await buildTestApp({ LOG_LEVEL: 'info' }, { db, features: PROBE_FEATURES, logStream });
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

describe('validation (400 VALIDATION_ERROR)', () => {
  it('reports every failing field at once, by name', async () => {
    const response = await admin(app, 'POST', '/admin/v1/organizations', { name: '', plan: 'GOLD' });
    const error = expectError(response, 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { field: 'body.name', message: 'must NOT have fewer than 1 characters' },
        { field: 'body.plan', message: 'must be one of FREE, STARTER, PROFESSIONAL, BUSINESS, ENTERPRISE' },
      ]),
    );
    expect(error.message).toMatch(/body\.name must NOT have fewer than 1 characters/);
    expect(error.message).toMatch(/body\.plan must be one of/);
  });

  it('rejects unknown properties instead of silently dropping them', async () => {
    const response = await admin(app, 'POST', '/admin/v1/organizations', {
      name: 'X',
      plan: 'FREE',
      color: 'red',
    });
    const error = expectError(response, 400, 'VALIDATION_ERROR');
    expect(error.details).toContainEqual({ field: 'body.color', message: 'is not allowed' });
  });

  it('names a missing required field', async () => {
    const error = expectError(
      await admin(app, 'POST', '/admin/v1/organizations', { name: 'X' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details).toContainEqual({ field: 'body.plan', message: 'is required' });
  });

  it('names a bad query parameter', async () => {
    const response = await api(app, 'GET', '/v1/events', {
      key: tenant.secret.key,
      query: { pageSize: 'ten' },
    });
    const error = expectError(response, 400, 'VALIDATION_ERROR');
    expect(error.message).toBe('query.pageSize must be integer');
  });

  it('answers malformed JSON with a 400', async () => {
    const response = await postRaw('{"name": "X",', 'application/json');
    const error = expectError(response, 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/not valid JSON/);
  });

  it('answers an empty JSON body with a 400', async () => {
    const response = await postRaw('', 'application/json');
    expectError(response, 400, 'VALIDATION_ERROR');
  });

  it('refuses prototype pollution keys', async () => {
    const response = await postRaw(
      '{"name":"X","plan":"FREE","__proto__":{"admin":true}}',
      'application/json',
    );
    expectError(response, 400, 'VALIDATION_ERROR');
  });

  it.each([
    ['body value', { name: 'Bad\u0000Name', plan: 'FREE' }, 'body.name'],
    ['body key', { name: 'X', plan: 'FREE', 'a\u0000b': 1 }, 'body'],
  ])('refuses a NUL byte in a %s with a 400 naming the field', async (_what, body, field) => {
    const error = expectError(
      await admin(app, 'POST', '/admin/v1/organizations', body),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toBe(`${field} must not contain NUL (U+0000) characters`);
  });

  it('refuses a NUL byte in the query and in a path parameter', async () => {
    const query = await api(app, 'GET', '/v1/events', { key: tenant.secret.key, query: { page: '1\u0000' } });
    expectError(query, 400, 'VALIDATION_ERROR');
    const path = await admin(app, 'GET', '/admin/v1/organizations/org_%00');
    expectError(path, 400, 'VALIDATION_ERROR');
  });

  it('refuses a wrong content type with 415', async () => {
    const response = await postRaw('name=X', 'text/plain');
    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it.each([
    'text/csv',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
  ])('refuses a keyed write sent as %s with 415 in the envelope', async (contentType) => {
    const response = await api(app, 'POST', '/v1/contacts', {
      key: tenant.secret.key,
      headers: { 'content-type': contentType },
      body: 'firstName=Ana',
    });
    expect(expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE').message).toMatch(/application\/json/);
  });
});

describe('other failures', () => {
  it('answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await admin(app, 'POST', '/admin/v1/organizations', {
      name: 'x'.repeat(1024 * 1024 + 10),
      plan: 'FREE',
    });
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers an unknown route with 404 NOT_FOUND in the envelope', async () => {
    const error = expectError(await app.inject({ method: 'GET', url: '/v1/nothing-here' }), 404, 'NOT_FOUND');
    expect(error.message).toBe('Route GET /v1/nothing-here not found');
  });

  it('renders a thrown error as 500 INTERNAL_ERROR, logs the cause and never renders it', async () => {
    const response = await api(app, 'POST', '/v1/probe/notes', {
      key: tenant.secret.key,
      body: { text: 'x', fail: 'crash' },
    });
    const error = expectError(response, 500, 'INTERNAL_ERROR');
    expect(error.message).toBe('Internal server error');
    expect(response.body).not.toMatch(/SECRET_DETAIL|stack|probe\.ts/);
    const logged = logLines.find((line) => line.includes('SECRET_DETAIL'));
    expect(logged, 'the cause is logged').toBeDefined();
    expect(JSON.parse(logged as string).requestId).toBe(error.requestId);
  });

  it('rolls back the write when the handler fails after it', async () => {
    const before = await countProbeEvents(tenant.org.id);
    const response = await api(app, 'POST', '/v1/probe/notes', {
      key: tenant.secret.key,
      body: { text: 'x', fail: 'after-write' },
    });
    expectError(response, 500, 'INTERNAL_ERROR');
    expect(await countProbeEvents(tenant.org.id)).toBe(before);
  });

  it('has one status per code', () => {
    for (const code of ERROR_CODES) expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
  });
});

async function countProbeEvents(organizationId: string): Promise<number> {
  const db = await testDatabase();
  const { events } = await import('../../src/db/schema.ts');
  const { and, eq } = await import('drizzle-orm');
  const rows = await db.tenantTx(organizationId, (tx) =>
    tx
      .select()
      .from(events)
      .where(and(eq(events.organizationId, organizationId), eq(events.type, 'probe.noted'))),
  );
  return rows.length;
}

describe('logs', () => {
  it('carry the request id on every request line, in X-Request-Id, and never a key or token', async () => {
    logLines.length = 0;
    const response = await api(app, 'GET', '/v1/me', {
      key: tenant.secret.key,
      headers: { authorization: 'Bearer should-not-appear-0123' },
    });
    expect(response.statusCode, 'X-API-Key wins; the Bearer header is only logged, redacted').toBe(200);
    await admin(app, 'GET', '/admin/v1/organizations');
    const requestId = response.headers['x-request-id'];
    expect(requestId).toMatch(/^req_/);
    const lines = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const requestLines = lines.filter((line) => line.requestId === requestId);
    expect(requestLines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line.requestId, JSON.stringify(line)).toMatch(/^req_/);
    const all = logLines.join('\n');
    expect(all).not.toContain(tenant.secret.key);
    expect(all).not.toContain('should-not-appear-0123');
    expect(all).not.toContain(ADMIN_TOKEN);
    expect(all).toContain('[redacted]');
    logLines.length = 0;
    const ok = await api(app, 'GET', '/v1/me', { key: tenant.secret.key });
    expectStatus(ok, 200);
    expect(logLines.join('\n')).not.toContain(tenant.secret.key);
    // Once the key is known, the request's lines carry its organization and key.
    const completed = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.requestId === ok.headers['x-request-id'] && line.msg === 'request completed');
    expect(completed).toMatchObject({ organizationId: tenant.org.id, keyId: tenant.secret.id });
  });
});
