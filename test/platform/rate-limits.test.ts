import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/platform/auth/keys.ts';
import { MemoryLimitStore, RedisLimitStore, type LimitStore } from '../../src/platform/rate-limit/stores.ts';
import { createApiKey, createOrganization, createTenant, type Tenant } from '../helpers/factories.ts';
import { api, expectError, expectStatus } from '../helpers/http.ts';
import { PROBE_FEATURES } from '../helpers/probe.ts';
import { buildTestApp, TEST_REDIS_URL, testDatabase } from '../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  const db = await testDatabase();
  app = await buildTestApp(
    { AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_S: '60', AUTH_FAILURE_BLOCK_S: '120' },
    { db, features: PROBE_FEATURES },
  );
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

const write = (key: string) => api(app, 'POST', '/v1/probe/notes', { key, body: { text: 'hello' } });

describe('per-key limits', () => {
  it('uses the SPEC defaults per key type', async () => {
    const limits = async (key: string) => (await api(app, 'GET', '/v1/me', { key })).json().data.limits;
    expect(await limits(tenant.publishable.key)).toMatchObject({
      requestsPerMinute: 300,
      writesPerMinute: 60,
    });
    const secret = await createApiKey(app, tenant.org.id, { type: 'secret' });
    expect(await limits(secret.key)).toMatchObject({ requestsPerMinute: 60, writesPerMinute: 30 });
    expect(await limits(tenant.readOnly.key)).toMatchObject({ requestsPerMinute: 60, writesPerMinute: 0 });
  });

  it('counts requests per minute, with headers on every keyed response, then answers 429 with Retry-After', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret', rateLimitPerMinute: 3 });
    for (const remaining of [2, 1, 0]) {
      const response = await api(app, 'GET', '/v1/me', { key: key.key });
      expectStatus(response, 200);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(remaining));
      expect(Number(response.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    }
    const refused = await api(app, 'GET', '/v1/me', { key: key.key });
    const error = expectError(refused, 429, 'RATE_LIMITED');
    expect(error.message).toMatch(/3 requests per minute/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('carries the headers on a 403 answered to a known key', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['contacts:read'] });
    const response = await api(app, 'GET', '/v1/events', { key: key.key });
    expectError(response, 403, 'FORBIDDEN');
    expect(response.headers['x-ratelimit-limit']).toBe('60');
  });

  it('limits writes separately, and a refused write does not burn a read', async () => {
    const key = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: ['contacts:write'],
      rateLimitPerMinute: 10,
      writeLimitPerMinute: 2,
    });
    expectStatus(await write(key.key), 201);
    expectStatus(await write(key.key), 201);
    const refused = await write(key.key);
    const error = expectError(refused, 429, 'RATE_LIMITED');
    expect(error.message).toMatch(/Write limit of 2/);
    expect(refused.headers['x-ratelimit-limit']).toBe('2');
    const read = await api(app, 'GET', '/v1/me', { key: key.key });
    expectStatus(read, 200);
    // 2 writes + this read: the refused write took nothing from the total.
    expect(read.headers['x-ratelimit-remaining']).toBe('7');
  });
});

