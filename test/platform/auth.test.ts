import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys } from '../../src/db/schema.ts';
import { generateKey } from '../../src/platform/auth/keys.ts';
import { createApiKey, createOrganization, createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../helpers/http.ts';
import { buildProbeApp } from '../helpers/probe-app.ts';
import { buildTestApp, testDatabase } from '../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildProbeApp();
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

describe('401 UNAUTHORIZED', () => {
  it('refuses a request without a key', async () => {
    const error = expectError(await api(app, 'GET', '/v1/me'), 401, 'UNAUTHORIZED');
    expect(error.message).toMatch(/X-API-Key/);
  });

  it('refuses Authorization: Bearer on the REST API and says why', async () => {
    const response = await api(app, 'GET', '/v1/me', {
      headers: { authorization: `Bearer ${tenant.secret.key}` },
    });
    const error = expectError(response, 401, 'UNAUTHORIZED');
    expect(error.message).toMatch(/Bearer is not accepted/);
  });

  it('refuses an unknown key of the right shape', async () => {
    expectError(await api(app, 'GET', '/v1/me', { key: generateKey('secret', 'live') }), 401, 'UNAUTHORIZED');
  });

  it('refuses a key whose checksum is wrong without telling which part is wrong', async () => {
    const key = tenant.secret.key;
    const tampered = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    const error = expectError(await api(app, 'GET', '/v1/me', { key: tampered }), 401, 'UNAUTHORIZED');
    expect(error.message).toBe('Invalid API key');
  });

  it('refuses a deactivated key', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret' });
    expectStatus(await admin(app, 'PATCH', `/admin/v1/api-keys/${key.id}`, { status: 'deactivated' }), 200);
    const error = expectError(await api(app, 'GET', '/v1/me', { key: key.key }), 401, 'UNAUTHORIZED');
    expect(error.message).toMatch(/deactivated/);
  });

  it('refuses an expired key', async () => {
    const key = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    expectStatus(await api(app, 'GET', '/v1/me', { key: key.key }), 200);
    await sleep(1600);
    const error = expectError(await api(app, 'GET', '/v1/me', { key: key.key }), 401, 'UNAUTHORIZED');
    expect(error.message).toMatch(/expired/);
  });
});

