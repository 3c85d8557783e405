/**
 * draft-ietf-httpapi-ratelimit-headers on every keyed answer (`RateLimit-Policy`, `RateLimit`) beside
 * X-RateLimit-*, and `GET /v1/rate-limits` from the live counters, in memory and through Redis.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminOrganization } from '../../src/features/organizations/index.ts';
import { createApiKey, createOrganization } from '../helpers/factories.ts';
import { api, expectError, expectStatus } from '../helpers/http.ts';
import { PROBE_FEATURES } from '../helpers/probe.ts';
import { buildTestApp, TEST_REDIS_URL, testDatabase } from '../helpers/test-app.ts';

let app: FastifyInstance;
let org: AdminOrganization;

beforeAll(async () => {
  const db = await testDatabase();
  app = await buildTestApp({}, { db, features: PROBE_FEATURES });
  org = await createOrganization(app, { writeLimitPerMinute: 50 });
});
afterAll(async () => {
  await app.close();
});

const write = (target: FastifyInstance, key: string) =>
  api(target, 'POST', '/v1/probe/notes', { key, body: { text: 'hello' } });
const secretKey = (organizationId: string, limits: Record<string, number>) =>
  createApiKey(app, organizationId, { type: 'secret', scopes: ['contacts:write'], ...limits });

/** `"key";r=9;t=60` -> {name, r, t} */
function parseRateLimit(value: unknown) {
  const match = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(String(value));
  expect(match, String(value)).not.toBeNull();
  return { name: match?.[1], r: Number(match?.[2]), t: Number(match?.[3]) };
}

describe('RateLimit and RateLimit-Policy headers', () => {
  it('list the policies of a key that writes, and the one closest to exhaustion of those counted', async () => {
    const key = await secretKey(org.id, { rateLimitPerMinute: 10, writeLimitPerMinute: 4 });
    const read = await api(app, 'GET', '/v1/me', { key: key.key });
    expectStatus(read, 200);
    expect(read.headers['ratelimit-policy']).toBe(
      '"key";q=10;w=60, "key-writes";q=4;w=60, "organization-writes";q=50;w=60',
    );
    // A read counts against the key's request limit only.
    const afterRead = parseRateLimit(read.headers.ratelimit);
    expect(afterRead).toMatchObject({ name: 'key', r: 9 });
    expect(afterRead.t).toBeGreaterThan(0);
    expect(afterRead.t).toBeLessThanOrEqual(60);

    // A write counts against all three: key 8 left, key-writes 3, organization-writes 49.
    const written = await write(app, key.key);
    expectStatus(written, 201);
    expect(parseRateLimit(written.headers.ratelimit)).toMatchObject({ name: 'key-writes', r: 3 });
    expect(written.headers['x-ratelimit-remaining']).toBe('8');
  });

  it('list only the request policy for a read-only key', async () => {
    const readOnly = await createApiKey(app, org.id, { type: 'read_only_secret' });
    const response = await api(app, 'GET', '/v1/me', { key: readOnly.key });
    expect(response.headers['ratelimit-policy']).toBe('"key";q=60;w=60');
    expect(parseRateLimit(response.headers.ratelimit)).toMatchObject({ name: 'key', r: 59 });
  });

  it('name the refusing policy with r=0 on a 429', async () => {
    const key = await secretKey(org.id, { writeLimitPerMinute: 1 });
    expectStatus(await write(app, key.key), 201);
    const refused = await write(app, key.key);
    expectError(refused, 429, 'RATE_LIMITED');
    const state = parseRateLimit(refused.headers.ratelimit);
    expect(state).toMatchObject({ name: 'key-writes', r: 0 });
    expect(state.t).toBe(Number(refused.headers['retry-after']));
    expect(refused.headers['ratelimit-policy']).toBe('"key-writes";q=1;w=60');

    const small = await createOrganization(app, { writeLimitPerMinute: 1 });
    const smallKey = await secretKey(small.id, {});
    expectStatus(await write(app, smallKey.key), 201);
    const tenantRefused = await write(app, smallKey.key);
    expectError(tenantRefused, 429, 'TENANT_RATE_LIMITED');
    expect(parseRateLimit(tenantRefused.headers.ratelimit)).toMatchObject({
      name: 'organization-writes',
      r: 0,
    });
  });

  it('are readable by a browser on publishable-key routes (CORS exposes them)', async () => {
    const publishable = await createApiKey(app, org.id, { type: 'publishable' });
    const response = await api(app, 'GET', '/v1/portal', {
      key: publishable.key,
      headers: { origin: 'https://agency.example' },
    });
    expect(response.headers['ratelimit']).toBeDefined();
    const exposed = String(response.headers['access-control-expose-headers']).split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
  });
});