describe('organization write limit', () => {
  it('answers 429 TENANT_RATE_LIMITED when the organization as a whole writes too much', async () => {
    const org = await createOrganization(app, { writeLimitPerMinute: 2 });
    const a = await createApiKey(app, org.id, { type: 'secret', scopes: ['contacts:write'] });
    const b = await createApiKey(app, org.id, { type: 'secret', scopes: ['contacts:write'] });
    expectStatus(await write(a.key), 201);
    expectStatus(await write(b.key), 201);
    const refused = await write(a.key);
    const error = expectError(refused, 429, 'TENANT_RATE_LIMITED');
    expect(error.message).toMatch(/Organization write limit of 2/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Reads of the organization still go through; the refused write was given back to the key.
    const read = await api(app, 'GET', '/v1/me', { key: a.key });
    expectStatus(read, 200);
    expect(read.headers['x-ratelimit-remaining']).toBe(String(60 - 2));
  });

  it('keeps another organization unaffected', async () => {
    const busy = await createOrganization(app, { writeLimitPerMinute: 1 });
    const busyKey = await createApiKey(app, busy.id, { type: 'secret', scopes: ['contacts:write'] });
    expectStatus(await write(busyKey.key), 201);
    expectError(await write(busyKey.key), 429, 'TENANT_RATE_LIMITED');
    expectStatus(await write(tenant.secret.key), 201);
  });
});

describe('failed-auth IP block', () => {
  it('blocks an address after AUTH_FAILURE_LIMIT invalid keys, even for a valid key, and not other addresses', async () => {
    const ip = '203.0.113.7';
    for (let i = 0; i < 3; i++) {
      expectError(
        await api(app, 'GET', '/v1/me', { key: generateKey('secret', 'live'), remoteAddress: ip }),
        401,
        'UNAUTHORIZED',
      );
    }
    const blocked = await api(app, 'GET', '/v1/me', { key: tenant.secret.key, remoteAddress: ip });
    const error = expectError(blocked, 429, 'RATE_LIMITED');
    expect(error.message).toMatch(/invalid API keys/);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(60);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expectStatus(
      await api(app, 'GET', '/v1/me', { key: tenant.secret.key, remoteAddress: '203.0.113.8' }),
      200,
    );
  });

  it('does not count requests that send no key at all', async () => {
    const ip = '203.0.113.9';
    for (let i = 0; i < 5; i++)
      expectError(await api(app, 'GET', '/v1/me', { remoteAddress: ip }), 401, 'UNAUTHORIZED');
    expectStatus(await api(app, 'GET', '/v1/me', { key: tenant.secret.key, remoteAddress: ip }), 200);
  });
});

async function redisReachable(): Promise<boolean> {
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const redisUp = await redisReachable();
if (!redisUp && process.env.REQUIRE_REDIS === '1')
  throw new Error(`REQUIRE_REDIS=1 but Redis at ${TEST_REDIS_URL} is down`);

/** The stores' batch semantics: `points` at once, all or none, and a refusal takes nothing. */
async function expectAllOrNothing(store: LimitStore) {
  const key = `batch-${Math.random().toString(36).slice(2)}`;
  expect(await store.consume('key-writes', key, 30, 60, 25)).toMatchObject({ allowed: true, consumed: 25 });
  expect((await store.consume('key-writes', key, 30, 60, 10)).allowed).toBe(false);
  expect(await store.peek('key-writes', key, 30, 60)).toMatchObject({ consumed: 25 });
  expect(await store.consume('key-writes', key, 30, 60, 5)).toMatchObject({ allowed: true, consumed: 30 });
  expect((await store.consume('key-writes', key, 30, 60)).allowed).toBe(false);
  await store.refund('key-writes', key, 30, 60, 10);
  expect(await store.peek('key-writes', key, 30, 60)).toMatchObject({ consumed: 20 });
  expect(await store.consume('key-writes', key, 30, 60)).toMatchObject({ allowed: true, consumed: 21 });
}

describe('batches: several points at once', () => {
  it('counts them all or none in memory', async () => {
    const store = new MemoryLimitStore();
    try {
      await expectAllOrNothing(store);
    } finally {
      await store.close();
    }
  });

  it('counts them all or none in the per-process fallback while Redis does not answer', async () => {
    const down = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    down.on('error', () => undefined);
    let fallbacks = 0;
    const store = new RedisLimitStore(down, () => (fallbacks += 1));
    try {
      await expectAllOrNothing(store);
      expect(fallbacks).toBeGreaterThan(0);
    } finally {
      down.disconnect();
    }
  });

  it.runIf(redisUp)('counts them all or none in Redis', async () => {
    const store = new RedisLimitStore(new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 }));
    try {
      await expectAllOrNothing(store);
    } finally {
      await store.close();
    }
  });
});

describe.runIf(redisUp)('shared limits in Redis', () => {
  it('shares one count between two API processes', async () => {
    const db = await testDatabase();
    const first = await buildTestApp({ REDIS_URL: TEST_REDIS_URL }, { db });
    const second = await buildTestApp({ REDIS_URL: TEST_REDIS_URL }, { db });
    try {
      expect(first.rateLimits.store).toBe('redis');
      const key = await createApiKey(first, tenant.org.id, { type: 'secret', rateLimitPerMinute: 4 });
      expectStatus(await api(first, 'GET', '/v1/me', { key: key.key }), 200);
      expectStatus(await api(second, 'GET', '/v1/me', { key: key.key }), 200);
      expectStatus(await api(first, 'GET', '/v1/me', { key: key.key }), 200);
      const last = await api(second, 'GET', '/v1/me', { key: key.key });
      expectStatus(last, 200);
      expect(last.headers['x-ratelimit-remaining']).toBe('0');
      expectError(await api(first, 'GET', '/v1/me', { key: key.key }), 429, 'RATE_LIMITED');
      expectError(await api(second, 'GET', '/v1/me', { key: key.key }), 429, 'RATE_LIMITED');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('shares the failed-auth block between processes', async () => {
    const db = await testDatabase();
    const env = { REDIS_URL: TEST_REDIS_URL, AUTH_FAILURE_LIMIT: '2' };
    const first = await buildTestApp(env, { db });
    const second = await buildTestApp(env, { db });
    const ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
    try {
      await api(first, 'GET', '/v1/me', { key: generateKey('secret', 'live'), remoteAddress: ip });
      await api(second, 'GET', '/v1/me', { key: generateKey('secret', 'live'), remoteAddress: ip });
      expectError(
        await api(first, 'GET', '/v1/me', { key: tenant.secret.key, remoteAddress: ip }),
        429,
        'RATE_LIMITED',
      );
    } finally {
      await first.close();
      await second.close();
    }
  });
});