describe('admin authentication', () => {
  it.each([
    ['no header', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token-000000000000' }],
    ['an API key instead', { 'x-api-key': 'service_sk_live_x' }],
  ])('answers 401 with %s', async (_what, headers) => {
    const response = await app.inject({ method: 'GET', url: '/admin/v1/organizations', headers });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});

describe('403 FORBIDDEN', () => {
  it('refuses a suspended key, and accepts it again once reactivated', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret' });
    expectStatus(await admin(app, 'PATCH', `/admin/v1/api-keys/${key.id}`, { status: 'suspended' }), 200);
    const error = expectError(await api(app, 'GET', '/v1/me', { key: key.key }), 403, 'FORBIDDEN');
    expect(error.message).toMatch(/suspended/);
    expectStatus(await admin(app, 'PATCH', `/admin/v1/api-keys/${key.id}`, { status: 'active' }), 200);
    expectStatus(await api(app, 'GET', '/v1/me', { key: key.key }), 200);
  });

  it('refuses keys of an inactive organization', async () => {
    const other = await createTenant(app);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${other.org.id}`, { isActive: false }),
      200,
    );
    const error = expectError(await api(app, 'GET', '/v1/me', { key: other.secret.key }), 403, 'FORBIDDEN');
    expect(error.message).toMatch(/not active/);
  });

  it('gives the FREE plan no API access (keys of a downgraded organization stop working)', async () => {
    const other = await createTenant(app, { org: { plan: 'STARTER' } });
    expectStatus(await admin(app, 'PATCH', `/admin/v1/organizations/${other.org.id}`, { plan: 'FREE' }), 200);
    const error = expectError(await api(app, 'GET', '/v1/me', { key: other.secret.key }), 403, 'FORBIDDEN');
    expect(error.message).toMatch(/FREE plan has no API access/);
  });

  it('refuses a read-only secret key after a downgrade below BUSINESS, without revoking it', async () => {
    const other = await createTenant(app, { org: { plan: 'BUSINESS' } });
    expectStatus(await api(app, 'GET', '/v1/me', { key: other.readOnly.key }), 200);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${other.org.id}`, { plan: 'PROFESSIONAL' }),
      200,
    );
    const error = expectError(await api(app, 'GET', '/v1/me', { key: other.readOnly.key }), 403, 'FORBIDDEN');
    expect(error.message).toMatch(/BUSINESS or ENTERPRISE/);
    expectStatus(await api(app, 'GET', '/v1/me', { key: other.secret.key }), 200);
    const key = expectStatus(await admin(app, 'GET', `/admin/v1/api-keys/${other.readOnly.id}`), 200);
    expect(key.data.status).toBe('active');
  });

  it('refuses a key that lacks the route scope, naming the scope', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['contacts:read'] });
    const error = expectError(await api(app, 'GET', '/v1/events', { key: key.key }), 403, 'FORBIDDEN');
    expect(error.message).toMatch(/events:read/);
  });

  it('refuses a key whose access level is too low, naming both levels', async () => {
    const low = await createApiKey(app, tenant.org.id, { type: 'secret', accessLevel: 2 });
    const error = expectError(
      await api(app, 'GET', '/v1/probe/approved', { key: low.key }),
      403,
      'FORBIDDEN',
    );
    expect(error.message).toMatch(/access level 3.*this key has level 2/);
    expectStatus(await api(app, 'GET', '/v1/probe/approved', { key: tenant.secret.key }), 200);
  });

  it('tells a publishable key on a private route which scopes it may use', async () => {
    const error = expectError(
      await api(app, 'GET', '/v1/events', { key: tenant.publishable.key }),
      403,
      'FORBIDDEN',
    );
    expect(error.message).toMatch(/portal:read, leads:write, booking:write, finder:write, events:write/);
  });

  it('refuses a read-only key on a write route', async () => {
    const error = expectError(
      await api(app, 'POST', '/v1/probe/notes', { key: tenant.readOnly.key, body: { text: 'x' } }),
      403,
      'FORBIDDEN',
    );
    expect(error.message).toMatch(/Read-only keys/);
  });
});

describe('403 SECRET_KEY_IN_BROWSER', () => {
  it.each([
    ['Origin', { origin: 'https://agency.example' }],
    ['Sec-Fetch-Site', { 'sec-fetch-site': 'cross-site' }],
  ])('refuses a secret key sent with %s', async (_name, headers) => {
    const response = await api(app, 'GET', '/v1/me', { key: tenant.secret.key, headers });
    const error = expectError(response, 403, 'SECRET_KEY_IN_BROWSER');
    expect(error.message).toMatch(/never/);
    // The browser can read the answer: CORS is open on routes publishable keys may call.
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  it('refuses a read-only secret key from a browser too', async () => {
    const response = await api(app, 'GET', '/v1/me', {
      key: tenant.readOnly.key,
      headers: { origin: 'https://x.example' },
    });
    expectError(response, 403, 'SECRET_KEY_IN_BROWSER');
  });

  it('does not treat Sec-Fetch-Mode (sent by Node fetch) as a browser', async () => {
    const response = await api(app, 'GET', '/v1/me', {
      key: tenant.secret.key,
      headers: { 'sec-fetch-mode': 'cors' },
    });
    expectStatus(response, 200);
  });

  it('lets a publishable key be used from a browser', async () => {
    const response = await api(app, 'GET', '/v1/me', {
      key: tenant.publishable.key,
      headers: { origin: 'https://x.example' },
    });
    expectStatus(response, 200);
  });
});

describe('402 PAYMENT_REQUIRED', () => {
  it('rejects every mutation of a read-only organization, and still serves reads', async () => {
    const other = await createTenant(app);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${other.org.id}`, { readOnly: true }),
      200,
    );
    const error = expectError(
      await api(app, 'POST', '/v1/probe/notes', { key: other.secret.key, body: { text: 'x' } }),
      402,
      'PAYMENT_REQUIRED',
    );
    expect(error.message).toMatch(/read-only/);
    expectStatus(await api(app, 'GET', '/v1/me', { key: other.secret.key }), 200);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${other.org.id}`, { readOnly: false }),
      200,
    );
    expectStatus(
      await api(app, 'POST', '/v1/probe/notes', { key: other.secret.key, body: { text: 'x' } }),
      201,
    );
  });
});