describe('GET /v1/rate-limits', () => {
  it('answers every policy of the key from the live counters, this request included', async () => {
    const key = await secretKey(org.id, { rateLimitPerMinute: 20, writeLimitPerMinute: 5 });
    const fresh = expectStatus(await api(app, 'GET', '/v1/rate-limits', { key: key.key }), 200).data;
    expect(fresh).toEqual([
      { name: 'key', limit: 20, remaining: 19, windowSeconds: 60, resetSeconds: expect.any(Number) },
      { name: 'key-writes', limit: 5, remaining: 5, windowSeconds: 60, resetSeconds: 0 },
      {
        name: 'organization-writes',
        limit: 50,
        remaining: expect.any(Number),
        windowSeconds: 60,
        resetSeconds: expect.any(Number),
      },
    ]);
    expect(fresh[0].resetSeconds).toBeGreaterThan(0);
    const orgBefore = fresh[2].remaining;

    expectStatus(await write(app, key.key), 201);
    expectStatus(await write(app, key.key), 201);
    const after = expectStatus(await api(app, 'GET', '/v1/rate-limits', { key: key.key }), 200).data;
    expect(after.map((p: { remaining: number }) => p.remaining)).toEqual([16, 3, orgBefore - 2]);
    expect(after[1].resetSeconds).toBeGreaterThan(0);
  });

  it('needs no scope, answers any key type, and a read-only key has only its request policy', async () => {
    const noScope = await createApiKey(app, org.id, { type: 'secret', scopes: [] });
    expect(
      expectStatus(await api(app, 'GET', '/v1/rate-limits', { key: noScope.key }), 200).data,
    ).toHaveLength(3);
    const publishable = await createApiKey(app, org.id, { type: 'publishable', scopes: [] });
    const ofPublishable = expectStatus(
      await api(app, 'GET', '/v1/rate-limits', { key: publishable.key }),
      200,
    ).data;
    expect(ofPublishable.map((p: { name: string; limit: number }) => [p.name, p.limit])).toEqual([
      ['key', 300],
      ['key-writes', 60],
      ['organization-writes', 50],
    ]);
    const readOnly = await createApiKey(app, org.id, { type: 'read_only_secret' });
    const ofReadOnly = expectStatus(
      await api(app, 'GET', '/v1/rate-limits', { key: readOnly.key }),
      200,
    ).data;
    expect(ofReadOnly.map((p: { name: string }) => p.name)).toEqual(['key']);
    expectError(await api(app, 'GET', '/v1/rate-limits'), 401, 'UNAUTHORIZED');
  });

  it("shows an organization's writes to its own keys only", async () => {
    const ours = await createOrganization(app, { writeLimitPerMinute: 40 });
    const theirs = await createOrganization(app, { writeLimitPerMinute: 40 });
    const ourKey = await secretKey(ours.id, {});
    const theirKey = await secretKey(theirs.id, {});
    for (let i = 0; i < 3; i++) expectStatus(await write(app, theirKey.key), 201);
    const policies = expectStatus(await api(app, 'GET', '/v1/rate-limits', { key: ourKey.key }), 200).data;
    expect(policies[2]).toMatchObject({ name: 'organization-writes', limit: 40, remaining: 40 });
    const theirPolicies = expectStatus(
      await api(app, 'GET', '/v1/rate-limits', { key: theirKey.key }),
      200,
    ).data;
    expect(theirPolicies[2]).toMatchObject({ remaining: 37 });
  });

  // CI sets REQUIRE_REDIS=1 (Redis is up there); test/platform/rate-limits.test.ts checks the sharing itself.
  it.runIf(process.env.REQUIRE_REDIS === '1')(
    'shows the counts of every API process when Redis is configured',
    async () => {
      const db = await testDatabase();
      const first = await buildTestApp({ REDIS_URL: TEST_REDIS_URL }, { db, features: PROBE_FEATURES });
      const second = await buildTestApp({ REDIS_URL: TEST_REDIS_URL }, { db, features: PROBE_FEATURES });
      try {
        const key = await createApiKey(first, org.id, {
          type: 'secret',
          scopes: ['contacts:write'],
          rateLimitPerMinute: 30,
          writeLimitPerMinute: 9,
        });
        expectStatus(await write(first, key.key), 201);
        expectStatus(await write(first, key.key), 201);
        const seen = expectStatus(await api(second, 'GET', '/v1/rate-limits', { key: key.key }), 200).data;
        expect(seen.slice(0, 2).map((p: { remaining: number }) => p.remaining)).toEqual([27, 7]);
      } finally {
        await first.close();
        await second.close();
      }
    },
  );
});
