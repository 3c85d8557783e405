import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoPortalSettings } from '../../../src/features/demo/demo.routes.ts';
import { createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;
const demoPortal: DemoPortalSettings = { publishableKey: null };

beforeAll(async () => {
  app = await buildTestApp({}, { demoPortal });
  tenant = await createTenant(app);
});

afterAll(async () => {
  await app.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers });

describe('GET /demo/ (the demo portal page)', () => {
  it('serves the page and its files with their content types, revalidated on every load', async () => {
    for (const [url, type] of [
      ['/demo/', 'text/html; charset=utf-8'],
      ['/demo/app.js', 'text/javascript; charset=utf-8'],
      ['/demo/api.js', 'text/javascript; charset=utf-8'],
      ['/demo/styles.css', 'text/css; charset=utf-8'],
      ['/demo/placeholder.svg', 'image/svg+xml'],
    ] as const) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toBe(type);
      expect(response.headers['cache-control'], url).toBe('no-cache');
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['content-security-policy'], url).toContain("script-src 'self'");
      expect(response.headers.etag, url).toBeTruthy();
    }
    expect((await get('/demo/')).body).toContain('<script type="module" src="app.js"></script>');
  });

  it('answers 304 to a revalidation with the same ETag', async () => {
    const first = await get('/demo/app.js');
    const again = await get('/demo/app.js', { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('redirects /demo to /demo/ so the relative file links resolve', async () => {
    const response = await get('/demo');
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe('/demo/');
  });

  it('serves nothing but the page files', async () => {
    for (const url of [
      '/demo/missing.js',
      '/demo/index.html.bak',
      '/demo/..%2Fpackage.json',
      '/demo/%2E%2E%2Fsrc%2Fapp.ts',
      '/demo/.eslintrc.js',
      '/demo/README.md',
    ]) {
      expectError(await get(url), 404, 'NOT_FOUND');
    }
  });

  it('gives the page the seeded publishable key, never cached, and null when nothing was seeded', async () => {
    const none = await get('/demo/config.json');
    expect(expectStatus(none, 200)).toEqual({ publishableKey: null, apiBaseUrl: '' });
    expect(none.headers['cache-control']).toBe('no-store');

    demoPortal.publishableKey = tenant.publishable.key;
    const seeded = expectStatus(await get('/demo/config.json'), 200);
    expect(seeded).toEqual({ publishableKey: tenant.publishable.key, apiBaseUrl: '' });
    demoPortal.publishableKey = null;
  });

  it('is not part of the API description', async () => {
    const document = expectStatus(await get('/v1/openapi.json'), 200);
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/demo'))).toEqual([]);
  });
});

describe('CORS for the page on another origin', () => {
  it('answers the preflight of a JSON write with an Idempotency-Key', async () => {
    const response = await app.inject({
      method: 'OPTIONS',
      url: '/v1/leads',
      headers: {
        origin: 'https://agency.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,idempotency-key,x-api-key',
      },
    });
    expect(response.statusCode, response.body).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const allowed = String(response.headers['access-control-allow-headers']).toLowerCase();
    for (const header of ['content-type', 'idempotency-key', 'x-api-key']) expect(allowed).toContain(header);
  });

  it('lets the page read Retry-After and the rate-limit headers of a 429', async () => {
    const limited = await createApiKey(app, tenant.org.id, { type: 'publishable', writeLimitPerMinute: 1 });
    const event = {
      key: limited.key,
      body: { type: 'PAGE_VIEW' },
      headers: { origin: 'https://agency.example' },
    };
    expectStatus(await api(app, 'POST', '/v1/events', event), 200);
    const refused = await api(app, 'POST', '/v1/events', event);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    const exposed = String(refused.headers['access-control-expose-headers']);
    for (const header of ['Retry-After', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']) {
      expect(exposed).toContain(header);
    }
  });

  it('lets the page read the SECRET_KEY_IN_BROWSER refusal of a secret key', async () => {
    const refused = await api(app, 'GET', '/v1/portal', {
      key: tenant.secret.key,
      headers: { origin: 'https://agency.example' },
    });
    expectError(refused, 403, 'SECRET_KEY_IN_BROWSER');
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });
});