describe('CORS', () => {
  it('answers a preflight for a route publishable keys may call', async () => {
    const response = await app.inject({
      method: 'OPTIONS',
      url: '/v1/me',
      headers: { origin: 'https://agency.example', 'access-control-request-method': 'GET' },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(String(response.headers['access-control-allow-headers'])).toMatch(/X-API-Key/);
  });

  it('refuses a preflight for a secret-only route, and sends no CORS headers on it', async () => {
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/v1/events',
      headers: { origin: 'https://agency.example', 'access-control-request-method': 'GET' },
    });
    expectError(preflight, 403, 'FORBIDDEN');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const response = await api(app, 'GET', '/v1/events', { key: tenant.secret.key });
    expectStatus(response, 200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('key cache', () => {
  it('applies a suspension made on another process within 5 seconds', async () => {
    const other = await buildProbeApp();
    try {
      const key = await createApiKey(app, tenant.org.id, { type: 'secret' });
      // Warm the second process's cache, then suspend through the first one.
      expectStatus(await api(other, 'GET', '/v1/me', { key: key.key }), 200);
      expectStatus(await admin(app, 'PATCH', `/admin/v1/api-keys/${key.id}`, { status: 'suspended' }), 200);
      const started = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - started < 6000) {
        status = (await api(other, 'GET', '/v1/me', { key: key.key })).statusCode;
        if (status === 200) await sleep(100);
      }
      expect(status).toBe(403);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await other.close();
    }
  });

  it('looks an uncached key up once however many requests wait for it', async () => {
    const db = await testDatabase();
    let systemTransactions = 0;
    const counting = {
      ...db,
      systemTx: <T>(fn: Parameters<typeof db.systemTx<T>>[0]) => {
        systemTransactions += 1;
        return db.systemTx(fn);
      },
    };
    const fresh = await buildTestApp({}, { db: counting });
    try {
      const key = await createApiKey(app, tenant.org.id, { type: 'secret', rateLimitPerMinute: 1000 });
      systemTransactions = 0;
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => api(fresh, 'GET', '/v1/me', { key: key.key })),
      );
      expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
      expect(systemTransactions).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('records lastUsedAt in the background', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret' });
    expect(key.lastUsedAt).toBeNull();
    expectStatus(await api(app, 'GET', '/v1/me', { key: key.key }), 200);
    await app.keyVerifier.flushLastUsed();
    const db = await testDatabase();
    const rows = await db.systemTx((tx) => tx.select().from(apiKeys).where(eq(apiKeys.id, key.id)));
    expect(rows[0]?.lastUsedAt).toBeInstanceOf(Date);
  });
});

describe('test mode', () => {
  it('acts on the test twin with a test key', async () => {
    const org = await createOrganization(app);
    const key = await createApiKey(app, org.id, { type: 'secret', mode: 'test' });
    expect(key.key.startsWith('service_sk_test_')).toBe(true);
    const me = expectStatus(await api(app, 'GET', '/v1/me', { key: key.key }), 200);
    expect(me.data.organization.id).toBe(org.testOrganizationId);
    expect(me.data.organization.livemode).toBe(false);
    expect(me.data.mode).toBe('test');
  });
});
